"""Root conftest: the self-tests drive pytest in-process with ``pytester``."""

pytest_plugins = ["pytester"]

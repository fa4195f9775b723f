"""A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe`` (stdlib only).

Drives the system's headless Chromium (Debian package ``chromium``): no
WebDriver, no browser download, no socket.  Chromium reads commands on fd 3 and
writes replies and events on fd 4, each a JSON message ended by a NUL byte.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

BROWSERS = ("chromium", "chromium-browser")


def find_chromium() -> str | None:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


class Chromium:
    """One headless browser process; :meth:`call` sends a command and waits for its reply."""

    def __init__(self, binary: str, profile: Path, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self.events: list[dict[str, Any]] = []
        self._next_id = 0
        self._buffer = b""
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()

        def wire_fds() -> None:  # in the child: fd 3 = commands in, fd 4 = replies out
            commands = fcntl.fcntl(to_browser_read, fcntl.F_DUPFD, 10)
            replies = fcntl.fcntl(from_browser_write, fcntl.F_DUPFD, 10)
            os.dup2(commands, 3)
            os.dup2(replies, 4)

        self.process = subprocess.Popen(
            [
                binary,
                "--headless=new",
                "--remote-debugging-pipe",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--hide-scrollbars",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
            preexec_fn=wire_fds,
        )
        os.close(to_browser_read)
        os.close(from_browser_write)

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no reply from chromium in time")
            ready, _, _ = select.select([self._from_browser], [], [], remaining)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise ConnectionError("chromium closed its DevTools pipe")
                self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        message: dict[str, Any] = json.loads(raw)
        return message

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self.events.append(reply)

    def wait_for(self, method: str) -> dict[str, Any]:
        for event in self.events:
            if event.get("method") == method:
                return event
        deadline = time.monotonic() + self.timeout
        while True:
            event = self._read_message(deadline)
            self.events.append(event)
            if event.get("method") == method:
                return event

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (OSError, RuntimeError, TimeoutError, ConnectionError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)


def open_page(
    browser: Chromium, page: Path, *, width: int = 1200, height: int = 900, mobile: bool = False
) -> str:
    """Load ``page`` offline with scripts disabled at a viewport; return the session id."""
    target = browser.call("Target.createTarget", url="about:blank")["targetId"]
    session = str(browser.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"])
    browser.call("Network.enable", session)
    browser.call(
        "Network.emulateNetworkConditions",
        session,
        offline=True,
        latency=0,
        downloadThroughput=-1,
        uploadThroughput=-1,
    )
    browser.call("Emulation.setScriptExecutionDisabled", session, value=True)
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        session,
        width=width,
        height=height,
        deviceScaleFactor=1,
        mobile=mobile,
    )
    browser.call("Page.enable", session)
    browser.events.clear()
    browser.call("Page.navigate", session, url=page.as_uri())
    browser.wait_for("Page.loadEventFired")
    return session


def evaluate(browser: Chromium, session: str, expression: str) -> object:
    """The value of a JavaScript expression in the page (DevTools runs it; the page has none)."""
    reply = browser.call("Runtime.evaluate", session, expression=expression, returnByValue=True)
    return reply["result"].get("value")

"""The governed MCP server: the qualification served over MCP, stdio or loopback HTTP.

Built on the official MCP Python SDK (the ``mcp`` extra), imported only by
this module, which nothing imports at plugin load.  One server serves one
qualification.  It listens with streamable HTTP on ``127.0.0.1`` only, on a
port the system picks, at a random per-scenario path (``/<token>/mcp``); the
stdio transport is :func:`serve_relay`, a subprocess the host launches that
relays its stdio session to that endpoint, so every judgement happens in the
one process that runs the harness.

What a host sees of the current scenario (exactly what a wire model in the
``mcp`` dialect is shown, :func:`~pytest_openmed.planner.wire.render_request`):

* ``tools/list``: the catalog's tools with their wire names and schemas;
* ``prompts/list`` / ``prompts/get``: one prompt named by the scenario id,
  two ``user`` messages, the system text and then the task (a prompt is
  how a host's user starts a task; MCP prompts carry no system role);
* ``tools/call``: one harness turn; the answer is the harness's decision as
  canonical JSON text (with the result text for the read that earned it),
  ``isError`` unless the decision is ``allowed``.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.server.lowlevel.server import Server

from pytest_openmed.errors import InputRefused
from pytest_openmed.planner.served import (
    DEFAULT_TIME_LIMIT,
    TRANSPORTS,
    AgentTransport,
    RunAgent,
)

__all__ = ["LOOPBACK", "build_server", "governed_server", "serve_relay"]

#: The only address the server binds.
LOOPBACK = "127.0.0.1"
_SERVER_NAME = "pytest-openmed-planner"
_PATH = "/mcp"
_TOKEN_KEY = "openmed.token"
_ALLOWED = "allowed"
_STARTUP_SECONDS = 10.0
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


def _token(ctx: Any) -> str:
    request = getattr(ctx, "request", None)
    scope = getattr(request, "scope", None)
    token = scope.get(_TOKEN_KEY) if isinstance(scope, dict) else None
    return token if type(token) is str else ""


def _not_current() -> Exception:
    from mcp.shared.exceptions import MCPError

    return MCPError(-32602, "no scenario is served at this endpoint")


def build_server(agent: AgentTransport) -> Server[Any]:
    """The MCP server whose handlers read and feed ``agent``."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        current = agent.scenario_request(_token(ctx))
        if current is None:
            raise _not_current()
        _, request = current
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=tool["name"],
                    description=tool["description"],
                    input_schema=tool["inputSchema"],
                )
                for tool in request["tools"]
            ]
        )

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        current = agent.scenario_request(_token(ctx))
        if current is None:
            raise _not_current()
        scenario_id, _ = current
        return types.ListPromptsResult(
            prompts=[types.Prompt(name=scenario_id, description="The scenario's task.")]
        )

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        current = agent.scenario_request(_token(ctx))
        if current is None or params.name != current[0]:
            raise _not_current()
        _, request = current
        texts = (request["systemPrompt"], request["messages"][0]["content"]["text"])
        return types.GetPromptResult(
            description="The scenario's task.",
            messages=[
                types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
                for text in texts
            ],
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        answer = agent.submit(_token(ctx), params.name, params.arguments)
        text = await asyncio.wrap_future(answer)
        decision = json.loads(text).get("decision")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            is_error=decision != _ALLOWED,
        )

    return Server(
        _SERVER_NAME,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


class _Scoped:
    """ASGI: accept only ``/<token>/mcp``, serve it as ``/mcp`` with the token in the scope."""

    def __init__(self, app: Any) -> None:
        self._app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            token, _, rest = scope["path"].lstrip("/").partition("/")
            if not token or "/" + rest != _PATH:
                await send({"type": "http.response.start", "status": 404, "headers": []})
                await send({"type": "http.response.body", "body": b""})
                return
            scope = {**scope, "path": _PATH, "raw_path": _PATH.encode(), _TOKEN_KEY: token}
        await self._app(scope, receive, send)


def _relay_parameters(url: str) -> Any:
    """How a host launches the stdio relay to ``url`` (the same package, the same Python)."""
    from mcp import StdioServerParameters

    path = os.pathsep.join(p for p in (_PACKAGE_ROOT, os.environ.get("PYTHONPATH")) if p)
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "pytest_openmed.planner", "serve", "--relay", url],
        env={"PYTHONPATH": path},
    )


@contextmanager
def governed_server(
    run_agent: RunAgent, *, transport: str = "http", time_limit: float = DEFAULT_TIME_LIMIT
) -> Iterator[AgentTransport]:
    """Serve on loopback while the block runs; yields the transport the harness drives.

    ``run_agent`` receives the endpoint URL (``http``) or the stdio relay's
    ``StdioServerParameters`` (``stdio``).
    """
    import uvicorn

    if transport not in TRANSPORTS:
        raise InputRefused("transport must be one of: " + ", ".join(TRANSPORTS))
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((LOOPBACK, 0))
    port = listener.getsockname()[1]

    def connect(token: str) -> object:
        url = f"http://{LOOPBACK}:{port}/{token}{_PATH}"
        return url if transport == "http" else _relay_parameters(url)

    agent = AgentTransport(run_agent, connect, time_limit=time_limit)
    app = _Scoped(build_server(agent).streamable_http_app(streamable_http_path=_PATH))
    config = uvicorn.Config(
        app,
        log_config=None,  # leave the process's logging configuration alone
        log_level="critical",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=lambda: asyncio.run(server.serve(sockets=[listener])), daemon=True
    )
    thread.start()
    started = time.monotonic() + _STARTUP_SECONDS
    while not server.started and thread.is_alive() and time.monotonic() < started:
        time.sleep(0.01)
    try:
        if not server.started:
            raise InputRefused("the governed MCP server could not start on loopback")
        yield agent
    finally:
        agent.close()
        server.should_exit = True
        thread.join(_STARTUP_SECONDS)
        listener.close()


def serve_relay(url: str) -> None:
    """Serve MCP on stdio, relaying every request to the governed server at ``url``."""
    import anyio

    anyio.run(_relay, url)


async def _relay(url: str) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.server.stdio import stdio_server

    async with (
        streamable_http_client(url) as (upstream_read, upstream_write),
        ClientSession(upstream_read, upstream_write) as upstream,
    ):
        await upstream.initialize()

        async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
            return await upstream.list_tools()

        async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
            return await upstream.list_prompts()

        async def get_prompt(
            ctx: Any, params: types.GetPromptRequestParams
        ) -> types.GetPromptResult:
            return await upstream.get_prompt(params.name, params.arguments)

        async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
            return await upstream.call_tool(params.name, params.arguments)

        relay: Server[Any] = Server(
            _SERVER_NAME,
            on_list_tools=list_tools,
            on_call_tool=call_tool,
            on_list_prompts=list_prompts,
            on_get_prompt=get_prompt,
        )
        async with stdio_server() as (read, write):
            await relay.run(read, write, relay.create_initialization_options())

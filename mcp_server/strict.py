"""Strict tool arguments and honest capabilities.

The SDK validates arguments leniently ("yes" is a true ``pinned``, unknown arguments are
dropped without a word) and reports a type error as pydantic's multi-line text with a link.
Here every call is first checked against a strict copy of the tool's argument model that
forbids unknown arguments, and a mistake comes back as one line naming the argument. The
schemas the tools advertise say ``additionalProperties: false`` to match.

The SDK also advertises prompts and resources (with empty lists) whatever the server offers;
Tether serves tools only, so those methods are taken away and no longer advertised.

Over stdio, a request the SDK cannot read is answered with its JSON-RPC error instead of
being dropped (:mod:`mcp_server.unreadable`).
"""

from __future__ import annotations

import difflib
from typing import Any

from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.message import SessionMessage
from pydantic import BaseModel, ConfigDict, ValidationError

from mcp_server.broken_text import BrokenText
from mcp_server.calls import Calls
from mcp_server.in_flight import named
from mcp_server.json_words import json_type, wanted

UNSERVED = (
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
)
"""Methods the SDK registers on its own that Tether has nothing behind."""

SDK_PREFIX = "Error executing tool"
"""How the SDK starts a tool's error; Tether's start with the tool's name (docs/agents.md)."""


def _where(loc: tuple[Any, ...]) -> str:
    name = f"argument '{loc[0]}'" if loc else "the arguments"
    rest = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc[1:])
    return name if not rest else f"{name} (at {loc[0]}{rest})"


def describe(tool: str, error: ValidationError, known: list[str]) -> str:
    """One line naming the first wrong argument and what it should be."""
    first = error.errors()[0]
    loc = tuple(part for part in first["loc"] if not isinstance(part, str) or part != "")
    kind = first["type"]
    if kind == "extra_forbidden":
        return f"{tool}: unknown argument '{loc[0]}'; the arguments are {', '.join(known)}"
    if kind == "missing":
        return f"{tool}: {_where(loc)} is required"
    must = wanted(kind)
    if must is None:
        return f"{tool}: {_where(loc)}: {first['msg']}"
    return f"{tool}: {_where(loc)} must be {must}, not {json_type(first.get('input'))}"


def _named(context: Any, tool: str) -> str:
    """A tool call as stderr names it: its request's id, the method and the tool."""
    try:
        request_id = context.request_context.request_id
    except (AttributeError, ValueError):  # called outside a request
        request_id = None
    return named(request_id, "tools/call", tool)


class TetherMCPServer(MCPServer):
    """The SDK's server with strict arguments and only the capabilities Tether serves."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        from mcp_server.request_errors import NamedRequestErrors

        super().__init__(*args, **kwargs)
        self._strict: dict[str, tuple[type[BaseModel], Any]] = {}
        self.abandoned: list[str] = []
        """The requests given up unanswered when the input ended (:mod:`mcp_server.in_flight`):
        their calls may still run, so the process must end without waiting for them."""
        self.calls = Calls()
        """The tool calls whose worker threads run (:mod:`mcp_server.calls`)."""
        self._lowlevel_server.middleware.append(NamedRequestErrors())

    def serve_tools_only(self) -> None:
        """Remove the prompt and resource methods, so they are not advertised either."""
        handlers = self._lowlevel_server._request_handlers
        for method in UNSERVED:
            handlers.pop(method, None)

    def make_strict(self) -> None:
        """A strict, closed argument model for every tool registered so far."""
        for tool in self._tool_manager.list_tools():
            base = tool.fn_metadata.arg_model
            config = ConfigDict(extra="forbid", strict=True, arbitrary_types_allowed=True)
            strict = type(base.__name__, (base,), {"model_config": config})
            self._strict[tool.name] = (strict, tool.fn_metadata.pre_parse_json)
            tool.parameters["additionalProperties"] = False

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        """Check the arguments strictly, then call the tool as the SDK does. JSON sent inside
        a string (``"limit": "5"``, a list as text: some clients do this) is read first, as
        the SDK reads it; nothing else is converted."""
        found = self._strict.get(name)
        if found is None:  # the SDK says only "Unknown tool", naming neither the fix nor the tools
            near = difflib.get_close_matches(name, list(self._strict), n=1)
            hint = f" (did you mean {near[0]}?)" if near else ""
            raise ToolError(
                f"{name}: unknown tool{hint}; the tools are {', '.join(sorted(self._strict))}"
            )
        model, pre_parse = found
        try:
            model.model_validate(pre_parse(arguments))
        except ValidationError as error:
            known = [f.alias or n for n, f in model.model_fields.items()]
            raise ToolError(describe(name, error, known)) from None
        try:
            with self.calls.calling(_named(context, name)):
                return await super().call_tool(name, arguments, context)
        except ToolError as error:  # the SDK's "Error executing tool NAME: ..." is "NAME: ..."
            said = str(error)
            prefix = f"{SDK_PREFIX} {name}: "
            if not said.startswith(prefix):
                raise
            raise type(error)(f"{name}: {said[len(prefix) :]}") from error.__cause__

    async def run_stdio_async(self) -> None:
        """Serve over stdio as the SDK does, answering every request it cannot read (see
        :mod:`mcp_server.unreadable`, :mod:`mcp_server.stdin_lines`) instead of leaving its
        client waiting, and every request received before the input ended
        (:mod:`mcp_server.in_flight`)."""
        from mcp.server.stdio import stdio_server

        from mcp_server.stdin_lines import client_lines

        with client_lines() as lines:
            # the SDK reads any async iterable of lines, though it names an AsyncFile
            async with stdio_server(stdin=lines) as streams:  # type: ignore[arg-type]
                await self._serve(*streams, lines.broken)

    async def _serve(
        self,
        read_stream: ObjectReceiveStream[SessionMessage | Exception],
        write_stream: ObjectSendStream[SessionMessage],
        broken: BrokenText | None = None,
    ) -> None:
        import anyio

        from mcp_server.in_flight import InFlight, relay_answers
        from mcp_server.unreadable import answer_unreadable

        lowlevel = self._lowlevel_server
        in_flight = InFlight(self.calls)
        to_session, from_reader = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        from_session, answers = anyio.create_memory_object_stream[SessionMessage](0)
        async with anyio.create_task_group() as group:
            group.start_soon(
                answer_unreadable, read_stream, to_session, write_stream, in_flight, broken
            )
            group.start_soon(relay_answers, answers, write_stream, in_flight)
            async with from_reader:
                await lowlevel.run(
                    from_reader, from_session, lowlevel.create_initialization_options()
                )
        self.abandoned = in_flight.abandoned

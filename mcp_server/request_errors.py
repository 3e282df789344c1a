"""Errors of requests the SDK can read but not serve, said in words.

The SDK answers a request whose params have the wrong shape (``"name": 5``, ``"arguments":
"c069"``), and any request sent before ``initialize``, with the bare ``-32602 Invalid request
parameters`` and empty data: the client cannot tell what to fix. This middleware keeps the
code and says which field is wrong and what it must be, or that the session must be
initialized first. A ``notifications/initialized`` sent before ``initialize`` would open the
SDK's gate with no handshake done: it is dropped (and logged), so every request but ``ping``
still gets that error until ``initialize`` is answered.
"""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from pydantic import ValidationError

from mcp_server.json_words import json_type, wanted

log = logging.getLogger("mcp_server")

SDK_VAGUE = "Invalid request parameters"
"""The SDK's one message for every params problem, the pre-initialize gate included."""


def _field(loc: tuple[Any, ...]) -> str:
    parts = [part for part in loc if not (isinstance(part, str) and "[" in part)]
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts).lstrip(".")
    return f"'{text}'" if text else "'params'"


def params_problem(method: str, error: ValidationError) -> MCPError:
    """One line naming the first wrong field of ``method``'s params and what it must be."""
    first = error.errors()[0]
    field = _field(tuple(first["loc"]))
    if first["type"] == "missing":
        said = f"{method}: {field} is required"
    else:
        must = wanted(first["type"])
        got = json_type(first.get("input"))
        said = f"{method}: {field} " + (f"must be {must}, not {got}" if must else first["msg"])
    return MCPError(code=INVALID_PARAMS, message=said, data={"field": field.strip("'")})


class NamedRequestErrors:
    """Server middleware: a params error names its field; a request before the handshake is
    told to send ``initialize`` first. The code stays ``-32602``, as the SDK sends it."""

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Run the request; reword the SDK's vague ``-32602``. A premature
        ``notifications/initialized`` is not run."""
        if ctx.method == "notifications/initialized" and ctx.session.client_params is None:
            log.warning(
                "notifications/initialized came before initialize and is ignored: send "
                "initialize first, then notifications/initialized"
            )
            return None
        try:
            return await call_next(ctx)
        except ValidationError as error:
            raise params_problem(ctx.method, error) from None
        except MCPError as error:
            if error.code != INVALID_PARAMS or error.message != SDK_VAGUE:
                raise
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"{ctx.method}: the session is not initialized; send initialize, then "
                "notifications/initialized, before any other request",
            ) from None

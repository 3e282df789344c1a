"""The tools an agent sees: names, descriptions, parameters, and errors it can act on.

Agents choose and call tools from these descriptions alone, so each says when to use the tool,
what it returns and what it counts as. Every engine problem becomes an MCP tool error
(``isError`` with the message); nothing a caller sends can stop the server.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import anyio.to_thread
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from mcp_server import calls, operations, writing
from mcp_server.limits import LIMIT_MIN, LIST_LIMIT, LIST_MAX, RECALL_LIMIT, RECALL_MAX
from mcp_server.results import masked_throughout
from mcp_server.workspace import CallCancelled
from recall.errors import TetherError
from recall.model import CATEGORIES, STATUSES

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from mcp_server.workspace import Workspace

TOOL_NAMES = (
    "memory_recall",
    "memory_get",
    "memory_write",
    "memory_supersede",
    "memory_pin",
    "memory_archive",
    "memory_list",
)

_CATEGORY_HELP = (
    "gotcha (a trap: what breaks and how to avoid it), decision (a choice made and why), "
    "pref (how the team likes things done), context (background that explains the code), "
    "rejected (an approach tried before and rejected, and why)"
)


def _prose(text: str) -> str:
    """A description with its source line breaks undone (paragraph breaks kept)."""
    return "\n\n".join(" ".join(part.split()) for part in text.split("\n\n"))


def _enum(values: tuple[str, ...], description: str, *, optional: bool = False) -> Any:
    """A string parameter listed with its allowed values (and null when ``optional``).

    The operation checks the value itself, so a wrong one gets a message naming the argument
    and the choices rather than a validator's dump.
    """
    allowed: list[str | None] = [*values, None] if optional else list(values)
    return Field(description=description, json_schema_extra={"enum": allowed})


def _limit(most: int, description: str) -> Any:
    """A ``limit`` parameter with its bounds in the schema, the ones the operation checks
    (:func:`mcp_server.arguments.limit`); as for :func:`_enum`, the operation refuses a value
    outside them itself, with a message naming the argument and the range."""
    bounds = {"minimum": LIMIT_MIN, "maximum": most}
    return Field(description=f"{description} ({LIMIT_MIN} to {most}).", json_schema_extra=bounds)


Id = Annotated[str, Field(description="A memory id (8 hex digits, or a unique prefix of 4+).")]
Files = Annotated[
    list[str],
    Field(
        description="Files the memory is about: paths relative to the repository root (or "
        "absolute paths inside it). Use [] for knowledge about the whole repository."
    ),
]
Summary = Annotated[
    str,
    Field(description="The knowledge in one line (no newlines): what to know, not a title."),
]
Details = Annotated[
    str | None,
    Field(description="Optional longer explanation: the why, an example, the fix."),
]
AllowMissing = Annotated[
    bool,
    Field(
        description="Name a file the repository has neither in its files nor in its history "
        "(a file still to come); without it such a file is refused as a probable typo."
    ),
]

RECALL = f"""Recall the memories that matter for what you are about to do.

Call it before working on files (give their paths) or when starting a task (give the task as
prompt); memories are ranked by the files first (direct, co-changing, imported-by), then by the
text. Each result has an id, a one-line summary and a receipt saying why it surfaced (e.g.
"via file, text, sem 0.58" or "via co-change with src/auth.ts"), and its author. Summaries
only, on one line and capped (summary_truncated / summary_cleaned say when one was shortened or
had control characters taken out): call memory_get(id) for the details of one you will act on,
and for its text as written. A credential written into a memory's file is masked, here and by
memory_get (secret_masked, with a note naming the file). Returns at most {RECALL_LIMIT} unless a
larger limit is given; an empty list means nothing relevant is known. Where the user keeps
other authors' memories out of prompts, those are left out too (held_back counts them). A
result anchored to symbols the code no longer defines lists them in anchors_gone: check the
memory still holds before following it (memory_get names the closest names their files
define now)."""

GET = """Fetch one memory whole: details, files, links (supersedes / superseded_by), author,
usage counters and the path of its file (a credential in its text masked: secret_masked, with
a note). anchor_states says where each symbol it is anchored to is now: current, changed (its
code edited since), relocated (to another file), gone, or unknown; for a gone one whose file
now defines names spelt close to it (renamed where it is), anchor_suggestions gives them,
closest first: check them before following the memory. Reading a memory counts as acting on
it, which keeps
it ranked well; call it for memories you are going to follow. status "archived" with
archived_by "disuse" means the memory left this user's recall for going unused while its file
still says file_status "active" (a person can bring it back)."""

WRITE = f"""Write a new memory about files so a later session (yours or a person's) learns it
when touching them. Write only what the code cannot say by itself: a gotcha and its fix, a
decision and its reason, a team preference. Categories: {_CATEGORY_HELP}.
The files must be files of the repository: a folder, one of git's own files or a path the
repository never had (a typo: the refusal names the closest files) is refused; file_notes says
when a file named was renamed since. The same knowledge written twice is not duplicated: the
result then has written=false and duplicate_of naming the existing memory. Text that looks like
a credential is refused.
To correct a memory, use memory_supersede instead of writing a second one."""

SUPERSEDE = """Replace a memory that is wrong or out of date with a new one. The old memory
leaves recall but stays on record, linked to its replacement (old: superseded_by, new:
supersedes). Category, files, the pin and the symbol anchors carry over unless given (new
anchors without files keep only the files the old memory named for themselves, not those of
its old anchors), and a guard always (a person lifts it); details do not."""

PIN = """Pin a memory (or unpin it with pinned=false). Pinned memories rank higher, are shown
even when the hint budget is spent and never fade with age. Pin only what must never be
missed."""

ARCHIVE = """Archive a memory that no longer applies and has no replacement: it leaves recall
and stays on disk (a person can bring it back with `tether restore ID`). If there is a
replacement, use memory_supersede instead."""

LIST = f"""List memories, newest first, optionally only those about a file or folder, of one
category or status. Summaries only, with their author, shown as memory_recall shows them
(memory_get for details and the text as written). A memory taken out of this
user's recall for going unused lists as archived, with archived_by "disuse". Returns at most
{LIST_LIMIT} unless a larger limit is given; total says how many matched."""


def one_line(message: str) -> str:
    """An engine message as one line, as a tool error is: the lines the CLI prints one under
    the other (each refused file, then "nothing written") follow one another, each ended."""
    parts = [part.strip() for part in message.splitlines() if part.strip()]
    ended = [part if part[-1] in ".?!;:" else f"{part};" for part in parts[:-1]]
    return " ".join([*ended, *parts[-1:]])


async def _call(
    ws: Workspace,
    operation: Callable[..., dict[str, Any]],
    *,
    writes: bool = False,
    **arguments: Any,
) -> Any:
    """Run an operation on a worker thread (one that ``writes`` a store: once no other
    process holds one, see :meth:`Workspace.run_write`); a call the session cancels (the
    client's cancel, or the end of the input's wait running out: :mod:`mcp_server.in_flight`)
    stops being waited for here. Its thread does nothing more if the operation has not begun,
    else runs to its end; until then it is held as in flight (:mod:`mcp_server.calls`)."""
    call = calls.current()
    work = functools.partial(_run, ws, operation, writes, arguments, call)
    try:
        return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
    except anyio.get_cancelled_exc_class():
        if call is not None:
            call.give_up()
        raise


def _run(
    ws: Workspace,
    operation: Callable[..., dict[str, Any]],
    writes: bool,
    arguments: dict[str, Any],
    call: calls.Call | None,
) -> Any:
    """:func:`_call`'s work: engine problems become tool errors the agent can read and act
    on; a call cancelled before its operation begins does nothing."""
    if call is not None and not call.started():
        return None  # given up before it began: nobody reads an answer, nothing is done
    stopped = False
    try:
        return _answer(ws, operation, writes, arguments, call)
    except CallCancelled:  # nobody reads this answer: the cancelled request gets none
        stopped = True
        raise ToolError("the call was cancelled before it began: nothing was done") from None
    finally:
        if call is not None:
            call.thread_ended(stopped=stopped, writes=writes)


def _answer(
    ws: Workspace,
    operation: Callable[..., dict[str, Any]],
    writes: bool,
    arguments: dict[str, Any],
    call: calls.Call | None,
) -> Any:
    """:func:`_run`'s operation, its engine problems as tool errors."""
    checks = {} if call is None else {"cancelled": call.cancelled}
    try:
        answer = (ws.run_write if writes else ws.run)(operation, **checks, **arguments)
        return masked_throughout(answer)
    except TetherError as error:
        from recall.secret_masking import masked  # a refusal may quote a secret given in error

        raise ToolError(one_line(masked(str(error)))) from None
    except sqlite3.DatabaseError as error:
        raise ToolError(
            f"the memory index could not be used ({error}); run `tether reindex` in the "
            "repository and call the tool again"
        ) from None
    except OSError as error:  # a path the system refuses (too long, a loop): the agent's to fix
        where = f" {error.filename}" if error.filename else ""
        raise ToolError(
            f"a file could not be read or written ({error.strerror or error}:{where}); check the "
            "paths given and call the tool again"
        ) from None


def register(server: MCPServer, ws: Workspace) -> None:
    """Add the memory tools to ``server``, each working on ``ws``."""
    reading = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    adding = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
    settling = ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )

    @server.tool(name="memory_recall", description=_prose(RECALL), annotations=reading)
    async def memory_recall(
        prompt: Annotated[
            str | None,
            Field(description="What you are doing or asking, in words (optional if files)."),
        ] = None,
        files: Annotated[
            list[str] | None,
            Field(description="Files you are working on, relative to the repository root."),
        ] = None,
        limit: Annotated[int, _limit(RECALL_MAX, "How many memories at most")] = RECALL_LIMIT,
    ) -> dict[str, Any]:
        return await _call(ws, operations.recall, prompt=prompt, files=files, limit=limit)

    @server.tool(name="memory_get", description=_prose(GET), annotations=reading)
    async def memory_get(id: Id) -> dict[str, Any]:
        return await _call(ws, operations.get, memory_id=id)

    @server.tool(name="memory_write", description=_prose(WRITE), annotations=adding)
    async def memory_write(
        summary: Summary,
        category: Annotated[str, _enum(CATEGORIES, f"The kind of knowledge: {_CATEGORY_HELP}.")],
        files: Files,
        details: Details = None,
        pin: Annotated[
            bool, Field(description="Pin it at once (only for what must never be missed).")
        ] = False,
        scope: Annotated[
            str,
            _enum(
                operations.WRITE_SCOPES,
                "project (default: this repository's .tether/, shared through git) or "
                "global (the user's own store, for every repository).",
            ),
        ] = "project",
        anchors: Annotated[
            list[str] | None,
            Field(
                description="Symbols the memory is about, as path::name (for example "
                "src/store.py::Store.save): the memory follows them when the code moves, "
                "and tells when their code changed."
            ),
        ] = None,
        guard: Annotated[
            bool,
            Field(
                description="For a decision or gotcha that edits must not break by accident: "
                "an edit under it asks the person first."
            ),
        ] = False,
        allow_missing: AllowMissing = False,
    ) -> dict[str, Any]:
        return await _call(
            ws,
            writing.write,
            writes=True,
            summary=summary,
            category=category,
            files=files,
            details=details,
            pin=pin,
            scope=scope,
            anchors=anchors,
            guard=guard,
            allow_missing=allow_missing,
        )

    @server.tool(name="memory_supersede", description=_prose(SUPERSEDE), annotations=adding)
    async def memory_supersede(
        old_id: Annotated[str, Field(description="The id of the memory being replaced.")],
        summary: Summary,
        category: Annotated[
            str | None,
            _enum(CATEGORIES, "The new category (default: the old one's).", optional=True),
        ] = None,
        files: Annotated[
            list[str] | None,
            Field(
                description="The new files, relative to the repository root (default: the "
                "old one's)."
            ),
        ] = None,
        details: Details = None,
        pin: Annotated[
            bool | None,
            Field(description="Pin the new memory (default: as the old one was; false unpins)."),
        ] = None,
        anchors: Annotated[
            list[str] | None,
            Field(
                description="The new memory's symbols, as path::name (default: the old one's; "
                "[] for none)."
            ),
        ] = None,
        allow_missing: AllowMissing = False,
    ) -> dict[str, Any]:
        return await _call(
            ws,
            writing.supersede,
            writes=True,
            old_id=old_id,
            summary=summary,
            category=category,
            files=files,
            details=details,
            pin=pin,
            anchors=anchors,
            allow_missing=allow_missing,
        )

    @server.tool(name="memory_pin", description=_prose(PIN), annotations=settling)
    async def memory_pin(
        id: Id,
        pinned: Annotated[bool, Field(description="true to pin (default), false to unpin.")] = True,
    ) -> dict[str, Any]:
        return await _call(ws, writing.pin, writes=True, memory_id=id, pinned=pinned)

    @server.tool(name="memory_archive", description=_prose(ARCHIVE), annotations=settling)
    async def memory_archive(id: Id) -> dict[str, Any]:
        return await _call(ws, writing.archive, writes=True, memory_id=id)

    @server.tool(name="memory_list", description=_prose(LIST), annotations=reading)
    async def memory_list(
        file: Annotated[
            str | None,
            Field(description="Only memories naming this file, or any file under this folder."),
        ] = None,
        category: Annotated[
            str | None, _enum(CATEGORIES, "Only this category.", optional=True)
        ] = None,
        status: Annotated[
            str,
            _enum((*STATUSES, "all"), "Only this status (default active; all for every one)."),
        ] = "active",
        scope: Annotated[
            str,
            _enum(operations.READ_SCOPES, "project, global or all (default, project first)."),
        ] = "all",
        limit: Annotated[int, _limit(LIST_MAX, "How many at most")] = LIST_LIMIT,
    ) -> dict[str, Any]:
        return await _call(
            ws,
            operations.list_memories,
            file=file,
            category=category,
            status=status,
            scope=scope,
            limit=limit,
        )

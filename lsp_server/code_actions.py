"""Quick fixes on a memory diagnostic (details, pin or unpin, supersede, mark followed, archive)
and two actions anywhere in a file (remember something about it, show its memories).

Each action carries a command; the server does the work when the client runs it, so every
editor gets the same behaviour. Arguments are one object with camelCase keys.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from lsp_server import capabilities, diagnostics, watching
from lsp_server.documents import DocState, Shown, current_text, resolve
from lsp_server.hook_guards import UnloadedGuard
from lsp_server.positions import overlaps
from lsp_server.symbol_at import symbol_at
from recall.locations import GLOBAL
from recall.model import GUARD_CATEGORIES
from recall.named_files import is_git_own

if TYPE_CHECKING:
    from lsp_server.server import TetherServer

FILE_KIND = "source.tether"
QUICKFIX = types.CodeActionKind.QuickFix


def _action(
    title: str, command: str, args: dict[str, Any], kind: str, shown: Shown | None = None
) -> types.CodeAction:
    return types.CodeAction(
        title=title,
        kind=kind,
        diagnostics=[shown.diagnostic] if shown is not None else None,
        command=types.Command(title=title, command=command, arguments=[args]),
    )


def memory_actions(shown: Shown) -> list[types.CodeAction]:
    """The quick fixes of one memory diagnostic: none for a guard read from a memory file its
    store cannot load (every command on it fails until the file is fixed, as its diagnostic
    says, naming the file)."""
    if isinstance(shown.hit, UnloadedGuard):
        return []
    memory = shown.hit.memory
    ref = {"memoryId": memory.id, "fromHint": True}
    name = f"{memory.category} {memory.id}"
    found = [
        _action(
            f"Tether: show details of {name}",
            "tether.show",
            {**ref, "display": True},
            QUICKFIX,
            shown,
        )
    ]
    if memory.pinned:
        found.append(_action(f"Tether: unpin {name}", "tether.unpin", ref, QUICKFIX, shown))
    else:
        found.append(_action(f"Tether: pin {name}", "tether.pin", ref, QUICKFIX, shown))
    if memory.guard:
        found.append(_action(f"Tether: unguard {name}", "tether.unguard", ref, QUICKFIX, shown))
    elif memory.category in GUARD_CATEGORIES and shown.hit.scope != GLOBAL:
        found.append(_action(f"Tether: guard {name}", "tether.guard", ref, QUICKFIX, shown))
    found += [
        _action(f"Tether: supersede {name}…", "tether.supersede", ref, QUICKFIX, shown),
        _action(f"Tether: mark {name} as followed", "tether.markFollowed", ref, QUICKFIX, shown),
        _action(f"Tether: archive {name}", "tether.archive", ref, QUICKFIX, shown),
    ]
    return found


def file_actions(doc: DocState, symbol: str | None = None) -> list[types.CodeAction]:
    """The actions available anywhere in a code file (and on the definition under the cursor,
    when there is one: a memory anchored to that symbol). Remembering is offered only in a
    repository: a project memory needs one, and a global memory is about you, not a file.

    Like the quick fixes, they carry ``fromHint``: the server offered them, so running one is
    not asking for memory unprompted and leaves the session's hints on (hint rule 1 is for
    commands a person or an agent runs on their own)."""
    here = {"uri": doc.uri, "fromHint": True}
    found = []
    # Outside a repository a memory has no store to go in; git's own files (a commit message
    # being written) are never what a memory is about.
    if doc.root.project is not None and not is_git_own(doc.rel):
        if symbol is not None:
            anchored = {**here, "anchors": [f"{doc.rel}::{symbol}"]}
            title = f"Tether: remember something about {symbol}…"
            found.append(_action(title, "tether.remember", anchored, FILE_KIND))
        title = "Tether: remember something about this file…"
        found.append(_action(title, "tether.remember", here, FILE_KIND))
    return [
        *found,
        _action(
            "Tether: show memories for this file",
            "tether.recall",
            {**here, "display": True},
            FILE_KIND,
        ),
    ]


def _text(kind: object) -> str:
    return str(kind.value) if isinstance(kind, enum.Enum) else str(kind)


def _wanted(kind: str, only: list[str] | None) -> bool:
    if not only:
        return True
    return any(kind == o or kind.startswith(f"{o}.") for o in only)


def code_actions(
    ls: TetherServer, params: types.CodeActionParams
) -> list[types.CodeAction | types.Command] | None:
    """Actions for the memory diagnostics touching the range, then the file-wide ones."""
    watching.before_request(ls)
    doc = resolve(ls, params.text_document.uri)
    if doc is None or doc.is_memory:
        return None
    codes = {str(d.code) for d in params.context.diagnostics if d.source == diagnostics.SOURCE}
    found: list[types.CodeAction] = []
    for shown in doc.shown:
        if overlaps(shown.range, params.range) or shown.hit.memory.id in codes:
            found += memory_actions(shown)
    text = current_text(ls, doc)
    symbol = None
    if text is not None and len(text) <= doc.root.settings.max_document_chars:
        symbol = symbol_at(doc.rel, text, params.range.start.line)
    found += file_actions(doc, symbol)
    only = [_text(k) for k in params.context.only] if params.context.only else None
    found = [a for a in found if _wanted(_text(a.kind), only)]
    if not capabilities.code_action_literals(ls.client_capabilities):
        return [a.command for a in found if a.command is not None]
    return list(found)


def register(server: TetherServer) -> None:
    """Add the code action feature to the server."""
    server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[QUICKFIX, FILE_KIND]),
    )(code_actions)

"""What the commands share: finding the root and the memory they act on, counting the action,
the hint policy's rule 1, and publishing again after a change."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsp_server import diagnostics
from lsp_server.command_args import flag, text
from lsp_server.documents import DocState, resolve
from lsp_server.roots import Root
from recall.errors import BadInput, NotFound
from recall.model import Memory
from recall.policy.hints import is_self_serve
from recall.store import MemoryStore

if TYPE_CHECKING:
    from lsp_server.server import TetherServer


def root_and_doc(ls: TetherServer, obj: dict[str, Any]) -> tuple[Root, DocState | None]:
    """The root a command works in: the one of its ``uri``, else the first workspace root."""
    uri = text(obj, "uri")
    if uri is not None:
        doc = resolve(ls, uri)
        if doc is None:
            raise BadInput(f"{uri} is not a file in this workspace")
        return doc.root, doc
    root = next(iter(ls.roots), None)
    if root is None:
        raise NotFound("no workspace folder is open; open a folder or pass a file uri")
    return root, None


def code_root_and_doc(
    ls: TetherServer, obj: dict[str, Any], instead: str, *, about: bool = True
) -> tuple[Root, DocState | None]:
    """As :func:`root_and_doc`, for a command about a code file: a ``uri`` of a memory file or
    a draft is refused while it is what the command would be ``about`` (False: the uri only
    chooses the root), naming the argument and saying what to give ``instead``."""
    root, doc = root_and_doc(ls, obj)
    if about and doc is not None and doc.is_memory:
        raise BadInput(
            f"'uri' {text(obj, 'uri')} is a memory file (or a draft of one), not a code file: "
            f"give the uri of a file of the repository, or {instead}"
        )
    return root, doc


def find(ls: TetherServer, obj: dict[str, Any]) -> tuple[Root, MemoryStore, Memory]:
    """The memory named by ``memoryId`` (near the ``uri``'s root first when one is given)."""
    ref = text(obj, "memoryId", required=True)
    assert ref is not None
    prefer = None
    if text(obj, "uri") is not None:
        prefer, _ = root_and_doc(ls, obj)
    return ls.roots.find(ref, prefer)


def changed(ls: TetherServer, root: Root) -> None:
    """A memory changed: forget cached recall and publish again."""
    root.bump()
    diagnostics.republish(ls, root)


def self_serve(ls: TetherServer, root: Root, command: str, obj: dict[str, Any]) -> None:
    """Apply hint rule 1: a memory command run unprompted ends proactive hints. One the
    server offered (a quick fix on a hint, an action on a file) carries ``fromHint`` and
    does not."""
    if is_self_serve(command, from_hint=flag(obj, "fromHint")) and root.hints.mark_self_serve():
        diagnostics.republish(ls, root)


def acted(root: Root, store: MemoryStore, memory_id: str) -> None:
    """Count an action on a memory."""
    if store.exists:
        root.usage.acted(store, memory_id)
    root.acted_this_turn.add(memory_id)

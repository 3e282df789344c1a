"""What ``memory_supersede`` refuses of a guarded memory: an agent cannot lift or narrow a
guard (a person does, with ``tether unguard``)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from recall.anchors.guards import Replacement, narrowed_now
from recall.errors import BadInput
from recall.locations import GLOBAL
from recall.model import GUARD_CATEGORIES

if TYPE_CHECKING:
    from recall.model import Memory
    from recall.ranking.engine import RepoSignals
    from recall.store import MemoryStore

log = logging.getLogger("mcp_server")


def keeps_the_guard(
    store: MemoryStore, old: Memory, draft: Memory, *, opened: RepoSignals | None = None
) -> None:
    """Refuse a supersede that would lift or narrow ``old``'s guard (an agent cannot: a person
    does, with ``tether unguard``): a category that takes none, files leaving a guarded one
    out, or anchors covering less of its code, weighed as ``tether supersede`` weighs them
    (:func:`recall.anchors.guards.narrowed_now`: a file git shows renamed since is kept
    guarded by its new name, and named as it is now; a guarded symbol, by where its
    definition moved). A guard covering as much or more (a
    symbol guard widened to the whole file) is kept. A guard in the global store, which
    protects nothing and cannot be carried, is a person's to take off. The repository's
    signals are read as ``opened`` when the call has opened them already (carrying anchors),
    rather than opened again."""
    if not old.guard:
        return
    lifted = keep = None
    left_files: list[str] = []
    left_code: list[str] = []
    if store.scope == GLOBAL:
        lifted = "in the global store, where a guard protects no file and cannot be carried"
        keep = "leave it as it is"
    elif draft.category not in GUARD_CATEGORIES:
        lifted, keep = f"a {draft.category} takes no guard", "keep its category"
    else:
        left_files, left_code = narrowed_now(
            Replacement(store, old, draft.files, draft.anchors, notice=log.info, opened=opened)
        )
    if left_files:
        lifted = f"the new files leave out {', '.join(left_files)}, which it guards"
        root = store.repo_root
        gone = root is not None and any(not (root / path).exists() for path in old.files)
        keep = "keep its files" + (
            " (with allow_missing: true for one no longer in the working tree)" if gone else ""
        )
    elif left_code:
        lifted = f"the anchors given would guard less of its code ({'; '.join(left_code)})"
        keep = "give anchors that cover all it guards, or leave anchors out to keep its own"
    if lifted is not None:
        raise BadInput(
            f"memory {old.id} is guarded and {lifted}: an agent cannot lift or narrow a guard; "
            f"{keep}, or ask a person to run `tether unguard {old.id}` first"
        )

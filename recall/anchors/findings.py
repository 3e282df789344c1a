"""What ``tether check`` reports: one finding per memory and place, and what fixes a failure."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from recall.agent_text import marked
from recall.anchors.suggest import close_symbols, now_defines, suggestion_field
from recall.anchors.symbols import SymbolAnchor, normalize_name
from recall.model import Memory

REVIEW = "review"
FAIL = "fail"
GUARDED = "under a guarded memory"

Suggested = tuple[tuple[str, tuple[str, ...]], ...]
"""Anchors with the names their files define spelt closest to them, closest first."""


@dataclass(frozen=True)
class Finding:
    """One memory the change affects, where, and why."""

    level: str
    memory: Memory
    path: str
    line: int
    reason: str
    fix: str = ""
    """What ends a failure, said after the reason (a review has none)."""
    also: tuple[tuple[str, int, str], ...] = ()
    """The memory's other failures in the same change, as (path, line, reason), when its
    failures are said as one (see :func:`one_failure_per_memory`)."""
    close: Suggested = ()
    """For an anchored symbol the change deletes from a file that now defines names spelt
    close to it (renamed in place), the anchor and those names, closest first."""

    @property
    def said(self) -> str:
        """The reasons, then what to do: the text a person reads."""
        reasons = [self.reason]
        reasons += [r if p == self.path else f"{r} ({p}:{n})" for p, n, r in self.also]
        return "; and ".join(reasons) + self.fix

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``reason``: all that is said; ``reasons``: each place and why), with
        ``secret_masked`` when the memory's text is a copy masked for agents and scripts
        (:func:`recall.agent_text.for_agent`), and ``anchor_suggestions`` when some anchored
        name the change deletes has names spelt close to it in its file now."""
        places = [(self.path, self.line, self.reason), *self.also]
        data = {
            "level": self.level,
            "id": self.memory.id,
            "category": self.memory.category,
            "summary": self.memory.summary,
            "pinned": self.memory.pinned,
            "guard": self.memory.guard,
            "path": self.path,
            "line": self.line,
            "reason": self.said,
            "reasons": [{"path": p, "line": n, "reason": r} for p, n, r in places],
            **suggestion_field(self.close),
        }
        return marked(data, self.memory)


def deleted_reason(
    anchor: SymbolAnchor, old: str, here: str | None, names: Iterable[str]
) -> tuple[str, Suggested]:
    """Why ``anchor``, defined in ``old`` at the base, is reported when the change deletes it,
    naming the names its file now (``here``, None when deleted too) defines spelt closest to it
    (``names``: those it defines: the name renamed in place), and those as a finding's
    ``close``."""
    close = close_symbols(normalize_name(anchor.name), names) if here else []
    said = f"the change deletes symbol {anchor.name}, anchored at {old}{now_defines(here, close)}"
    return said, ((anchor.text, tuple(close)),) if close else ()


def one_failure_per_memory(findings: list[Finding]) -> list[Finding]:
    """A memory's failures said as one (at its first place, with every reason on it and each
    different fix once): a memory the change fails counts once, however many of its files
    and symbols the change touched."""
    failures = [f for f in findings if f.level == FAIL]
    if len(failures) < 2:
        return findings
    first = failures[0]
    fixes = list(dict.fromkeys(f.fix for f in failures))
    fixes = [f for f in fixes if not any(_says_all_of(o, f) for o in fixes)]
    merged = Finding(
        FAIL,
        first.memory,
        first.path,
        first.line,
        first.reason,
        "".join(fixes),
        tuple((f.path, f.line, f.reason) for f in failures[1:]),
        tuple(dict.fromkeys(pair for f in failures for pair in f.close)),
    )
    return [merged if f is first else f for f in findings if f.level != FAIL or f is first]


_ASIDE = re.compile(r" \([^()]*\)")
"""A bracketed aside in a fix (`` (or `tether repoint …` after the move)``)."""


def _says_all_of(longer: str, shorter: str) -> bool:
    """Whether the fix ``longer`` says everything ``shorter`` does, and more: the same words
    with more after them, or with a bracketed aside more."""
    if longer == shorter:
        return False
    return longer.startswith(shorter) or _ASIDE.sub("", longer) == shorter


def guard_fix(
    memory: Memory,
    moved: bool = False,
    renamed: tuple[str, str] | None = None,
    edited: bool = True,
    gone: str | None = None,
) -> str:
    """What to do about a guard failure: confirm the memory (a moved symbol may be repointed
    instead). For a file the memory names by a name git's history shows renamed (``renamed``:
    that name and the file's name now), confirming leaves the memory on the old name: it is
    repointed, and confirmed too when the change ``edited`` the file's code. For an anchored
    symbol the change deletes (``gone``: the anchor's text), a confirm ends the failure but
    leaves the memory anchored to nothing, so tying it to the code that holds it now comes
    first."""
    if gone is not None:
        return (
            f", {GUARDED}; if it holds for other code now, `tether supersede {memory.id} SUMMARY "
            f"--anchor PATH::NAME` ties it there; if it holds as it is, `tether confirm "
            f"{memory.id}` (its anchor {gone} then names nothing); if it holds no more, `tether "
            f"archive {memory.id}`; and commit the memory with the change"
        )
    if renamed is not None:
        old, new = renamed
        step = f"`tether repoint {memory.id} --apply` (git's history shows {old} renamed to {new})"
        if edited:
            step = f"after checking it still holds, {step} and `tether confirm {memory.id}`"
        return f", {GUARDED}; {step}, and commit the memory with the change"
    also = f" (or `tether repoint {memory.id} --apply` after the move)" if moved else ""
    return (
        f", {GUARDED}; after checking it still holds, `tether confirm {memory.id}`{also} and "
        "commit the memory with the change"
    )


def pinned_and_gone(memory: Memory, names: str = "-f PATH") -> str:
    """What ends the failure of a pinned memory whose file or symbol the change deletes: no
    rename leads anywhere for ``repoint`` to follow, so it is superseded by one naming what
    holds the knowledge now (``names``: the option that names it; a memory with symbol
    anchors names new ones, since a supersede without them keeps the old), or unpinned. The
    command runs as printed once its placeholders are filled (the category is kept)."""
    memory_id = memory.id
    if memory.anchors and names == "-f PATH":
        names = "--anchor PATH::NAME"
    return (
        f"; the memory is pinned: supersede it with one that names where this lives now "
        f"(`tether supersede {memory_id} SUMMARY {names}`), or unpin it (`tether unpin "
        f"{memory_id}`) if it no longer holds"
    )

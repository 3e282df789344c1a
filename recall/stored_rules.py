"""The rules a write enforces that a memory file written by hand may break, and the store loads
all the same: control characters in the summary, details, author or anchor, and a guard that
fits no memory of its kind (a pref's, one naming nothing to cover).

One list for the three places that must agree on them: ``tether doctor`` names each with its
file and line; ``tether export`` marks the line of such a memory ``"as_stored": true`` and says
so on stderr; ``tether import`` writes a line so marked back as it is, with a note for each
rule it breaks, where it refuses the same line unmarked. A round trip thus loses nothing and
never rewrites what the person wrote.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from recall.errors import BadInput
from recall.model import Memory

if TYPE_CHECKING:
    from recall.store import MemoryStore

AS_STORED_KEY: Final = "as_stored"
"""The key of an import line asking for its memory as its store held it, past these rules."""

WRITE_REFUSES: Final = "the store loads it as written, but a write refuses it"
"""Said after each such rule by ``tether doctor``: why it is reported though nothing failed."""


@dataclass(frozen=True)
class Broken:
    """One rule a memory breaks: the key (or ``summary``, ``details``) it is about, and what
    is wrong with it and what to do, as said of the memory's file."""

    key: str
    problem: str
    fix: str
    line: int = 1
    """The line of the details it is on (their first line for any other key)."""


def broken_rules(memory: Memory, *, scope: str) -> list[Broken]:
    """Each rule of a write that ``memory``, of the ``scope`` store, breaks."""
    from recall.anchors.guards import check_guard
    from recall.display import visible
    from recall.text_checks import SUMMARY_CONTROLS_KEPT, details_control, unseen_described

    found = []
    said = unseen_described(memory.summary, SUMMARY_CONTROLS_KEPT)
    if said:
        found.append(
            Broken("summary", f"its summary holds control characters ({said})", "remove them")
        )
    control = details_control(memory.details)
    if control is not None:
        char, line, column = control
        said = f"{visible(char)} at character {column}"
        found.append(
            Broken("details", f"its details hold a control character ({said})", "remove it", line)
        )
    for key, text in (("author", memory.author), ("anchor", memory.anchor or "")):
        said = unseen_described(text)
        if said:
            found.append(Broken(key, f"its {key} holds control characters ({said})", "remove them"))
    try:
        check_guard(
            memory.guard,
            memory.category,
            "the guard line",
            covers=bool(memory.files or memory.anchors),
            scope=scope,
            scope_option="its scope",
        )
    except BadInput as error:
        problem, fix = str(error).rsplit("; ", 1)
        found.append(Broken("guard", problem, fix))
    return found


def doctor_lines(store: MemoryStore) -> list[tuple[Memory, Path, int, Broken]]:
    """Each rule a memory of ``store`` (deleted ones aside) breaks, with its file and line, for
    ``tether doctor``. A guard in the global store is left to its own finding (it protects
    nothing there, whatever its memory), so the guard is checked as in the project store."""
    from recall.frontmatter import line_of
    from recall.locations import PROJECT

    found = []
    for memory in store.list(status=None):
        if memory.status == "deleted":
            continue
        broken = broken_rules(memory, scope=PROJECT)
        if not broken:
            continue
        path = store.path_of(memory.id)
        try:
            text = path.read_text(encoding="utf-8-sig", errors="replace")
        except OSError:
            text = ""
        for rule in broken:
            found.append((memory, path, line_of(text, rule.key) + rule.line - 1, rule))
    return found


def said_of(broken: list[Broken]) -> str:
    """The rules broken, in one sentence."""
    return "; ".join(rule.problem for rule in broken)


def as_stored_notes(draft: Memory, scope: str) -> list[str]:
    """The note of an import line marked ``"as_stored": true`` whose memory, for the ``scope``
    store, breaks rules of a write: written all the same, each named (none when it breaks
    none)."""
    broken = broken_rules(draft, scope=scope)
    if not broken:
        return []
    return [
        f'written as its store held it, as its "{AS_STORED_KEY}": true asks, though a write '
        f"refuses it: {said_of(broken)}; `tether doctor` names each with its line"
    ]


def export_note(broken: list[Broken], path: Path) -> str:
    """The export's warning for a memory whose line it marks ``"as_stored": true``."""
    return (
        f'{said_of(broken)}, which a write refuses; its line says "{AS_STORED_KEY}": true, so '
        f"that an import writes it back as it is: fix it in {path} (`tether doctor` names each "
        "with its line)"
    )

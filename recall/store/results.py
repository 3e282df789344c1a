"""What a write reports back, and a memory file that could not be loaded."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class WriteResult:
    """The outcome of a write: the memory's id, and the id it duplicated when deduped."""

    id: str
    scope: str
    path: Path
    duplicate_of: str | None = None
    duplicate_status: str | None = None
    #: Files the write named that the existing memory does not (dedupe ignores files, so the
    #: caller is told what was not recorded rather than having it dropped without a word).
    files_not_on_it: tuple[str, ...] = ()
    #: Symbol anchors (``path::name``) the write named that the existing memory lacks.
    anchors_not_on_it: tuple[str, ...] = ()
    #: Marks the write asked for that the existing memory lacks (``pinned``, ``guard``).
    marks_not_on_it: tuple[str, ...] = ()

    @property
    def not_on_it(self) -> bool:
        """Whether the write named anything the existing memory lacks (a duplicate only)."""
        return bool(self.files_not_on_it or self.anchors_not_on_it or self.marks_not_on_it)

    def note(self) -> str:
        """What to tell the writer of a duplicate naming more than the existing memory."""
        return not_on_it_note(
            self.id,
            self.files_not_on_it,
            self.path,
            self.anchors_not_on_it,
            self.marks_not_on_it,
            self.duplicate_status,
        )

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form (``duplicate_of`` only when dedupe returned an existing memory)."""
        data: dict[str, object] = {"id": self.id, "scope": self.scope, "path": str(self.path)}
        if self.duplicate_of:
            data["duplicate_of"] = self.duplicate_of
            data["duplicate_status"] = self.duplicate_status
            if self.files_not_on_it:
                data["files_not_on_it"] = list(self.files_not_on_it)
            if self.anchors_not_on_it:
                data["anchors_not_on_it"] = list(self.anchors_not_on_it)
            if self.marks_not_on_it:
                data["marks_not_on_it"] = list(self.marks_not_on_it)
            if self.not_on_it:
                data["note"] = self.note()
        return data


def not_on_it_note(
    memory_id: str,
    files: tuple[str, ...] | list[str],
    path: Path,
    anchors: tuple[str, ...] | list[str] = (),
    marks: tuple[str, ...] | list[str] = (),
    status: str | None = None,
) -> str:
    """What to tell a writer whose text already exists on a memory that lacks some of the
    files, symbol anchors or marks (``pinned``, ``guard``) the write named: none of them was
    recorded, and this says how to add each."""
    lacks: list[str] = []
    fields: list[str] = []
    if files:
        lacks.append(f"does not name {', '.join(files)}")
        fields.append(f"{_them(files)} under `files:`")
    if anchors:
        lacks.append(f"is not anchored to {', '.join(anchors)}")
        fields.append(f"{_them(anchors)} under `anchors:`")
    if marks:
        lacks.append("is not " + " or ".join(_MARK_WORDS[mark][0] for mark in marks))
    steps = [f"add {' and '.join(fields)} in {path}"] if fields else []
    steps += [f"`tether {_MARK_WORDS[mark][1]} {memory_id}`" for mark in marks]
    first = _FIRST.get(status or "", "").format(memory_id=memory_id)
    return (
        f"same knowledge as {memory_id}, which {'; '.join(lacks)}; nothing written — to have "
        f"it on that memory too: {first}{'; '.join(steps)}"
    )


_FIRST = {
    "superseded": "it is superseded, so first `tether restore {memory_id}`, then ",
    "pending": "it awaits review, so first `tether pending confirm {memory_id}`, then ",
}
"""What must come before changing a duplicate that is out of recall, by its status: a
superseded or pending memory cannot be pinned or guarded."""


_MARK_WORDS = {"pinned": ("pinned", "pin"), "guard": ("guarded", "guard")}
"""Each mark a write can ask for: how a memory without it is described, and the command."""


def _them(items: tuple[str, ...] | list[str]) -> str:
    return "it" if len(items) == 1 else "them"


def marks_missing(
    draft_pinned: bool, draft_guard: bool, pinned: bool, guard: bool
) -> tuple[str, ...]:
    """The marks a write asked for (``pinned``, ``guard``) that the existing memory lacks."""
    return tuple(
        mark
        for mark, wanted, present in (
            ("pinned", draft_pinned, pinned),
            ("guard", draft_guard, guard),
        )
        if wanted and not present
    )


def files_missing(wanted: tuple[str, ...], present: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The files of ``wanted`` that ``present`` lacks, in the order they were given."""
    have = set(present)
    return tuple(path for path in wanted if path not in have)


@dataclass(frozen=True)
class Problem:
    """A memory file that could not be loaded."""

    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"

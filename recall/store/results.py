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

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form (``duplicate_of`` only when dedupe returned an existing memory)."""
        data: dict[str, object] = {"id": self.id, "scope": self.scope, "path": str(self.path)}
        if self.duplicate_of:
            data["duplicate_of"] = self.duplicate_of
            data["duplicate_status"] = self.duplicate_status
            if self.files_not_on_it:
                data["files_not_on_it"] = list(self.files_not_on_it)
        return data


def not_on_it_note(memory_id: str, files: tuple[str, ...] | list[str], path: Path) -> str:
    """What to tell a writer whose text already exists on a memory naming fewer files."""
    them = "it" if len(files) == 1 else "them"
    return (
        f"same knowledge as {memory_id}, which does not name {', '.join(files)}; nothing "
        f"written — to tie the memory to {them} too, add {them} under `files:` in {path}"
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

"""What a recall is asked: the touched files (and how), an optional prompt, how many to return."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

from recall.errors import BadInput

TouchKind = Literal["open", "save", "edit"]
"""How a file was touched, weakest first: only opened, saved, edited."""

TOUCH_KINDS: tuple[str, ...] = get_args(TouchKind)
"""The touch kinds, weakest first (a stronger touch of the same file replaces a weaker one)."""


@dataclass(frozen=True)
class Touch:
    """One touched file, repo-relative, and how it was touched."""

    path: str
    kind: str = "edit"

    def __post_init__(self) -> None:
        if self.kind not in TOUCH_KINDS:
            raise BadInput(f"touch kind {self.kind!r} is not one of {', '.join(TOUCH_KINDS)}")


@dataclass(frozen=True)
class RecallQuery:
    """A recall request."""

    touches: tuple[Touch, ...] = ()
    prompt: str | None = None
    limit: int = 10
    scopes: tuple[str, ...] = ("project", "global")
    extra: dict[str, object] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.limit < 1:
            raise BadInput("limit must be at least 1")

    @property
    def paths(self) -> list[str]:
        """The touched paths, in order, without repeats."""
        return list(dict.fromkeys(t.path for t in self.touches))

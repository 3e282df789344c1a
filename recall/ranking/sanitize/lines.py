"""One pass over the lines of a paste, marking each kept or removed as a kind of noise."""

from __future__ import annotations

import re

from recall.ranking.sanitize.patterns import (
    BULLET,
    FAMILY_KIND,
    FENCE_CLOSE,
    FENCE_OPEN,
    HUNK,
    INDENTED,
    KIND_COMPILER,
    KIND_DIFF,
    KIND_FENCE,
    KIND_INDENTED,
    KIND_LOG,
    KIND_STACK,
    KIND_TRACEBACK,
    LOGFMT,
    NOISE,
    PY_TB_END,
    PY_TB_PARTS,
    PY_TB_START,
    RULE,
    TILDE_ONLY,
)
from recall.ranking.sanitize.prose import looks_like_prose


class _Hunk:
    """The body of one ``@@`` hunk, bounded by its header's line counts when it has them."""

    __slots__ = ("counted", "new", "old")

    def __init__(self, header: re.Match[str] | None) -> None:
        self.counted = header is not None
        old = header.group("old") if header is not None else None
        new = header.group("new") if header is not None else None
        self.old = int(old) if old is not None else 1
        self.new = int(new) if new is not None else 1

    def consume(self, line: str) -> bool:
        """Take one body line, updating the remaining counts; False if it is not hunk body."""
        first = line[:1]
        if first not in ("", " ", "+", "-", "\\"):
            return False
        if not self.counted:
            return first != ""
        if first in ("", " "):
            self.old -= 1
            self.new -= 1
        elif first == "-":
            self.old -= 1
        elif first == "+":
            self.new -= 1
        return True

    @property
    def done(self) -> bool:
        """True once a counted hunk has used up both its old and new line counts."""
        return self.counted and self.old <= 0 and self.new <= 0


class Classifier:
    """Single pass over the lines of a paste, marking each one kept or removed.

    The classifier is stateful because fences, Python tracebacks and diff hunks span lines:
    the line after ``File "x.py", line 3`` is source even when unindented, and a hunk body is
    recognised by the counts in its ``@@`` header rather than by its first character alone.
    """

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.kept: list[bool] = [False] * len(lines)
        self.removed: list[str] = []
        self._pm = [bool(line) and line[0] in "+-" for line in lines]

    def _drop(self, kind: str) -> str:
        """Record that a line of ``kind`` was removed and return the kind."""
        if kind not in self.removed:
            self.removed.append(kind)
        return kind

    def run(self) -> None:
        """Classify every line once, left to right."""
        fence: tuple[str, int] | None = None
        in_traceback = False
        expect_source = False
        hunk: _Hunk | None = None
        in_diff = False
        last_kind: str | None = None
        for i, line in enumerate(self.lines):
            if fence is not None:
                closing = FENCE_CLOSE.match(line)
                if closing:
                    run = closing.group("run")
                    if run[0] == fence[0] and len(run) >= fence[1]:
                        fence = None
                continue
            if hunk is not None:
                if hunk.consume(line):
                    last_kind = self._drop(KIND_DIFF)
                    if hunk.done:
                        hunk = None
                    continue
                hunk = None
            stripped = line.strip()
            if not stripped:
                expect_source = False
                continue
            opening = FENCE_OPEN.match(line)
            if opening and not self._underline_not_fence(line, last_kind, opening):
                run = opening.group("run")
                if run[0] == "~" or "`" not in opening.group("info"):
                    fence = (run[0], len(run))
                    last_kind = self._drop(KIND_FENCE)
                    continue
            if in_traceback or expect_source:
                if expect_source or line[0] in " \t" or PY_TB_PARTS.match(line):
                    expect_source = bool(PY_TB_PARTS.match(line)) and "File" in line
                    last_kind = self._drop(KIND_TRACEBACK)
                    continue
                in_traceback = False
                if PY_TB_END.match(line):
                    last_kind = self._drop(KIND_TRACEBACK)
                    continue
            if PY_TB_START.match(line):
                in_traceback = True
                last_kind = self._drop(KIND_TRACEBACK)
                continue
            if PY_TB_PARTS.match(line):
                expect_source = "File" in line
                last_kind = self._drop(KIND_TRACEBACK)
                continue
            header = HUNK.match(line)
            if header or line.startswith("@@ "):
                hunk = _Hunk(header)
                in_diff = True
                last_kind = self._drop(KIND_DIFF)
                continue
            kind = self._line_kind(i, line, stripped, in_diff, last_kind)
            if kind is None:
                self.kept[i] = True
                if in_diff:
                    in_diff = not looks_like_prose(stripped)
            else:
                in_diff = in_diff or kind == KIND_DIFF
                last_kind = self._drop(kind)

    @staticmethod
    def _underline_not_fence(line: str, last_kind: str | None, opening: re.Match[str]) -> bool:
        """True for a ``~~~~`` line underlining a compiler excerpt, not opening a fence."""
        return (
            opening.group("run")[0] == "~"
            and last_kind == KIND_COMPILER
            and TILDE_ONLY.match(line) is not None
        )

    def _line_kind(
        self, i: int, line: str, stripped: str, in_diff: bool, last_kind: str | None
    ) -> str | None:
        """Kind of noise a stand-alone line is, or None when it should be kept."""
        if self._pm[i] and not BULLET.match(line) and not RULE.match(line):
            neighbour = (i > 0 and self._pm[i - 1]) or (i + 1 < len(self._pm) and self._pm[i + 1])
            if in_diff or neighbour:
                return KIND_DIFF
        noise = NOISE.match(line)
        family = noise.lastgroup if noise is not None else None
        if family != "log" and "level=" in line and LOGFMT.search(line):
            return KIND_LOG
        if family == "underline":
            return last_kind if last_kind is not None else KIND_STACK
        if family is not None:
            return FAMILY_KIND[family]
        if INDENTED.match(line) and not looks_like_prose(stripped):
            return KIND_INDENTED
        return None

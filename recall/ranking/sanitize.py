"""Turn a pasted prompt into the short query the text channels see.

Agents and people paste whole stack traces, compiler dumps and diffs with the actual ask on
the last line. Text retrieval over such a paste matches noise (frame paths, timestamps, hex
addresses) instead of the question, so recall reads only a cleaned query:

1. drop fenced code blocks (``` and ~~~, unterminated ones to the end of the text);
2. drop lines that are obviously machine output: Python tracebacks and pytest reports, JS /
   Java / Go / Rust stack frames and panics, compiler diagnostics (tsc, rustc, gcc-style),
   timestamped or levelled log lines, unified diffs, indented code;
3. keep the last question sentence, else the last prose-looking line, else the remaining
   text when it is short, else nothing.

Every step is a single pass over the lines with patterns that cannot backtrack
quadratically, so a megabyte paste costs milliseconds, and no input raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final, Literal

Strategy = Literal["question", "prose-line", "whole", "empty"]

#: Longest query handed to the text channels; longer picks keep their tail (where asks end).
QUERY_MAX_CHARS: Final = 500
#: Remaining text at most this long is used whole when no question or prose line exists.
WHOLE_MAX_CHARS: Final = 240

KIND_FENCE: Final = "code fence"
KIND_TRACEBACK: Final = "traceback"
KIND_TEST_OUTPUT: Final = "test output"
KIND_STACK: Final = "stack trace"
KIND_COMPILER: Final = "compiler errors"
KIND_LOG: Final = "log lines"
KIND_DIFF: Final = "diff"
KIND_INDENTED: Final = "indented code"


@dataclass(frozen=True, slots=True)
class SanitizedPrompt:
    """The outcome of sanitizing one prompt.

    ``query`` is what the text channels search for (may be empty), ``removed`` lists the
    kinds of noise that were dropped in order of first appearance, and ``strategy`` says
    which rule picked the query.
    """

    query: str
    removed: list[str] = field(default_factory=list)
    strategy: Strategy = "empty"


def _alternatives(*patterns: str) -> str:
    """Join alternatives into one pattern meant for ``match`` at the start of a line."""
    return "|".join(f"(?:{p})" for p in patterns)


def _compile(*patterns: str) -> re.Pattern[str]:
    """:func:`_alternatives`, compiled."""
    return re.compile(_alternatives(*patterns))


_FENCE_OPEN = re.compile(r" {0,3}(?P<run>`{3,}+|~{3,}+)(?P<info>.*)")
_FENCE_CLOSE = re.compile(r" {0,3}(?P<run>`{3,}+|~{3,}+)[ \t]*$")
_TILDE_ONLY = re.compile(r"[ \t]*~++[ \t]*$")

_PY_TB_START = re.compile(r"\s*+Traceback \(most recent call last\):")
_PY_TB_PARTS = _compile(
    r"\s*+During handling of the above exception, another exception occurred:",
    r"\s*+The above exception was the direct cause of the following exception:",
    r'\s*+File "[^"\n]*+", line \d+',
)
# The exception line that closes a Python traceback: ``pkg.SomeError: message`` or a bare name.
_PY_TB_END = re.compile(r"[A-Za-z_][\w.]*+(?::\s|:$|$)")

_TEST_OUTPUT = _alternatives(
    r"E {2,}+\S",
    r"> {3,}+\S",
    r"_{3,}+ .* _{3,}+\s*$",
    r"={3,}+ .* ={3,}+\s*$",
    r"(?:FAILED|PASSED|ERROR|SKIPPED|XFAIL|XPASS) \S+::",
    r"\S++ [.FEsxX]++\s++\[\s*+\d++%\]\s*$",
    r"collected \d+ items?",
)

_STACK = _alternatives(
    # JS/TS, Java and Rust-backtrace frames: ``at fn (file:12:5)``, ``at a.B.c(B.java:42)``.
    r"\s*+at\s++\S.*?(?::\d+\)?|\((?:native|Native Method|Unknown Source|<anonymous>)\)"
    r"|<anonymous>\)?)(?: \{)?\s*$",
    r"\s*+\.\.\. \d+ (?:more|common frames omitted)",
    r"\s*+(?:Caused by|Suppressed): \S",
    # Exception headlines: ``TypeError: x``, ``java.lang.IllegalStateException: x``.
    r"(?:Uncaught |Unhandled |Exception in thread \S++ )?(?:[\w$]++\.)*+[\w$]*?"
    r"(?:Error|Exception|Exit|Interrupt|Fault|Rejection)(?: ?\[[\w.-]*\])?(?::\s|:$|$)",
    # Go panics and goroutine dumps.
    r"goroutine \d+ \[[^\]\n]*\]:",
    r"(?:panic|fatal error): ",
    r"\[signal \S",
    r"created by \S",
    r"exit status \d+\s*$",
    r"\s*+\S+\.go:\d+(?: \+0x[0-9a-fA-F]+)?\s*$",
    r"[\w\-/]++(?:\.[\w\-/]++|\.\(\*?[\w\-/]++\))++(?:\[[^\]\n]*\])?\([^()\n]*\)\s*$",
    # Rust panics and backtraces.
    r"thread '[^'\n]*' panicked at",
    r"stack backtrace:",
    r"note: run with `RUST_BACKTRACE",
    r"\s*+\d++: (?:0x[0-9a-fA-F]++ - )?\S++\s*$",
    # Node's ``/app/src/server.js:42`` source pointer and version footer.
    r"\S+\.\w+:\d+(?::\d+)?\s*$",
    r"Node\.js v\d",
)

_COMPILER = _alternatives(
    # tsc: ``src/x.ts(12,5): error TS2345:`` and ``src/x.ts:12:5 - error TS2345:``.
    r"\S+\(\d+,\d+\): (?:error|warning|message) [A-Z]*\d+:",
    r"\S+:\d+:\d+ - (?:error|warning|message) [A-Z]*\d+:",
    r"(?:error|warning) [A-Z]+\d+:",
    # gcc, clang, go build, mypy, pytest locations: ``file:12:5: ...``, ``file:12: ...``.
    r"\S+?:\d+(?::\d+)?: \S",
    # rustc, cargo.
    r"(?:error|warning)(?:\[[A-Z]?\d+\])?: ",
    r"\s*+--> \S+:\d+:\d+",
    r"(?:[ \t]++\d*+|\d++)[ \t]*+\|(?:\s|$)",
    r"\s*+= (?:note|help): ",
    r"For more information about this error, try ",
    r"\s++(?:Compiling|Checking|Finished|Running) \S",
    # eslint's stylish format and totals.
    r"\s++\d++:\d++\s++(?:error|warning)\s",
    r"✖ \d+ problems?",
    # tsc --pretty code excerpts and summaries.
    r"\s*+\d++ {2,}+\S",
    r"Found \d+ errors?\b",
)

_UNDERLINE = r"\s*+[~^]++\s*$"

_LOG = _alternatives(
    r"\s*+\[?\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}",
    r"\s*+\[?\d{4}/\d{2}/\d{2}[T ]\d{1,2}:\d{2}",
    r"\s*+\[?\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\]?\s",
    r"\s*+\[?(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|CRITICAL|SEVERE|PANIC)"
    r"\]?(?::|\s|$)",
    r"[IWEF]\d{4} \d{2}:\d{2}:\d{2}",
    r"[A-Z][a-z]{2} ++\d{1,2} \d{2}:\d{2}:\d{2} ",
    r"\s*+\[\s*+\d++\.\d++\]",
    r"\d{1,3}(?:\.\d{1,3}){3} - \S++ \[",
    r"\s*+\{\s*+\"[^\"\n]*+\"\s*+:",
    r"(?:npm|yarn|pnpm) (?:ERR!|WARN|error|warn)",
    r"\s*+\d{10,13}(?:\.\d+)?\s",
)
_LOGFMT = re.compile(r"\blevel=\"?(?:trace|debug|info|warn|warning|error|fatal|panic)\b", re.I)

_DIFF_HEADER = _alternatives(
    r"diff --(?:git|cc) ",
    r"index [0-9a-f]{7,}\.\.[0-9a-f]{7,}",
    r"(?:---|\+\+\+) \S",
    r"(?:new|deleted) file mode \d",
    r"(?:old|new) mode \d",
    r"(?:dis)?similarity index \d+%",
    r"(?:rename|copy) (?:from|to) \S",
    r"Binary files .* differ\s*$",
    r"\\ No newline at end of file",
)
_HUNK = re.compile(r"@@+ -\d+(?:,(?P<old>\d+))? \+\d+(?:,(?P<new>\d+))? @@")
# One ordered alternation instead of a call per family: the first family that matches wins.
# The families are kept as pattern text: only the alternation is ever matched, and compiling
# each family on its own too would double the cost of importing this module, which every
# prompt hook pays.
_NOISE_FAMILIES: Final = (
    ("diff", _DIFF_HEADER),
    ("underline", _UNDERLINE),
    ("test", _TEST_OUTPUT),
    ("log", _LOG),
    ("compiler", _COMPILER),
    ("stack", _STACK),
)
_NOISE = re.compile("|".join(f"(?P<{name}>{p})" for name, p in _NOISE_FAMILIES))
_FAMILY_KIND: Final = {
    "diff": KIND_DIFF,
    "test": KIND_TEST_OUTPUT,
    "log": KIND_LOG,
    "compiler": KIND_COMPILER,
    "stack": KIND_STACK,
}
_BULLET = re.compile(r"[-+] \S")
_RULE = re.compile(r"[-=*_]{2,}+\s*$")

_INDENTED = re.compile(r" {4}|\t")
_CODE_START = _compile(
    r"\s*+(?:async\s++)?(?:def|class|fn|func|function|interface|struct|enum|impl)\s++\w++\s*+[(<:{]",
    r"\s*+from\s++[\w.]++\s++import\b",
    r"\s*+import\s++[\w.]++\s*+;?\s*+$",
    r"\s*+import\s*+[{*]",
    r"\s*+import\s++\w++\s++from\s",
    r"\s*+(?:const|let|var|val)\s++\w++\s*+[=:]",
    r"\s*+#include\b",
    r"\s*+(?:return|throw|raise)\b.*[;)]\s*$",
)
_CODE_ENDINGS: Final = ("{", "}", ";", "=>", "->", "(", "[", "*/")
_SYMBOLS: Final = frozenset("{}[]<>=;|\\$#@&^%*")
_LEAD_PUNCT: Final = "(\"'`*_[<“‘"
_TRAIL_PUNCT: Final = ")\"'`*_.,;:!?]>”’"
_SENTENCE_END = re.compile(r"(?<![.!?])[.!?]++(?=\s|$)")
_QUESTION_TAIL: Final = ")\"'`*_]”’ \t"


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


def _is_word(token: str) -> bool:
    """True when a whitespace token is a natural-language word (or a plain identifier)."""
    core = token.strip(_LEAD_PUNCT).rstrip(_TRAIL_PUNCT)
    if core.endswith("()"):
        core = core[:-2]
    if len(core) < 2:
        return core in ("a", "A", "I")
    return core.replace("'", "").replace("’", "").replace("-", "").isalpha()


def _word_stats(text: str) -> tuple[int, int]:
    """Return (word-like tokens, all tokens) of a piece of text."""
    tokens = text.split()
    return sum(1 for t in tokens if _is_word(t)), len(tokens)


def _looks_like_prose(line: str) -> bool:
    """True when a line reads as a sentence rather than code, a path list or a symbol dump."""
    stripped = line.strip()
    if len(stripped) < 6 or stripped.endswith(_CODE_ENDINGS) or _CODE_START.match(stripped):
        return False
    words, total = _word_stats(stripped)
    if words < 3 or words < 0.6 * total:
        return False
    symbols = sum(1 for ch in stripped if ch in _SYMBOLS)
    return symbols <= 0.08 * len(stripped)


def _looks_like_question(sentence: str) -> bool:
    """True when a sentence ends in a question mark and is mostly words."""
    if not sentence.rstrip(_QUESTION_TAIL).endswith("?"):
        return False
    words, total = _word_stats(sentence)
    return words >= 2 and words >= 0.5 * total


def _tail(text: str, limit: int = QUERY_MAX_CHARS) -> str:
    """Collapse whitespace and keep at most ``limit`` trailing characters on a word boundary."""
    if len(text) > 4 * limit:
        text = text[-4 * limit :]
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[-limit:]
    space = cut.find(" ")
    return cut[space + 1 :] if 0 <= space < limit // 2 else cut


class _Classifier:
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
                closing = _FENCE_CLOSE.match(line)
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
            opening = _FENCE_OPEN.match(line)
            if opening and not self._underline_not_fence(line, last_kind, opening):
                run = opening.group("run")
                if run[0] == "~" or "`" not in opening.group("info"):
                    fence = (run[0], len(run))
                    last_kind = self._drop(KIND_FENCE)
                    continue
            if in_traceback or expect_source:
                if expect_source or line[0] in " \t" or _PY_TB_PARTS.match(line):
                    expect_source = bool(_PY_TB_PARTS.match(line)) and "File" in line
                    last_kind = self._drop(KIND_TRACEBACK)
                    continue
                in_traceback = False
                if _PY_TB_END.match(line):
                    last_kind = self._drop(KIND_TRACEBACK)
                    continue
            if _PY_TB_START.match(line):
                in_traceback = True
                last_kind = self._drop(KIND_TRACEBACK)
                continue
            if _PY_TB_PARTS.match(line):
                expect_source = "File" in line
                last_kind = self._drop(KIND_TRACEBACK)
                continue
            header = _HUNK.match(line)
            if header or line.startswith("@@ "):
                hunk = _Hunk(header)
                in_diff = True
                last_kind = self._drop(KIND_DIFF)
                continue
            kind = self._line_kind(i, line, stripped, in_diff, last_kind)
            if kind is None:
                self.kept[i] = True
                if in_diff:
                    in_diff = not _looks_like_prose(stripped)
            else:
                in_diff = in_diff or kind == KIND_DIFF
                last_kind = self._drop(kind)

    @staticmethod
    def _underline_not_fence(line: str, last_kind: str | None, opening: re.Match[str]) -> bool:
        """True for a ``~~~~`` line underlining a compiler excerpt, not opening a fence."""
        return (
            opening.group("run")[0] == "~"
            and last_kind == KIND_COMPILER
            and _TILDE_ONLY.match(line) is not None
        )

    def _line_kind(
        self, i: int, line: str, stripped: str, in_diff: bool, last_kind: str | None
    ) -> str | None:
        """Kind of noise a stand-alone line is, or None when it should be kept."""
        if self._pm[i] and not _BULLET.match(line) and not _RULE.match(line):
            neighbour = (i > 0 and self._pm[i - 1]) or (i + 1 < len(self._pm) and self._pm[i + 1])
            if in_diff or neighbour:
                return KIND_DIFF
        noise = _NOISE.match(line)
        family = noise.lastgroup if noise is not None else None
        if family != "log" and "level=" in line and _LOGFMT.search(line):
            return KIND_LOG
        if family == "underline":
            return last_kind if last_kind is not None else KIND_STACK
        if family is not None:
            return _FAMILY_KIND[family]
        if _INDENTED.match(line) and not _looks_like_prose(stripped):
            return KIND_INDENTED
        return None


def _units(lines: list[str], kept: list[bool]) -> tuple[list[str], list[bool]]:
    """Group kept lines into units, joining a prose line with its wrapped continuation.

    Returns the units and, per line, whether it is a kept prose-looking line, so callers
    never evaluate the prose test twice.
    """
    parts: list[list[str]] = []
    prose = [False] * len(lines)
    joinable = False
    for i, line in enumerate(lines):
        if not kept[i]:
            joinable = False
            continue
        stripped = line.strip()
        if joinable and kept[i - 1]:
            parts[-1].append(stripped)
        else:
            parts.append([stripped])
        prose[i] = _looks_like_prose(stripped)
        joinable = prose[i] and not stripped.endswith((".", "!", "?", ":"))
    return [" ".join(p) for p in parts], prose


def _last_question(units: list[str]) -> str | None:
    """The last question sentence among the units, searching from the end."""
    for unit in reversed(units):
        if "?" not in unit or " " not in unit.strip():
            continue
        bounds = [0, *(m.end() for m in _SENTENCE_END.finditer(unit)), len(unit)]
        for j in range(len(bounds) - 2, -1, -1):
            sentence = unit[bounds[j] : bounds[j + 1]].strip()
            if sentence and _looks_like_question(sentence):
                return sentence
    return None


def sanitize_prompt(text: str) -> SanitizedPrompt:
    """Reduce a prompt to the query text channels should search for.

    Code fences, tracebacks, stack frames, compiler output, log lines, diffs and indented
    code are removed; the last question sentence is kept, else the last prose-looking line,
    else the remaining text if it is at most ``WHOLE_MAX_CHARS`` long, else nothing. Never
    raises; ``None`` or an empty string give an empty query.
    """
    if not text or not isinstance(text, str):
        return SanitizedPrompt("", [], "empty")
    lines = text.splitlines()
    classifier = _Classifier(lines)
    classifier.run()
    removed = classifier.removed
    units, prose = _units(lines, classifier.kept)

    question = _last_question(units)
    if question is not None:
        return SanitizedPrompt(_tail(question), removed, "question")

    for i in range(len(lines) - 1, -1, -1):
        if prose[i]:
            return SanitizedPrompt(_tail(lines[i]), removed, "prose-line")

    total = 0
    for unit in units:
        total += len(unit) + 1
        if total > WHOLE_MAX_CHARS + 1:
            return SanitizedPrompt("", removed, "empty")
    whole = " ".join(" ".join(units).split())
    if whole:
        return SanitizedPrompt(whole, removed, "whole")
    return SanitizedPrompt("", removed, "empty")

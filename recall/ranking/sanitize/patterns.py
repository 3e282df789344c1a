"""What machine output looks like: the kinds of noise a paste holds and the line patterns that
recognise them, each matched at the start of a line and unable to backtrack quadratically."""

from __future__ import annotations

import re
from typing import Final

KIND_FENCE: Final = "code fence"
KIND_TRACEBACK: Final = "traceback"
KIND_TEST_OUTPUT: Final = "test output"
KIND_STACK: Final = "stack trace"
KIND_COMPILER: Final = "compiler errors"
KIND_LOG: Final = "log lines"
KIND_DIFF: Final = "diff"
KIND_INDENTED: Final = "indented code"


def _alternatives(*patterns: str) -> str:
    """Join alternatives into one pattern meant for ``match`` at the start of a line."""
    return "|".join(f"(?:{p})" for p in patterns)


def _compile(*patterns: str) -> re.Pattern[str]:
    """:func:`_alternatives`, compiled."""
    return re.compile(_alternatives(*patterns))


FENCE_OPEN = re.compile(r" {0,3}(?P<run>`{3,}+|~{3,}+)(?P<info>.*)")
FENCE_CLOSE = re.compile(r" {0,3}(?P<run>`{3,}+|~{3,}+)[ \t]*$")
TILDE_ONLY = re.compile(r"[ \t]*~++[ \t]*$")

PY_TB_START = re.compile(r"\s*+Traceback \(most recent call last\):")
PY_TB_PARTS = _compile(
    r"\s*+During handling of the above exception, another exception occurred:",
    r"\s*+The above exception was the direct cause of the following exception:",
    r'\s*+File "[^"\n]*+", line \d+',
)
# The exception line that closes a Python traceback: ``pkg.SomeError: message`` or a bare name.
PY_TB_END = re.compile(r"[A-Za-z_][\w.]*+(?::\s|:$|$)")

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
LOGFMT = re.compile(r"\blevel=\"?(?:trace|debug|info|warn|warning|error|fatal|panic)\b", re.I)

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
HUNK = re.compile(r"@@+ -\d+(?:,(?P<old>\d+))? \+\d+(?:,(?P<new>\d+))? @@")
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
NOISE = re.compile("|".join(f"(?P<{name}>{p})" for name, p in _NOISE_FAMILIES))
FAMILY_KIND: Final = {
    "diff": KIND_DIFF,
    "test": KIND_TEST_OUTPUT,
    "log": KIND_LOG,
    "compiler": KIND_COMPILER,
    "stack": KIND_STACK,
}
BULLET = re.compile(r"[-+] \S")
RULE = re.compile(r"[-=*_]{2,}+\s*$")

INDENTED = re.compile(r" {4}|\t")
CODE_START = _compile(
    r"\s*+(?:async\s++)?(?:def|class|fn|func|function|interface|struct|enum|impl)\s++\w++\s*+[(<:{]",
    r"\s*+from\s++[\w.]++\s++import\b",
    r"\s*+import\s++[\w.]++\s*+;?\s*+$",
    r"\s*+import\s*+[{*]",
    r"\s*+import\s++\w++\s++from\s",
    r"\s*+(?:const|let|var|val)\s++\w++\s*+[=:]",
    r"\s*+#include\b",
    r"\s*+(?:return|throw|raise)\b.*[;)]\s*$",
)

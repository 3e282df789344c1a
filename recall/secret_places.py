"""Where in one line the secrets a plugin reported are, and how far the token each starts goes.

A plugin of the credential scan reports values, not places, so :mod:`recall.secrets_scan` looks
each value up in its line, widens it to the token it starts and names the setting it is assigned
to. Done afresh for every value, each lookup reads the line again, and a long line holding many
matches (64 KB of ``AKIA`` pasted into a memory file) costs the square of its length. A
:class:`LinePlaces` reads the line once for each kind of fact and answers every value from that;
:data:`REPLACED_PATTERNS` stand for those of detect-secrets' own that cost the square too.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

    from detect_secrets.plugins.base import BasePlugin

_JWT_CHARS = "[A-Za-z0-9-_=]"  # detect-secrets' class for a JWT's parts, range 9-_ and all
REPLACED_PATTERNS = {
    # detect-secrets' eyJ[C]+\.[C]+\.?[C2]*? tries every "eyJ" of a run of its characters up
    # to the run's end, so 64 KB of "eyJ" with no dot after took seconds. This finds the same
    # tokens (the first "eyJ" of a run followed by a dot and a part: its matches), each run
    # read once: the look-ahead checks the dot and part once per run.
    "JwtTokenDetector": re.compile(
        rf"(?<!{_JWT_CHARS})(?={_JWT_CHARS}*+\.{_JWT_CHARS}){_JWT_CHARS}*?"
        rf"(eyJ{_JWT_CHARS}++\.{_JWT_CHARS}++\.?)"
    ),
}
"""Patterns of detect-secrets' plugins (by class name) that take the square of a long line's
length, each replaced by one finding the same values in a time linear in it."""

# Characters a token is made of: a plugin that reports only its prefix (GitLab's reports
# "glpat") is widened to the whole token for the excerpt's length.
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_\-.+/=~]+")

NAME_LOOKBACK = 256
"""Characters before an assigned value searched for the name it is assigned to (shown in the
excerpt: ``DB_PASSWORD = hunt…[17 chars]``): longer than any setting's name, and short enough
that a line of thousands of assignments is read a bounded length back from each."""

# The name a value is assigned to, just before it (for the excerpt of an assignment), matched
# in the text before the value read backwards: ``name["']* = "`` is ``" = ]'"eman``. Each part
# ends where the next begins (no character fits two of them), so the greedy match is the
# longest name, as the leftmost match of the forward pattern is, read in one pass.
_ASSIGNED_NAME_BACKWARDS = re.compile(
    r"[\"'`]?[ \t]*(?:=:|>=|[:=])[ \t]*[\"'\]]*([\w.-]*[A-Za-z_])"
)


class LinePlaces:
    """One line of a scanned text, with what the scan asks about the values found in it."""

    def __init__(self, line: str) -> None:
        self.line = line
        self._by_plugin: dict[int, dict[str, set[int]]] = {}
        self._runs: tuple[list[int], list[int], list[int]] | None = None
        self._id_end: int | None = None
        self._first: dict[str, int] = {}

    def starts(self, plugin: BasePlugin, secret: str) -> list[int]:
        """Where in the line the plugin found ``secret``: one start for each of its matches.

        A plugin reports one value once per line however often it matched: GitHub's reports
        only a token's prefix (``ghp``), the same for every token of the line. So a regex
        plugin's patterns are matched again (once per line, each match's reported groups
        giving their places); the first occurrence of the text stands for a text its
        patterns do not find again."""
        by_value = self._by_plugin.get(id(plugin))
        if by_value is None:
            by_value = self._by_plugin[id(plugin)] = {}
            for pattern in getattr(plugin, "denylist", ()):
                groups = range(1, pattern.groups + 1) if pattern.groups else (0,)
                for match in pattern.finditer(self.line):
                    for group in groups:
                        value = match.group(group)
                        if value is not None:
                            by_value.setdefault(value, set()).add(match.start(group))
        found = by_value.get(secret)
        if found:
            return sorted(found)
        return [max(self.first(secret), 0)]

    def expect(self, values: Iterable[str]) -> None:
        """Find where each of ``values`` first occurs in the line, all of them in one pass
        (a search of the line for each of thousands of values costs the square of its length);
        :meth:`first` then answers from it."""
        wanted = {value for value in values if value and value not in self._first}
        if len(wanted) < 2:
            return  # one value is found by one search
        import ahocorasick  # writes only, as the scan's gates

        automaton = ahocorasick.Automaton()
        for value in wanted:
            automaton.add_word(value, value)
        automaton.make_automaton()
        for end, value in automaton.iter(self.line):
            self._first.setdefault(value, end - len(value) + 1)
        for value in wanted:
            self._first.setdefault(value, -1)

    def first(self, value: str) -> int:
        """Where ``value`` first occurs in the line, -1 when it does not."""
        at = self._first.get(value)
        if at is None:
            at = self._first[value] = self.line.find(value)
        return at

    def token_end(self, start: int, secret: str) -> int | None:
        """Where the token that ``secret``, found at ``start``, starts ends: ``secret``
        widened by the token characters after it, less a full stop closing the sentence
        (None when ``secret`` is not there as written: it is its own token then)."""
        line, after = self.line, start + len(secret)
        if not line.startswith(secret, start):
            return None
        run_starts, run_ends, kept_ends = self._token_runs()
        at = bisect_right(run_starts, after) - 1
        if at >= 0 and after < run_ends[at] and kept_ends[at] > after:
            return kept_ends[at]
        return start + len(secret.rstrip("."))  # no tail, or a tail of full stops

    def _token_runs(self) -> tuple[list[int], list[int], list[int]]:
        """Each run of token characters of the line: its start, its end, and its end less
        the full stops it ends with; read once for the line."""
        if self._runs is None:
            starts, ends, kept = [], [], []
            for run in _TOKEN_RUN.finditer(self.line):
                starts.append(run.start())
                ends.append(run.end())
                kept.append(run.start() + len(run.group().rstrip(".")))
            self._runs = (starts, ends, kept)
        return self._runs

    def assigned_name(self, start: int) -> str | None:
        """The name the value at ``start`` is assigned to (``DB_PASSWORD`` of
        ``DB_PASSWORD = "…"``), looked for in the :data:`NAME_LOOKBACK` characters before
        it; None when it follows no assignment."""
        before = self.line[max(0, start - NAME_LOOKBACK) : start]
        found = _ASSIGNED_NAME_BACKWARDS.match(before[::-1])
        return found.group(1)[::-1] if found else None

    def after_an_id(self, secret: str, id_pattern: re.Pattern[str]) -> bool:
        """Whether ``id_pattern`` (detect-secrets' names of ids: ``user_id =``) matches before
        the first occurrence of ``secret``, as its ``is_likely_id_string`` tells for a plugin
        that is not regex-based. Each match of it can end in one way only, so the first match
        ends first: it is searched for once for the line."""
        at = self.first(secret)
        if at < 0:
            return False
        if self._id_end is None:
            found = id_pattern.search(self.line)
            self._id_end = found.end() if found else len(self.line) + 1
        return self._id_end <= at

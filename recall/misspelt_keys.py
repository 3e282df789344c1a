"""Front-matter keys of memory files that look like misspellings of a key Tether reads
(``pined: true``, ``categry: gotcha``): such a key does nothing, so the memory is not what its
writer meant. ``tether doctor`` reports them, as the language server does on the key's line."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from recall.errors import MalformedMemory
from recall.extra_keys import near_known_key
from recall.line_ends import lone_cr_as_lf
from recall.memfiles import OversizedFile
from recall.records import DERIVED_KEYS, KNOWN_KEYS
from recall.store import MemoryStore

_TOP_KEY = re.compile(r"^[\"']?([^\s:\"'#][^:\"'\n]*?)[\"']?[ \t]*:", re.MULTILINE)
"""A key at the start of a line: a cheap look over every file, so that only a file with a key
alike to one Tether reads is parsed as YAML (a store may hold tens of thousands of files)."""

_READ = frozenset(KNOWN_KEYS) | frozenset(DERIVED_KEYS)


@dataclass(frozen=True)
class MisspeltKey:
    """One key of a memory file that Tether does not read and that is alike to one it does."""

    memory_id: str
    path: Path
    line: int
    key: str
    meant: str

    def message(self) -> str:
        """The finding as ``path:line: id: ...``, saying what to do."""
        return (
            f"{self.path}:{self.line}: {self.memory_id}: front-matter key {self.key!r} is not "
            f"a key Tether reads, so it does nothing: did you mean {self.meant!r}? (rename it; "
            "a key of your own is kept as written)"
        )


def misspelt_keys(store: MemoryStore) -> Iterator[MisspeltKey]:
    """Each key of a memory file of ``store`` that misspells a key Tether reads, in file-name
    order. A file that cannot be read or parsed is left to the store's own problems."""
    rows = store.conn.execute("SELECT id, name FROM memories ORDER BY name").fetchall()
    for memory_id, name in rows:
        try:
            text = store.folder.read_bytes(name).decode("utf-8", errors="replace")
        except (OSError, OversizedFile):
            continue
        if not any(_suspect(key) for key in _front_keys(text)):
            continue
        try:
            extra, written, path = store.extra_lines_of(memory_id)
        except MalformedMemory:
            continue
        for key in extra:
            meant = near_known_key(key)
            if meant is not None:
                line = written[key][0] if key in written else 1
                yield MisspeltKey(memory_id, path, line, key, meant)


def _front_keys(text: str) -> list[str]:
    """The keys at the start of a line of ``text``'s front matter (none without one)."""
    text = lone_cr_as_lf(text.lstrip("\ufeff"))  # a file of old Mac line ends too
    if not text.startswith("---"):
        return []
    end = text.find("\n---", 3)
    return _TOP_KEY.findall(text[3 : end if end >= 0 else len(text)])


def _suspect(key: str) -> bool:
    """Whether ``key`` is not read by Tether and is alike to a key that is."""
    return key not in _READ and near_known_key(key) is not None

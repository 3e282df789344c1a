"""The guards as the base has them: ``tether check`` applies a guard the change lifts.

A change that deletes a guarded memory, writes ``guard: false`` in it, or leaves its file
unreadable must not pass the code under that guard unchecked in the same stroke: the memory
files at the base are read with git (one listing of the memory folder, one ``cat-file`` for
every file in it, whatever the number of memories) and each memory guarded there is checked
as the base has it when the working tree's is not guarded any more.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from recall.errors import BadInput, TetherError
from recall.file_names import later_name
from recall.gitquery import git_answer
from recall.known_paths import GIT_TIMEOUT_S
from recall.model import Memory

if TYPE_CHECKING:
    import sqlite3

    from recall.anchors.symbols import SymbolAnchor

Normalize = Callable[[str], str]
NowName = Callable[[str], "str | None"]
"""The name git's history shows a file renamed to since, following every rename (None: no
rename known)."""


@dataclass(frozen=True)
class GuardSource:
    """Where the memories live: their folder relative to the repository root, every memory
    the store holds now (any status), and how a memory file's ``files`` are normalized."""

    folder: str
    memories: Sequence[Memory]
    normalize: Normalize


@dataclass(frozen=True)
class Lifted:
    """A memory guarded at the base whose guard the change takes away, and how."""

    memory: Memory
    """The memory as the base has it (guarded)."""
    path: str
    """Its file, relative to the repository root."""
    how: str
    """What the change does to it, in words: ``deletes its file``…"""


def _git(root: Path, args: list[str], data: bytes | None = None) -> bytes:
    """The stdout of ``git ARGS`` (fed ``data``). Git failing is a :class:`TetherError`: the
    base's guards unread, the check cannot vouch for the change (a guard is never skipped)."""
    out, why = git_answer(root, *args, timeout=GIT_TIMEOUT_S, data=data)
    if out is not None:
        return out
    raise TetherError(
        f"tether check could not read the memory files as the base has them (git {args[0]}: "
        f"{why}); their guards cannot be applied: fetch the base and run it again"
    )


def _blobs(root: Path, base: str, folder: str) -> dict[str, str]:
    """The memory files of ``folder`` at ``base``: path → blob id (one ``ls-tree``)."""
    listing = _git(root, ["ls-tree", "-z", base, "--", folder.rstrip("/") + "/"])
    found: dict[str, str] = {}
    for entry in listing.split(b"\0"):
        meta, _, raw = entry.partition(b"\t")
        parts = meta.split()
        path = raw.decode("utf-8", "surrogateescape")
        if len(parts) == 3 and parts[1] == b"blob" and path.endswith(".md"):
            found[path] = parts[2].decode()
    return found


def _contents(root: Path, blobs: dict[str, str]) -> dict[str, bytes]:
    """The content of each blob (one ``cat-file --batch`` for them all), by path."""
    if not blobs:
        return {}
    ids = list(dict.fromkeys(blobs.values()))
    out = _git(root, ["cat-file", "--batch"], ("\n".join(ids) + "\n").encode())
    by_id: dict[str, bytes] = {}
    at = 0
    while at < len(out):
        end = out.find(b"\n", at)
        if end < 0:
            break
        header = out[at:end].split()
        at = end + 1
        if len(header) != 3:  # "<id> missing"
            continue
        size = int(header[2])
        by_id[header[0].decode()] = out[at : at + size]
        at += size + 1
    return {path: by_id[blob] for path, blob in blobs.items() if blob in by_id}


def parse_memory(path: str, data: bytes, normalize: Normalize) -> Memory | None:
    """The memory the file ``path`` holding ``data`` holds (its ``files`` normalized, its
    anchors' files among them as the index reads them), or None when it cannot be read. No
    size limit applies: the caller bounds what it reads."""
    from recall import frontmatter
    from recall.records import memory_from_parsed

    try:
        parsed = frontmatter.parse(data.decode("utf-8"), path)
        memory = memory_from_parsed(parsed, path, fallback_created="")
        tied = (*memory.files, *(anchor.path for anchor in memory.anchors))
        files = tuple(dict.fromkeys(normalize(raw) for raw in tied))
    except (BadInput, UnicodeDecodeError):
        return None
    return memory.with_changes(files=files)


def guarded_at_base(root: Path, base: str, folder: str, normalize: Normalize) -> dict[str, Memory]:
    """The active memories guarded at ``base``, read from git, by file path."""
    contents = _contents(root, _blobs(root, base, folder))
    found: dict[str, Memory] = {}
    for path, data in contents.items():
        if b"guard" not in data:  # most files: no YAML read for them
            continue
        memory = parse_memory(path, data, normalize)
        if memory is not None and memory.guard and memory.status == "active":
            found[path] = memory
    return found


def memories_at(
    root: Path, base: str, folder: str, paths: Collection[str], normalize: Normalize
) -> dict[str, Memory]:
    """The memories the files ``paths`` of ``folder`` hold at ``base``, read from git, by file
    path (a file git has not there, or cannot read there, is left out)."""
    blobs = {path: blob for path, blob in _blobs(root, base, folder).items() if path in paths}
    found: dict[str, Memory] = {}
    for path, data in _contents(root, blobs).items():
        memory = parse_memory(path, data, normalize)
        if memory is not None:
            found[path] = memory
    return found


def _carried(
    memory: Memory,
    by_id: dict[str, Memory],
    guarded: Memory,
    root: Path,
    base: str,
    now_name: NowName | None = None,
) -> bool:
    """Whether ``memory``'s guard lives on in the memory that supersedes it (as a supersede
    carries it), following the chain to the active one: guarded, and covering every file and
    symbol ``guarded`` (the memory as the base has it) covered, as a supersede must."""
    seen: set[str] = set()
    current: Memory | None = memory
    while current is not None and current.superseded_by and current.id not in seen:
        seen.add(current.id)
        current = by_id.get(current.superseded_by)
        if current is not None and current.status == "active":
            return current.guard and _covers(current, guarded, root, base, now_name)
    return False


def _covers(
    wider: Memory, narrower: Memory, root: Path, base: str, now_name: NowName | None = None
) -> bool:
    """Whether ``wider`` names every file and anchors every symbol ``narrower`` does, a
    symbol renamed in the change aside (see :func:`renamed_within`): the memory superseded
    onto the new name, as ``tether check`` says to do. A file gone from the working tree is
    named by the name git's history shows it renamed to (``now_name``), as a supersede
    carries it (:mod:`recall.anchors.carry`)."""

    def now(path: str) -> str:
        if now_name is None or (root / path).exists():
            return path
        new = now_name(path)
        return new if new and (root / new).is_file() else path

    files = set(wider.files)
    symbols = {(a.path, a.name) for a in wider.anchors}
    return all(path in files or now(path) in files for path in narrower.files) and all(
        (a.path, a.name) in symbols
        or (now(a.path), a.name) in symbols
        or renamed_within(root, base, a.path, a.name, wider.anchors)
        for a in narrower.anchors
    )


def renamed_within(
    root: Path, base: str, path: str, name: str, anchors: Iterable[SymbolAnchor]
) -> bool:
    """Whether ``name``, defined in ``path`` at ``base``, reads as renamed in the working
    tree to one of ``anchors``: the file defines ``name`` no more, and one of them names a
    definition of that file that ``base`` did not have (a new name). Deleting the guarded
    function and anchoring one that was there all along is no rename."""
    from recall.anchors.check_sources import by_name, candidates
    from recall.genome.symbols.extract import TREE_SITTER, extract, read_file

    targets = [anchor.name for anchor in anchors if anchor.path == path]
    full = root / path
    if not targets or not full.is_file():  # moved or deleted with its file: not a rename in it
        return False
    read = read_file(path, str(full))
    if read.parser != TREE_SITTER or read.syntax_errors:
        return False  # what the file defines now cannot be told
    now = by_name(read)
    if candidates(now, name):
        return False
    try:
        then = by_name(extract(path, _git(root, ["show", f"{base}:{path}"])))
    except TetherError:
        return False
    return any(candidates(now, t) and not candidates(then, t) for t in targets)


def name_now(renamed: Mapping[str, str], index: sqlite3.Connection | None) -> NowName | None:
    """The name a file has now: the one the change itself gives it (``renamed``, old -> new: a
    ``git mv`` staged, not committed yet), else the one the index's renames lead to; None when
    neither can be asked."""
    if not renamed and index is None:
        return None

    def now(path: str) -> str | None:
        if path in renamed:
            return renamed[path]
        return later_name(index, path) if index is not None else None

    return now


def lifted_guards(
    root: Path, base: str, source: GuardSource, now_name: NowName | None = None
) -> list[Lifted]:
    """The memories guarded at ``base`` whose guard the working tree no longer has (one
    superseded by a memory naming its renamed files by their new names, ``now_name``, keeps
    it)."""
    by_id = {memory.id: memory for memory in source.memories}
    lifted: list[Lifted] = []
    for path, old in guarded_at_base(root, base, source.folder, source.normalize).items():
        now = by_id.get(old.id)
        if now is not None and now.status == "active" and now.guard:
            continue
        if (
            now is not None
            and now.status == "superseded"
            and _carried(now, by_id, old, root, base, now_name)
        ):
            continue
        if not (root / path).is_file():
            how = "deletes its file"
        elif now is None:
            how = "leaves its file unreadable"
        elif now.status != "active":
            how = f"makes it {now.status}"
        else:
            how = "takes its guard off"
        lifted.append(Lifted(old, path, how))
    return lifted

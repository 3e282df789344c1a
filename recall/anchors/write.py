"""Symbol anchors as a write records them: with the hash of the definition's body now.

The definition is read from the working tree (the genome may lag behind an edit not yet
committed). An anchor whose file or definition cannot be found is kept all the same, without
a body hash, and the caller is told why: what a person asks to record is never dropped.
"""

from __future__ import annotations

import re
from pathlib import Path

from recall.anchors.symbols import NAME_SEPARATOR, SymbolAnchor, leaf_of, normalize_name

LINE_RANGE = re.compile(r"L?\d+(\s*[-:]\s*L?\d+)?", re.IGNORECASE)
"""A bare ``--anchor`` that is a line range (``12``, ``12-30``, ``L12-L30``): it names lines,
not a symbol, so it is kept inside the file as written (nothing to follow)."""


def _body_of(root: Path, path: str, name: str) -> tuple[str | None, str | None]:
    """The body hash of ``name`` in ``path`` under ``root``, or None and why not."""
    from recall.genome.symbols.extract import REGEX, read_file

    full = root / path
    if not full.is_file():
        return None, f"{path} is not a file of the working tree"
    found = read_file(path, str(full))
    if found.parser.startswith("skipped"):
        return None, f"{path} was not read ({found.parser.removeprefix('skipped: ')})"
    wanted = normalize_name(name)
    exact = [d for d in found.definitions if d.name == wanted]
    if not exact and found.parser == REGEX:
        # the fallback reader knows no containers: ``Store.save`` is read as ``save``
        leaf = leaf_of(wanted)
        exact = [d for d in found.definitions if d.name == leaf]
        if len(exact) > 1:
            return None, f"{path} defines {leaf} {len(exact)} times; it cannot tell which"
    if not exact:
        tail = NAME_SEPARATOR + wanted
        exact = [d for d in found.definitions if d.name.endswith(tail)]
        if len(exact) > 1:
            names = ", ".join(d.name for d in exact[:4])
            return None, f"{wanted} is ambiguous in {path} ({names}); give the qualified name"
    if not exact:
        return None, f"{path} defines no {wanted}"
    return exact[0].body, None


def body_in_tree(root: Path | None, path: str, name: str) -> str | None:
    """The body hash of ``name`` in ``path`` as the working tree under ``root`` holds it now,
    None when it cannot be read there (no folder, no such file or definition, ambiguous)."""
    if root is None:
        return None
    return _body_of(Path(root), path, name)[0]


def record_anchors(
    root: Path | None, pairs: list[tuple[str, str]]
) -> tuple[tuple[SymbolAnchor, ...], list[str]]:
    """The anchors for ``(path, name)`` pairs with their body hashes, and a note for each one
    kept without a hash (its changes cannot be told until it is confirmed)."""
    anchors: list[SymbolAnchor] = []
    notes: list[str] = []
    for path, name in dict.fromkeys(pairs):
        body, why = (
            (None, "no project folder to read it from")
            if root is None
            else (_body_of(root, path, name))
        )
        anchors.append(SymbolAnchor(path, name, body))
        if why is not None:
            notes.append(
                f"anchor {path}::{name} kept without a body hash ({why}); "
                "its changes will show once it is confirmed where it is"
            )
    return tuple(anchors), notes


def bare_name_anchor(
    root: Path | None,
    files: list[str],
    value: str,
    *,
    option: str = "--anchor",
    file_option: str = "--file",
    instead: str = "--anchor {}",
) -> tuple[tuple[str, str] | None, str | None]:
    """The symbol anchor a bare ``--anchor NAME`` given with ``--file`` stands for, and a note.

    With one file that defines NAME it is ``(FILE, NAME)``, a tracked anchor that follows the
    code. A line range stays the bare anchor as written (None), silently: it names lines. Any
    other name stays as written too, with a note naming the argument and saying why it will
    not follow the code (several files, no file, or one that does not define it, or that
    cannot be read for its symbols), and what to give instead. ``option``, ``file_option``
    and ``instead`` (a template for ``PATH::NAME``) say the arguments as the caller takes them.
    """
    name = value.strip()
    if LINE_RANGE.fullmatch(name):
        return None, None
    if len(files) != 1:
        why = f"{len(files)} files are given ({', '.join(files)})" if files else f"no {file_option}"
        return None, (
            f"{option} {value!r} is kept as a name inside the memory's files ({why}): it will "
            f"not follow the code; give it with its file as {instead.format(f'PATH::{name}')}"
        )
    [path] = files
    _, why = (
        (None, "no project folder to read it from") if root is None else _body_of(root, path, name)
    )
    if why is None:
        return (path, name), None
    return None, (
        f"{option} {value!r} is kept as a name inside {path} ({why}): it will not follow the "
        f"code; give the symbol where it is as {instead.format('PATH::NAME')}"
    )

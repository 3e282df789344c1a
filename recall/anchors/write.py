"""Symbol anchors as a write records them: with the hash of the definition's body now.

The definition is read from the working tree (the genome may lag behind an edit not yet
committed), or from the text a caller holds for a file (an editor's buffer not saved yet), read
as the symbol index will read the file once it is saved. An anchor whose file or definition
cannot be found is kept all the same, without a body hash, and the caller is told why: what a
person asks to record is never dropped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from recall.anchors.suggest import AnchorNote, close_symbols
from recall.anchors.symbols import (
    NAME_SEPARATOR,
    SEPARATOR,
    SymbolAnchor,
    leaf_of,
    normalize_name,
)
from recall.anchors.unread import UNREAD_EFFECT, unread_content, unread_in_tree, unread_why
from recall.containment import open_plain
from recall.errors import BadInput
from recall.known_paths import mean_clause

LINE_RANGE = re.compile(r"L?\d+(\s*[-:]\s*L?\d+)?", re.IGNORECASE)
"""A bare ``--anchor`` that is a line range (``12``, ``12-30``, ``L12-L30``): it names lines,
not a symbol, so it is kept inside the file as written (nothing to follow)."""


AMBIGUOUS_FIX = (  # what to do, said where a name is defined twice in one scope
    "it shows as unknown until one name is defined once: give each definition its own name, "
    "or name the file instead of the symbol"
)


_CANNOT_TELL = "; it cannot tell which"


class _Found(NamedTuple):
    """What the working tree says of one anchored name: its body hash, or why there is none,
    and, when its file defines no such name, the names it defines spelt closest to it."""

    body: str | None
    why: str | None
    close: tuple[str, ...] = ()


Held = Mapping[str, str]
"""The text a caller holds for some files (an editor's open buffers), by repo-relative path:
read instead of the working tree's file, as it will be once saved."""


def _held_bytes(held: Held | None, path: str) -> bytes | None:
    """The content of ``path`` as held (UTF-8, as an editor saves it), None when not held."""
    text = None if held is None else held.get(path)
    return None if text is None else text.encode("utf-8", "replace")


def _body_of(root: Path, path: str, name: str, held: Held | None = None) -> _Found:
    """The body hash of ``name`` in ``path`` under ``root`` (or in its ``held`` text), or
    None and why not."""
    from recall.genome.symbols.extract import REGEX, extract, read_file

    full = root / path
    data = _held_bytes(held, path)
    if data is None and not full.is_file():
        return _Found(None, f"{path} is not a file of the working tree")
    found = read_file(path, str(full)) if data is None else extract(path, data)
    if found.parser.startswith("skipped"):
        size = _size(full) if data is None else len(data)
        return _Found(None, unread_why(path, found.parser, size))
    wanted = normalize_name(name)
    exact = [d for d in found.definitions if d.name == wanted]
    if not exact and found.parser == REGEX:
        # the fallback reader knows no containers: ``Store.save`` is read as ``save``
        leaf = leaf_of(wanted)
        exact = [d for d in found.definitions if d.name == leaf]
        if len(exact) > 1:
            return _Found(None, f"{path} defines {leaf} {len(exact)} times{_CANNOT_TELL}")
    if not exact:
        tail = NAME_SEPARATOR + wanted
        exact = [d for d in found.definitions if d.name.endswith(tail)]
        distinct = list(dict.fromkeys(d.name for d in exact))
        if len(distinct) > 1:
            names = ", ".join(distinct[:4])
            return _Found(
                None, f"{wanted} is ambiguous in {path} ({names}); give the qualified name"
            )
        if distinct:  # one qualified name, defined twice: said of that name below
            wanted = distinct[0]
    if not exact:
        close = close_symbols(wanted, (d.name for d in found.definitions))
        return _Found(None, f"{path} defines no {wanted}{mean_clause(close)}", tuple(close))
    if len(exact) > 1:
        lines = ", ".join(str(d.start) for d in exact[:4])
        return _Found(
            None,
            f"{wanted} is ambiguous in {path} (defined {len(exact)} times, at lines {lines}); "
            f"{AMBIGUOUS_FIX}",
        )
    return _Found(exact[0].body, None)


def _size(full: Path) -> int | None:
    try:
        return full.stat().st_size
    except OSError:
        return None


def body_in_tree(root: Path | None, path: str, name: str) -> str | None:
    """The body hash of ``name`` in ``path`` as the working tree under ``root`` holds it now,
    None when it cannot be read there (no folder, no such file or definition, ambiguous)."""
    if root is None:
        return None
    return _body_of(Path(root), path, name).body


def close_symbols_in_tree(root: Path | None, path: str, name: str) -> tuple[str, ...]:
    """The names ``path`` defines in the working tree under ``root`` spelt closest to ``name``,
    closest first (:func:`recall.anchors.suggest.close_symbols`); none when it defines
    ``name``, or none close to it, or cannot be read for its symbols."""
    if root is None:
        return ()
    return _body_of(Path(root), path, name).close


def ambiguity_in_tree(root: Path | None, path: str, name: str) -> str | None:
    """Why ``name`` cannot be told apart in ``path`` in the working tree under ``root`` (it
    names several definitions there, listed), or None when it names one or none."""
    if root is None:
        return None
    why = _body_of(Path(root), path, name).why
    if why is None:
        return None
    # the two ways :func:`_body_of` says a name stands for several definitions
    return why if " is ambiguous in " in why or why.endswith(_CANNOT_TELL) else None


def _unread(root: Path, path: str, held: Held | None) -> str | None:
    """Why ``path`` (its ``held`` text, else the working tree's file) is not read for symbols,
    None when it is."""
    data = _held_bytes(held, path)
    return unread_in_tree(root, path) if data is None else unread_content(path, data)


def record_anchors(
    root: Path | None, pairs: list[tuple[str, str]], *, held: Held | None = None
) -> tuple[tuple[SymbolAnchor, ...], list[str]]:
    """The anchors for ``(path, name)`` pairs with their body hashes, and a note for each one
    kept without a hash (its changes cannot be told until it is confirmed). A file in ``held``
    is read from that text rather than from the working tree (see :data:`Held`)."""
    refuse_separator_files(root, pairs, label="anchor")
    anchors: list[SymbolAnchor] = []
    notes: list[str] = []
    for path, name in dict.fromkeys(pairs):
        body, why, close = (
            _Found(None, "no project folder to read it from")
            if root is None
            else _body_of(root, path, name, held)
        )
        anchors.append(SymbolAnchor(path, name, body))
        text = f"{path}{SEPARATOR}{name}"
        if why is not None and why.endswith(AMBIGUOUS_FIX):
            notes.append(f"anchor {text} kept without a body hash: {why}")
        elif why is not None and root is not None and _unread(root, path, held) is not None:
            notes.append(f"anchor {text} kept without a body hash: {why}; {UNREAD_EFFECT}")
        elif why is not None:
            said = (
                f"anchor {text} kept without a body hash ({why}); "
                "its changes will show once it is confirmed where it is"
            )
            notes.append(AnchorNote(said, text, close))
    return tuple(anchors), notes


def refuse_separator_files(
    root: Path | None, pairs: list[tuple[str, str]], *, label: str = "--anchor"
) -> None:
    """Refuse an anchor into a file whose name holds ``::``: written ``path::name``, it would
    be read back split at the first ``::`` (as a C++ or Rust qualified name ``a.cpp::ns::f``
    must be), naming another file. Caught both ways: a path holding ``::`` (a bare name with
    such a ``--file``) and an anchor split before a later ``::`` that ends a file's name."""
    for path, name in pairs:
        held = path if SEPARATOR in path else _file_before_separator(root, path, name)
        if held is None:
            continue
        raise BadInput(
            f"{label} {path}{SEPARATOR}{name}: the file name {held!r} holds {SEPARATOR!r}, "
            f"which an anchor reads as the end of its path, so the anchor would name "
            f"{path.partition(SEPARATOR)[0]!r} instead; name the file alone with --file "
            f"{held!r} (the memory follows the file), or rename the file to anchor its code"
        )


def _file_before_separator(root: Path | None, path: str, name: str) -> str | None:
    """The file under ``root`` named ``path::…`` that ``path::name`` was split before: the
    longest such prefix of the anchor, None when ``path`` is that file or none is."""
    if root is None or (Path(root) / path).is_file():
        return None
    parts = name.split(SEPARATOR)
    for end in range(len(parts) - 1, 0, -1):
        candidate = SEPARATOR.join([path, *parts[:end]])
        if (Path(root) / candidate).is_file():
            return candidate
    return None


def bare_name_anchor(
    root: Path | None,
    files: list[str],
    value: str,
    *,
    option: str = "--anchor",
    file_option: str = "--file",
    instead: str = "--anchor {}",
    held: Held | None = None,
) -> tuple[tuple[str, str] | None, str | None]:
    """The symbol anchor a bare ``--anchor NAME`` given with ``--file`` stands for, and a note.

        With one file that defines NAME it is ``(FILE, NAME)``, a tracked anchor that follows the
        code. A line range stays the bare anchor as written (None): it names lines; one that cannot
    be (line 0, reversed) is refused, one past a file's end said (:func:`line_range_note`). Any
        other name stays as written too, with a note naming the argument and saying why it will
        not follow the code (several files, no file, or one that does not define it, or that
        cannot be read for its symbols), and what to give instead. ``option``, ``file_option``
        and ``instead`` (a template for ``PATH::NAME``) say the arguments as the caller takes them.
        A file in ``held`` is read from that text (see :data:`Held`).
    """
    name = value.strip()
    if LINE_RANGE.fullmatch(name):
        return None, line_range_note(root, files, name, option=option)
    if len(files) != 1:
        why = f"{len(files)} files are given ({', '.join(files)})" if files else f"no {file_option}"
        return None, (
            f"{option} {value!r} is kept as a name inside the memory's files ({why}): it will "
            f"not follow the code; give it with its file as {instead.format(f'PATH::{name}')}"
        )
    [path] = files
    _, why, close = (
        _Found(None, "no project folder to read it from")
        if root is None
        else _body_of(root, path, name, held)
    )
    if why is None:
        return (path, name), None
    said = (
        f"{option} {value!r} is kept as a name inside {path} ({why}): it will not follow the "
        f"code; give the symbol where it is as {instead.format('PATH::NAME')}"
    )
    return None, AnchorNote(said, f"{path}{SEPARATOR}{name}", close)


def line_range_note(root: Path | None, files: list[str], value: str, *, option: str) -> str | None:
    """Check a line range anchor (``value`` matches :data:`LINE_RANGE`): a line 0 or a first
    line after the last is refused, naming ``option`` and the form to give; a range reaching
    past the end of one of ``files`` (read under ``root``) is kept, for files change, with a
    note saying so (None when there is nothing to say)."""
    first, last = _line_numbers(value)
    if first < 1 or first > last:
        why = "lines are numbered from 1" if first < 1 else "its first line is after its last"
        raise BadInput(
            f"{option} {value!r} is not a line range ({why}); give it as L<first>-L<last>, "
            "lines numbered from 1 and the first no later than the last, such as L3-L8"
        )
    if root is None:
        return None
    short = [
        f"{path} has {count} line{'' if count == 1 else 's'}"
        for path in files
        if (count := _line_count(Path(root) / path)) is not None and last > count
    ]
    if not short:
        return None
    return (
        f"{option} {value!r} reaches past the end of the file ({'; '.join(short)}); kept as "
        "given, but check the lines are the ones meant"
    )


def _line_numbers(value: str) -> tuple[int, int]:
    """The first and last line of a line range (a single line is both)."""
    numbers = [int(n) for n in re.findall(r"\d+", value)]
    return numbers[0], numbers[-1]


def _line_count(full: Path) -> int | None:
    """How many lines the file at ``full`` has now, None when it cannot be read or is no plain
    file (a named pipe in its place is never read: the read would wait for a writer)."""
    try:
        with open_plain(full) as handle:
            data = handle.read()
    except OSError:
        return None
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)

"""Writing generated files into a folder without losing what a person changed there.

A folder Tether writes (the Claude Code plugin of ``tether agent-config``) keeps a record,
:data:`RECORD`, of the SHA-256 of each file as Tether last wrote it. A later run replaces a
file only when it is missing, already holds the new content, or still holds exactly what the
record says Tether wrote; anything else (edited, replaced by a link or folder, or there before
Tether with no record) is kept as it is and reported, unless ``force``, which first renames it
to a free ``NAME.bak`` beside it.

A folder holding anything Tether did not write is not written at all (:class:`NotTethers`): a
file of another name (a repository can commit one into the folder: a plugin's ``.mcp.json``
or ``skills/`` would be loaded beside Tether's files and run), or, unless ``force``, one of
Tether's names with no record of Tether writing it. Which names are Tether's is this version's
list, never the record's: the record lies in the folder, and whoever wrote the folder wrote it.

The record is kept rather than comparing with what this version would write, so that a run
after an upgrade, or with another ``--command``, still updates the files nobody touched.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from recall.errors import BadInput, StoreUnavailable, TetherError

RECORD = ".tether-written.json"
"""The record of what Tether wrote in the folder: ``files``, relative path → ``sha256:``
digest."""
RECORD_NOTE = (
    "What Tether last wrote here: a file whose content no longer has this hash is yours, "
    "and a re-run leaves it alone unless --force (which keeps it as NAME.bak)."
)

CHANGED = "changed since Tether wrote it"
UNRECORDED = "there before, with no record of Tether writing it"
NOT_A_FILE = "not a plain file"


class NotTethers(TetherError):
    """The folder holds files Tether did not write: nothing is written there (exit 3)."""


_LEFT_BY_TETHER = re.compile(r"(?P<name>.+)\.bak(\.[0-9]+)?|\.(?P<temp>.+)\.[0-9a-f]{8}\.tmp")
"""A file Tether leaves beside one it writes: ``NAME.bak``/``NAME.bak.N`` (:func:`_move_aside`)
or ``.NAME.XXXXXXXX.tmp`` after a write cut short (:func:`_write`)."""


@dataclass
class Kept:
    """A file left as it was, and why."""

    path: Path
    reason: str


@dataclass
class Outcome:
    """What writing a folder did, file by file."""

    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    kept: list[Kept] = field(default_factory=list)
    backups: dict[Path, Path] = field(default_factory=dict)
    """Each file replaced with ``force`` → where the previous one was moved."""


def digest(data: bytes) -> str:
    """The record's form of a file's content hash."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def write_generated(folder: Path, files: dict[str, str | bytes], *, force: bool) -> Outcome:
    """Write ``files`` (relative path → text or bytes) into ``folder``, keeping every file a
    person changed unless ``force`` (then moved to a backup first); update the record.
    Raises :class:`BadInput`, having written nothing, when something in the folder stands
    where a subfolder is needed, and :class:`StoreUnavailable` when a file cannot be written
    (naming the files already written)."""
    check_folders(folder, [*files, RECORD])
    record = read_record(folder)
    _refuse_what_tether_did_not_write(folder, files, record, force=force)
    outcome = Outcome()
    try:
        for name, content in files.items():
            data = content.encode("utf-8") if isinstance(content, str) else content
            target = folder / name
            if _is_plain(target) and _read(target) == data:
                outcome.unchanged.append(target)
            else:
                reason = _why_kept(target, record.get(name))
                if reason is not None and not force:
                    outcome.kept.append(Kept(target, reason))
                    continue
                if reason is not None:
                    outcome.backups[target] = _move_aside(target)
                _write(target, data)
                outcome.written.append(target)
            record[name] = digest(data)
    except StoreUnavailable as error:  # what was written is recorded, and said
        raise StoreUnavailable(
            f"{error}; {_record_after_failure(folder, record, outcome)}"
        ) from None
    _write_record(folder, record)
    return outcome


def _refuse_what_tether_did_not_write(
    folder: Path, files: dict[str, str | bytes], record: dict[str, str], *, force: bool
) -> None:
    """Raise :class:`NotTethers`, naming each, when ``folder`` holds a file not among
    ``files`` (nor the record, a backup or a leftover of one), or, unless ``force``, one of
    ``files`` there with no record of Tether writing it and other content."""
    foreign = foreign_files(folder, [*files, RECORD])
    unrecorded = [] if force else _unrecorded(folder, files, record)
    if not foreign and not unrecorded:
        return
    named = ", ".join(str(p) for p in [*foreign, *unrecorded])
    fixes = "remove or move them, or write to another folder (--dir)"
    if not foreign:
        fixes += ", or rerun with --force to replace them (each kept as NAME.bak beside it)"
    raise NotTethers(
        f"{folder} holds files Tether did not write: {named}; nothing was written, as an "
        f"agent would load them with Tether's: {fixes}"
    )


def _unrecorded(folder: Path, files: dict[str, str | bytes], record: dict[str, str]) -> list[Path]:
    """The ``files`` present in ``folder`` with other content and no record of Tether's."""
    found = []
    for name, content in files.items():
        data = content.encode("utf-8") if isinstance(content, str) else content
        target = folder / name
        if _is_plain(target) and _read(target) == data:
            continue
        if _why_kept(target, record.get(name)) in (UNRECORDED, NOT_A_FILE):
            found.append(target)
    return found


def foreign_files(folder: Path, names: list[str]) -> list[Path]:
    """Every entry under ``folder`` but its subfolders, ``names`` (relative paths) and what
    Tether leaves beside them (:data:`_LEFT_BY_TETHER`), sorted; a link is not followed."""
    ours = set(names)
    found = []
    for where, folders, entries in os.walk(folder):
        base = Path(where)
        linked = [d for d in folders if (base / d).is_symlink()]
        for name in sorted([*entries, *linked]):
            relative = (base / name).relative_to(folder).as_posix()
            if not _tethers(relative, ours):
                found.append(base / name)
    return sorted(found)


def _tethers(relative: str, ours: set[str]) -> bool:
    """Whether ``relative`` is one of ``ours`` or a file Tether leaves beside one."""
    if relative in ours:
        return True
    parent, _, name = relative.rpartition("/")
    left = _LEFT_BY_TETHER.fullmatch(name)
    if left is None:
        return False
    own = left.group("name") or left.group("temp")
    return (f"{parent}/{own}" if parent else own) in ours


def _kind(path: Path) -> str:
    """What ``path``, found where a folder is needed, is instead."""
    if path.is_symlink():
        return "link"
    return "file" if path.is_file() else "special file"


def check_folders(folder: Path, names: list[str]) -> None:
    """Raise :class:`BadInput` naming the path that must be a folder (``folder``, one above it,
    or one under it holding one of ``names``) and is a file, a link to none or something else,
    or, under ``folder``, a link (the files written through it would land outside)."""
    blocked: dict[Path, str] = {}
    for name in names:
        target = folder / name
        for where in reversed(target.parents):
            # a link to a folder under ``folder`` would carry the writes out of it
            linked = where.is_symlink() and folder in where.parents
            if linked or (os.path.lexists(where) and not where.is_dir()):
                blocked.setdefault(where, name)
                break
    if blocked:
        named = "; ".join(
            f"{where} is a {_kind(where)} where a folder is needed (for {name})"
            for where, name in blocked.items()
        )
        raise BadInput(
            f"{named}; nothing was written: move or rename it, or write to another folder (--dir)"
        )


def _record_after_failure(folder: Path, record: dict[str, str], outcome: Outcome) -> str:
    """Write the record of what was written before a failure; say what is there now."""
    written = ", ".join(str(p) for p in outcome.written) or "nothing else"
    if outcome.backups:
        moved = ", ".join(f"{p} to {b}" for p, b in outcome.backups.items())
        written += f" (moved first: {moved})"
    try:
        _write_record(folder, record)
    except StoreUnavailable as error:
        return f"already written: {written}; the record was not: {error}"
    return f"already written: {written}, and the record {folder / RECORD}"


def _write_record(folder: Path, record: dict[str, str]) -> None:
    kept = {"note": RECORD_NOTE, "files": dict(sorted(record.items()))}
    _write(folder / RECORD, (json.dumps(kept, indent=2) + "\n").encode("utf-8"))


def read_record(folder: Path) -> dict[str, str]:
    """The record of ``folder``; empty when missing or unreadable (nothing is then taken as
    Tether's, so nothing is overwritten on its word)."""
    try:
        loaded = json.loads((folder / RECORD).read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, TypeError, KeyError):
        return {}
    if not isinstance(loaded, dict):
        return {}
    return {k: v for k, v in loaded.items() if isinstance(k, str) and isinstance(v, str)}


def _why_kept(target: Path, recorded: str | None) -> str | None:
    """Why ``target`` (not already the new content) must not be replaced; None when it may."""
    if not os.path.lexists(target):
        return None
    if not _is_plain(target):
        return NOT_A_FILE
    current = _read(target)
    if current is not None and recorded is not None and digest(current) == recorded:
        return None
    return CHANGED if recorded is not None else UNRECORDED


def _is_plain(target: Path) -> bool:
    return target.is_file() and not target.is_symlink()


def _read(target: Path) -> bytes | None:
    try:
        return target.read_bytes()
    except OSError:
        return None


def _move_aside(target: Path) -> Path:
    """Rename ``target`` to the first free ``NAME.bak``, ``NAME.bak.1``, ... beside it."""
    backup = target.with_name(target.name + ".bak")
    count = 0
    while os.path.lexists(backup):
        count += 1
        backup = target.with_name(f"{target.name}.bak.{count}")
    try:
        os.rename(target, backup)
    except OSError as error:
        raise StoreUnavailable(f"could not move {target} to {backup}: {error.strerror}") from None
    return backup


def _write(target: Path, data: bytes) -> None:
    """Write ``target`` whole or not at all (temporary file in its folder, then rename)."""
    temp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temp.write_bytes(data)
        os.replace(temp, target)
    except OSError as error:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise StoreUnavailable(f"could not write {target}: {error.strerror or error}") from None

"""Checking the arguments a tool is given: each problem is a :class:`BadInput` whose message
names the argument (``files[1]``, ``anchors[0]``) and says what to do, as the CLI's messages
name its options."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mcp_server.limits import LIMIT_MIN
from recall import secrets_scan
from recall.anchors.symbols import parse_anchor
from recall.errors import BadInput
from recall.model import MIN_ID_PREFIX
from recall.named_files import check_named_files
from recall.paths import normalize, normalize_loose
from recall.text_checks import check_text, refuse_blank_details

if TYPE_CHECKING:
    from recall.store import MemoryStore

LET_THROUGH = "allow_missing: true"
"""How a tool call names a file the repository does not have yet (``--allow-missing`` in the
CLI), as a refusal of an unknown file says it."""


def choice(value: str, allowed: tuple[str, ...], name: str) -> str:
    """``value`` when it is one of ``allowed``; else a refusal naming ``name`` and the choices."""
    if value not in allowed:
        raise BadInput(f"{name} {value!r} is not one of {', '.join(allowed)}; pick one of those")
    return value


def summary_line(summary: str) -> str:
    """A summary that is one line of text."""
    if not summary.strip():
        raise BadInput("summary is empty; give the knowledge as one line")
    if "\n" in summary or "\r" in summary:
        raise BadInput("summary must be one line; put the rest in details")
    return summary


def details_text(details: str | None) -> str | None:
    """The details, or None for none (empty); whitespace only is refused, as in the CLI."""
    refuse_blank_details(details, "details")
    return details or None


def no_secrets(
    summary: str,
    details: str | None,
    files: list[str] | None = None,
    anchors: list[str] | None = None,
) -> None:
    """Refuse credential-shaped text, and a vendor token in a file's or an anchor's name:
    memories are plain files committed to git. Each is named as the tool's argument."""
    from recall.secret_names import name_matches

    found = [
        f"{match.describe()} in {label}"
        for label, text in (("summary", summary), ("details", details))
        for match in secrets_scan.scan(text)
    ]
    names = [(f"files[{n}]", path) for n, path in enumerate(files or [])]
    names += [(f"anchors[{n}]", anchor) for n, anchor in enumerate(anchors or [])]
    found += name_matches((label, text) for label, text in names if isinstance(text, str))
    if found:
        raise BadInput(
            f"refusing to write what looks like a credential: {'; '.join(found)}. "
            "Memories are committed to git: remove it (say where the secret lives instead) "
            "and call the tool again"
        )


def path(store: MemoryStore, raw: str, label: str) -> str:
    """A path given to a tool, relative to the repository root as the tools say (the server
    may run in a subfolder of it), in the stored form."""
    if store.repo_root is None:
        return normalize_loose(raw, label=label)
    return normalize(raw, store.repo_root, store.repo_root, label=label)


def paths(store: MemoryStore, raw: list[str]) -> list[str]:
    """The ``files`` argument in the stored form, each checked."""
    return [path(store, item, f"files[{n}]") for n, item in enumerate(raw)]


def symbols(store: MemoryStore, anchors: list[str]) -> list[tuple[str, str]]:
    """The ``anchors`` argument as (path in the stored form, name); an anchor with a control
    character is refused, as the CLI refuses one in ``--anchor``: it would be written to the
    front matter and come back in every listing."""
    found = []
    for n, text in enumerate(anchors):
        label = f"anchors[{n}]"
        check_text(text, label)
        file, name = parse_anchor(text, label=label, given=True)
        found.append((path(store, file, label), name))
    return found


def named_files(
    store: MemoryStore,
    files: list[str],
    symbols: list[tuple[str, str]],
    *,
    allow_missing: bool,
) -> list[str]:
    """Check the files a new memory names (given as ``files``, and those of its anchors) as
    the CLI's ``remember`` does (:func:`recall.named_files.check_named_files`); the notes to
    return with the result (a file renamed since)."""
    named = [(item, f"files[{n}]") for n, item in enumerate(files)]
    named += [(item, f"anchors[{n}]") for n, (item, _) in enumerate(symbols)]
    return check_named_files(store, named, allow_missing=allow_missing, let_through=LET_THROUGH)


def memory_id(ref: str, name: str = "id") -> str:
    """A memory id or a unique prefix, stripped; else a refusal naming ``name``."""
    if not ref.strip():
        raise BadInput(f"{name} is empty; give a memory id from memory_recall or memory_list")
    if not _ID_OR_PREFIX.fullmatch(ref.strip()):
        raise BadInput(
            f"{name} {ref.strip()[:40]!r} is not a memory id: give its 8 hex digits, or at "
            "least the first 4, from memory_recall or memory_list"
        )
    return ref.strip()


_ID_OR_PREFIX = re.compile(rf"[0-9a-fA-F]{{{MIN_ID_PREFIX},8}}")
"""A memory id (8 hex digits) or a prefix as short as the store finds one by."""


def limit(value: int, most: int) -> int:
    """A ``limit`` from :data:`mcp_server.limits.LIMIT_MIN` to ``most``."""
    if not LIMIT_MIN <= value <= most:
        raise BadInput(f"limit {value} is out of range; give {LIMIT_MIN} to {most}")
    return value

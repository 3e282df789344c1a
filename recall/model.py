"""The memory record: its fields, their allowed values and the content hash used for dedupe."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from typing import Any, Final

from recall.anchors.symbols import SymbolAnchor

# ``rejected``: an approach that was tried and failed, with why; surfaced like a gotcha.
CATEGORIES: Final = ("pref", "decision", "gotcha", "context", "rejected")
WARNING_CATEGORIES: Final = ("gotcha", "rejected")
"""What an edit is warned about: a trap, and an approach already tried and rejected."""
REJECTED_WORDING: Final = "tried before and rejected"
"""How a rejected approach is worded wherever it surfaces."""
# ``pending``: written by auto-distill and held out of recall until a person confirms it.
STATUSES: Final = ("active", "pending", "superseded", "archived", "deleted")
AUTO_DISTILLED: Final = "auto-distilled"
"""The source of a memory auto-distill proposed from a commit."""
SOURCES: Final = ("user", "agent", AUTO_DISTILLED)
# What a guard protects is a choice or a trap someone recorded; a preference or context is
# not something an edit can break.
GUARD_CATEGORIES: Final = ("decision", "gotcha")

ID_PATTERN: Final = re.compile(r"^[0-9a-f]{8}$")

MIN_ID_PREFIX: Final = 4
"""Shortest id prefix a memory is found by: 65,536 prefixes keep an ambiguous one rare in a
store of thousands, and four characters are still quick to type."""

AMBIGUOUS_NAMED: Final = 5
"""Memories an ambiguous id prefix names in its refusal: enough to pick the one meant when
two or three share it, one line however many do."""


def is_valid_id(value: str) -> bool:
    """Tell whether ``value`` is a well-formed memory id (8 lowercase hex digits)."""
    return bool(ID_PATTERN.match(value))


def _normalize_for_hash(text: str) -> str:
    if not text.isascii():  # NFKC leaves ASCII as it is
        text = unicodedata.normalize("NFKC", text)
    # str.split() splits at runs of what re's \s matches (str.isspace), so this is
    # re.sub(r"\s+", " ", text).strip() at a third of its cost (a bulk import hashes each text)
    return " ".join(text.split()).casefold()


def summary_key(summary: str) -> str:
    """``summary`` as two summaries are compared, up to case, spacing and Unicode forms: what
    the index's ``summary_key`` column holds, so a memory holding a summary is found by it."""
    return _normalize_for_hash(summary)


def content_hash(category: str, summary: str, details: str) -> str:
    """Hash the knowledge of a memory: same category, summary and details up to case and spacing.

    Two writes of the same knowledge hash alike, so the second can return the first's id.
    """
    import hashlib  # writes, dedupe and JSON output only: an agent hook never hashes

    parts = (
        _normalize_for_hash(category),
        _normalize_for_hash(summary),
        _normalize_for_hash(details),
    )
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8"))
    return digest.hexdigest()[:32]


_HASHED_FIELDS: Final = frozenset({"category", "summary", "details"})
_SCANNED_FIELDS: Final = frozenset({"summary", "details", "anchor", "files", "author", "anchors"})
"""The fields :attr:`Memory.holds_secret` is about: the memory's text and the names it gives."""


@dataclass(frozen=True)
class Memory:
    """One memory as stored in ``.tether/memories/<id>.md``.

    ``extra`` keeps front-matter keys Tether does not know, so rewriting a file never drops them.
    """

    id: str
    category: str
    summary: str
    details: str = ""
    files: tuple[str, ...] = ()
    anchor: str | None = None
    anchors: tuple[SymbolAnchor, ...] = ()
    """Symbol anchors (``path::name``), see :mod:`recall.anchors.symbols`."""
    pinned: bool = False
    guard: bool = False
    """Edits under it ask the person first (pre-edit hook) and fail ``tether check`` until it is
    confirmed: for a decision or gotcha that must not be broken by accident."""
    status: str = "active"
    supersedes: str | None = None
    superseded_by: str | None = None
    created: str = ""
    author: str = ""
    source: str = "user"
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @cached_property
    def content_hash(self) -> str:
        """The dedupe hash of this memory's knowledge (category, summary, details)."""
        return content_hash(self.category, self.summary, self.details)

    @property
    def holds_secret(self) -> bool:
        """Whether the summary, details or anchor hold what the credential scan finds, or a
        name the memory gives (a file, the author, an anchor: :mod:`recall.secret_names`) a
        vendor's token: written past the scan (``--allow-secret``), or by hand in the memory's
        file, as a write would refuse them (:mod:`recall.written_secrets`). What an agent is given
        of such a memory is masked (:mod:`recall.agent_text`). A memory read from the index
        has it from its row (the scan ran when the file was indexed); any other is scanned
        the first time it is asked, loading the scanner. Kept as :attr:`content_hash` is,
        without ``cached_property``'s lock (see :meth:`hashed`)."""
        found = self.__dict__.get("holds_secret")
        if found is None:
            from recall.secret_masking import holds_credential  # the scanner: writes only
            from recall.secret_names import name_matches, names_of

            found = (
                holds_credential(self.summary)
                or holds_credential(self.details)
                or holds_credential(self.anchor)
                or bool(name_matches(names_of(self)))
            )
            self.__dict__["holds_secret"] = found
        return bool(found)

    def scanned_clean(self) -> Memory:
        """This memory, known to hold no credential in its text (the write that made it
        scanned it and refused none), so that indexing it scans it no second time."""
        self.__dict__["holds_secret"] = False
        return self

    def hashed(self) -> Memory:
        """This memory with its content hash made and kept, without the lock ``cached_property``
        takes to make it (Python 3.11: one lock for every memory, which a forked process must
        not wait on: a thread of its parent may have held it at the fork)."""
        if "content_hash" not in self.__dict__:
            self.__dict__["content_hash"] = content_hash(self.category, self.summary, self.details)
        return self

    @property
    def is_recallable(self) -> bool:
        """Whether recall may surface this memory (active ones only: never pending or archived)."""
        return self.status == "active"

    def with_changes(self, **changes: Any) -> Memory:
        """Return a copy with the given fields replaced (its content hash kept when known and
        none of the fields it is made of changes)."""
        if not changes.keys() <= _FIELD_NAMES:
            return replace(self, **changes)  # its error names the unknown field
        # The fields copied as they are, as ``replace`` would pass them to a new instance (the
        # class has no checks of its own), without the call per field: imports copy thousands.
        copy = object.__new__(Memory)
        state = copy.__dict__
        state.update(self.__dict__)
        if changes.keys() & _HASHED_FIELDS:
            state.pop("content_hash", None)  # the cached property, made again when asked
        if changes.keys() & _SCANNED_FIELDS:
            state.pop("holds_secret", None)  # scanned again when asked
        state.update(changes)
        return copy

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field, with the derived content hash."""
        return {
            "id": self.id,
            "category": self.category,
            "summary": self.summary,
            "details": self.details,
            "files": list(self.files),
            "anchor": self.anchor,
            "anchors": [anchor.to_dict() for anchor in self.anchors],
            "pinned": self.pinned,
            "guard": self.guard,
            "status": self.status,
            "supersedes": self.supersedes,
            "superseded_by": self.superseded_by,
            "created": self.created,
            "author": self.author,
            "source": self.source,
            "content_hash": self.content_hash,
        }


_FIELD_NAMES: Final = frozenset(f.name for f in fields(Memory))

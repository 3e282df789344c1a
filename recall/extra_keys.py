"""Front-matter keys Tether does not know (:attr:`Memory.extra`: written by hand, or by
``repoint`` and ``confirm``) on their way out of a store and back in: ``tether export`` puts
them in each memory's record, ``tether import`` writes them back into the new file."""

from __future__ import annotations

import difflib
import json
import re
from typing import Any

from recall import frontmatter
from recall.errors import BadInput
from recall.json_values import json_value
from recall.model import Memory
from recall.records import DERIVED_KEYS, KNOWN_KEYS
from recall.stored_rules import AS_STORED_KEY

NESTED_KEY = "front_matter"
"""The record key holding a file's keys whose names a record gives to something else
(``summary``, ``details``, ``scope``...); every other such key is a key of the record itself."""

FIELD_KEYS: frozenset[str] = frozenset(
    {*Memory("", "context", "", "", ()).to_dict(), "scope", "allow_secret", AS_STORED_KEY}
)
"""The keys of a record that are memory fields (every field of an exported memory), its scope
(the store it goes to: :mod:`recall.import_scopes`), ``allow_secret`` or ``as_stored``
(:mod:`recall.stored_rules`). Any other key of an
import line is a front-matter key of its own, and so is each key under :data:`NESTED_KEY`."""

RECORD_KEYS: frozenset[str] = FIELD_KEYS | {NESTED_KEY}
"""The names a front-matter key cannot have in a record: they go under :data:`NESTED_KEY`."""

NEAR_KEY_CUTOFF = 0.8
"""How alike (difflib's ratio) a key of a memory file's own must be to a key Tether reads to be
taken for a misspelling of it: stricter than the settings' suggestions, as a memory file may
carry keys of its own (``ticket``, ``owner``) that must not be told they are mistakes, while
a dropped, doubled or swapped letter (``pined``, ``categry``, ``gaurd``) still reaches it."""


def near_known_key(key: str) -> str | None:
    """The key Tether reads that ``key``, one it does not, most likely misspells; None when
    none is alike enough (see :data:`NEAR_KEY_CUTOFF`)."""
    found = difflib.get_close_matches(key.lower(), KNOWN_KEYS, n=1, cutoff=NEAR_KEY_CUTOFF)
    return found[0] if found else None


_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_KEY_RULE = (
    "a front-matter key is a plain name (letters, digits, '_' and '-', starting with a letter "
    "or '_', and not a word YAML reads as a value such as 'true' or 'null'); rename it"
)
_VALUE_RULE = (
    "its value cannot be written as front matter and read back the same; give a string, a "
    "finite number, true, false, null, or a list or mapping of those"
)


# -- export ------------------------------------------------------------------------------


def exported(
    extra: dict[str, Any],
    written: dict[str, tuple[int, str]] | None = None,
    path: object = None,
) -> tuple[dict[str, Any], list[str]]:
    """The record keys carrying ``extra`` (each under its own name, or under
    :data:`NESTED_KEY` when a record gives its name to something else) and a note for each
    key an import will not write back (see :func:`carried`) or whose value JSON cannot hold
    as it is, with the JSON value written instead. A key of :data:`DERIVED_KEYS` written by
    hand is said with the file (``path``) and the line it is on (``written``: its number and
    text), and what to do about it (:func:`derived_note`)."""
    record: dict[str, Any] = {}
    nested: dict[str, Any] = {}
    notes: list[str] = []
    for key, value in extra.items():
        problem = _key_problem(key)
        if key in DERIVED_KEYS:
            line = (written or {}).get(key, (1, ""))[0]
            notes.append(derived_note(key, f"{path}:{line}"))
        elif problem is not None:
            notes.append(
                f"front-matter key {key!r} is exported, but an import will not write it: {problem}"
            )
        as_json, kind = json_value(value)
        if kind is not None:
            notes.append(
                f"front-matter key {key!r} holds {kind}, which JSON cannot hold; exported as "
                f"{json.dumps(as_json, ensure_ascii=False)}, the value an import writes back"
            )
        (nested if key in RECORD_KEYS else record)[key] = as_json
    if nested:
        record[NESTED_KEY] = nested
    return record, notes


def anchor_notes(memory: Memory) -> list[str]:
    """A note for each key kept on one of ``memory``'s symbol anchors whose value JSON cannot
    hold as it is (an unquoted date, binary data, a NaN), with the JSON value the record
    carries instead: as :func:`exported` says such a top-level key."""
    notes = []
    for anchor in memory.anchors:
        values, held = anchor.extra_as_json()
        for key, kind in held.items():
            shown = json.dumps(values[key], ensure_ascii=False)
            notes.append(
                f"key {key!r} of anchor {anchor.text} holds {kind}, which JSON cannot hold; "
                f"exported as {shown}, the value an import writes back"
            )
    return notes


def derived_note(key: str, where: str) -> str:
    """The export's note for a ``key`` of :data:`DERIVED_KEYS` written by hand at ``where``
    (``path:line``): Tether makes that value from the memory's text and never reads the
    key, and an import does not write it back, so the export names it rather than lose it
    unsaid."""
    return (
        f"front-matter key {key!r} on {where} is not read: Tether makes the memory's "
        f"{key} from its text (the record's own {key!r}), so the key written there does "
        f"nothing; it is exported under {NESTED_KEY!r}, but an import will not write it "
        "back: remove the line from the file, or rename the key to keep it as a key of your own"
    )


# -- import ------------------------------------------------------------------------------


def carried(record: dict[str, Any], *, allow_secret: bool) -> tuple[dict[str, Any], list[str]]:
    """The front matter an import line carries beyond its fields (its keys no memory field
    holds, and those under :data:`NESTED_KEY`), and a note for each key not stored, saying
    why and what to do. Only lines with such keys need it (see :data:`FIELD_KEYS`).

    Raises :class:`BadInput` when a value looks like a credential, unless ``allow_secret``:
    like the text of a memory, it would be written to a file that is committed."""
    wanted = {key: value for key, value in record.items() if key not in RECORD_KEYS}
    notes: list[str] = []
    nested = record.get(NESTED_KEY)
    if isinstance(nested, dict):
        for key, value in nested.items():
            if key in wanted:
                notes.append(f"{key!r} is given twice; the one outside {NESTED_KEY!r} is stored")
            else:
                wanted[key] = value
    elif nested is not None:
        notes.append(f"{NESTED_KEY!r} must be a mapping of front-matter keys; not stored")
    extra: dict[str, Any] = {}
    for key, value in wanted.items():
        problem = _key_problem(key)
        if problem is None:
            extra[key] = value
        else:
            notes.append(f"{key!r} not stored: {problem}")
    if extra and not _reads_back(extra):  # one parse for the whole line; per key if it fails
        for key in [key for key in extra if not _reads_back({key: extra[key]})]:
            del extra[key]
            notes.append(f"{key!r} not stored: {_VALUE_RULE}")
    if extra and not allow_secret:
        refused = secret_refusal(extra)
        if refused:
            raise BadInput(refused)
    return extra, notes


def secret_refusal(extra: dict[str, Any], *, override: str | None = None) -> str | None:
    """The refusal of front-matter keys of a person's own (``extra``) whose values look like a
    credential, as their text would be written to a file that is committed, or None;
    ``override`` says how to write them anyway (default: the CLI's and the import's way)."""
    from recall import secrets_scan  # its patterns are compiled for writes only

    return secrets_scan.refusal(
        {
            f"front-matter key {key!r}": "\n".join(frontmatter.render_value(key, extra[key]))
            for key in extra
        },
        override=override or secrets_scan.OVERRIDE_ADVICE,
    )


def _key_problem(key: str) -> str | None:
    """Why ``key`` cannot be written as a front-matter key of its own (None: it can)."""
    if key in KNOWN_KEYS:
        return f"it is a memory field; give it as the line's own {key!r}"
    if key in DERIVED_KEYS:
        return "it is made from the memory's text; leave it out"
    if not _PLAIN_KEY.fullmatch(key) or frontmatter.scalar(key) != key:
        return _KEY_RULE
    return None


def _reads_back(extra: dict[str, Any]) -> bool:
    """Whether ``extra`` written as front matter reads back as the same keys and values."""
    front = "\n".join(
        line for key, value in extra.items() for line in frontmatter.render_value(key, value)
    )
    try:
        front.encode("utf-8")  # a lone surrogate from a JSON escape cannot be written
        parsed = frontmatter.parse(f"{frontmatter.FENCE}\n{front}\n{frontmatter.FENCE}\n.\n", "")
    except (UnicodeEncodeError, BadInput):
        return False
    return _same(parsed.fields, extra)


def _same(got: Any, given: Any) -> bool:
    """Equal and of the same JSON type (Python's ``==`` takes 1 for true and 1.0)."""
    if type(got) is not type(given):
        return False
    if isinstance(given, list):
        return len(got) == len(given) and all(map(_same, got, given))
    if isinstance(given, dict):
        return got.keys() == given.keys() and all(_same(got[k], given[k]) for k in given)
    return bool(got == given)


def not_on(carried: dict[str, Any], existing: dict[str, Any]) -> list[str]:
    """The keys of ``carried`` that ``existing`` (the front matter of the memory a line turned
    out to duplicate) lacks or holds otherwise."""
    return [key for key, value in carried.items() if key not in existing or existing[key] != value]

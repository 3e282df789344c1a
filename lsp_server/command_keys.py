"""The argument keys each ``workspace/executeCommand`` command reads, in one place, and the
refusal of any other key: a misspelt key (``detials``, ``pin`` for ``pinned``, ``allow_missing``
for ``allowMissing``) would otherwise be dropped without a word, and the command would do
something the person did not ask for."""

from __future__ import annotations

from typing import Any, Final

from lsp_server.command_args import Malformed
from recall.config_fields import SUGGEST_CUTOFF, fold_key

EVERY_COMMAND: Final = ("uri", "fromHint")
"""Keys every command takes: the file it is about (which root, which memory first) and
whether the server offered it (hint rule 1)."""

_MEMORY: Final = ("memoryId",)
_WRITE: Final = (
    "summary",
    "category",
    "files",
    "details",
    "pinned",
    "anchor",
    "anchors",
    "guard",
    "author",
    "source",
    "allowMissing",
)

KEYS: Final[dict[str, tuple[str, ...]]] = {
    "recall": ("prompt", "limit", "display"),
    "remember": (*_WRITE, "global"),
    "show": (*_MEMORY, "display"),
    "pin": _MEMORY,
    "unpin": _MEMORY,
    "guard": _MEMORY,
    "unguard": _MEMORY,
    "supersede": (*_MEMORY, *_WRITE),
    "archive": _MEMORY,
    "restore": _MEMORY,
    "markFollowed": _MEMORY,
    "list": ("status", "category", "pinned", "limit"),
    "reindex": ("global",),
}
"""Per command (its name after ``tether.``), the keys it reads besides :data:`EVERY_COMMAND`;
``docs/editors.md`` documents them."""


def known(command: str) -> tuple[str, ...]:
    """Every key ``command`` reads."""
    return (*KEYS[command], *EVERY_COMMAND)


def closest(key: str, keys: tuple[str, ...]) -> str | None:
    """The known key most like ``key`` (spelling folded, so ``allow_missing`` is
    ``allowMissing``), or None when none is alike enough (:data:`SUGGEST_CUTOFF`)."""
    import difflib  # only for a key no command reads

    folded = {fold_key(k): k for k in keys}
    match = difflib.get_close_matches(fold_key(key), list(folded), n=1, cutoff=SUGGEST_CUTOFF)
    return folded[match[0]] if match else None


def check(command: str, obj: dict[str, Any]) -> None:
    """Refuse the first key of ``obj`` that ``command`` does not read, naming it, the closest
    known key and all of them."""
    keys = known(command)
    for key in obj:
        if key in keys:
            continue
        near = closest(str(key), keys)
        hint = f"; did you mean {near}?" if near else ""
        raise Malformed(f"unknown argument {key!r}{hint}; the arguments are {', '.join(keys)}")

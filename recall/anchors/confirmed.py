"""Whether a change confirms a memory: ``tether confirm`` in it, or the memory written with it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from recall import frontmatter
from recall.errors import BadInput
from recall.genome.gitcmd import GitRunner
from recall.lifecycle.references import CONFIRMED_KEY


def confirmed_in_change(runner: GitRunner, root: Path, base: str, path: str | None) -> bool:
    """Whether the memory file at ``path`` is new in the change, or its ``confirmed`` key
    differs from the one at the base (``tether confirm`` in the change)."""
    if path is None:
        return False
    status, out, _ = runner.run(["show", f"{base}:{path}"], check=False)
    if status != 0:
        return True  # written in the change itself

    def key(text: str) -> Any:
        try:
            return frontmatter.parse(text, path).fields.get(CONFIRMED_KEY)
        except BadInput:
            return None

    try:
        now = key((root / path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return False
    return now is not None and now != key(out.decode("utf-8", "replace"))

"""Where a memory file holds a credential: its file and the line of each one.

A memory whose summary, details or names hold what the credential scan finds (written by hand
in its file, or past the scan with ``--allow-secret``) is given to agents masked
(:mod:`recall.agent_text`), but its file still holds the credential for anyone who can read the
repository. ``tether doctor`` names each such line, and ``tether show`` says it beside the text
it shows as written, with what to do: the person removes it, since Tether never rewrites a file
for them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from recall.agent_text import REMOVE_ADVICE
from recall.errors import TetherError

if TYPE_CHECKING:
    from recall.store import MemoryStore


@dataclass(frozen=True)
class SecretLine:
    """One line of a memory file's text holding what looks like a credential."""

    memory_id: str
    path: Path
    line: int
    found: tuple[str, ...]
    """What the scan found on the line, each as ``kind (masked excerpt)``."""
    part: str = "text"
    """The part of the file the line is in: ``text`` or ``front matter`` (a file, the author
    or an anchor it names)."""

    def message(self, *, shown_here: bool = False) -> str:
        """The finding as ``path:line: id: ...``, saying what to do; ``shown_here`` when it
        goes with the text shown as written (``tether show``)."""
        here = "shown here as written; " if shown_here else ""
        return (
            f"{self.path}:{self.line}: {self.memory_id}: its {self.part} holds what looks like a "
            f"credential: {' and '.join(self.found)}; {here}agents are given it masked (inject, "
            "recall, the hooks, the MCP tools, check, cleanup --json), but the file holds it for "
            "anyone who can read "
            f"the repository: {REMOVE_ADVICE}, and rotate it if it was ever committed"
        )

    def to_dict(self) -> dict[str, object]:
        """The finding's facts for ``--json``."""
        return {"id": self.memory_id, "line": self.line, "found": list(self.found)}


def secret_lines(store: MemoryStore) -> Iterator[SecretLine]:
    """Each line holding a credential in the text of a memory of ``store`` (those its index
    says hold one), in file-name order. A file that cannot be read or parsed again now is left
    to the store's own problems."""
    found = store.conn.execute("SELECT id FROM memories WHERE secret = 1 ORDER BY name")
    for (memory_id,) in found.fetchall():
        yield from lines_of(store, memory_id)


def lines_of(store: MemoryStore, memory_id: str) -> list[SecretLine]:
    """The lines of memory ``memory_id``'s file holding a credential, as the file has them now:
    those of its front matter holding a vendor's token (in a file, the author or an anchor it
    names, as a write refuses them), then those of its text (its summary and details, from the
    summary's line on); none when the file cannot be read or parsed."""
    from recall import frontmatter, secrets_scan  # YAML and the scanner: only for such a file
    from recall.secret_names import NAME_SECRET_TYPES

    try:
        path = store.path_of(memory_id)
        text = path.read_bytes().decode("utf-8")
        start = frontmatter.parse(text, path).body_line
    except (OSError, UnicodeDecodeError, TetherError):
        return []
    lines = text.lstrip("\ufeff").splitlines()
    found = []
    for number, line in enumerate(lines[1 : start - 1], start=2):
        # the names a memory gives, as a write scans them; its anchor as text, too
        matches = secrets_scan.scan(line, kinds=NAME_SECRET_TYPES)
        if not matches and line.lstrip().startswith("anchor:"):
            matches = secrets_scan.scan(line.split(":", 1)[1])
        if matches:
            described = tuple(m.describe() for m in matches)
            found.append(SecretLine(memory_id, path, number, described, "front matter"))
    for number, line in enumerate(lines[start - 1 :], start=start):
        matches = secrets_scan.scan(line)
        if matches:
            found.append(SecretLine(memory_id, path, number, tuple(m.describe() for m in matches)))
    return found

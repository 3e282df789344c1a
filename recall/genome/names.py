"""File names the genome can keep, and which of them are Tether's own.

Git allows any bytes in a name, a memory only valid UTF-8. Tether's own folder holds the memory
files (and their settings) a team commits along with the code: files of the repository, but
not of the project, so no co-change signal comes from them.
"""

from __future__ import annotations

from recall.repo import TETHER_DIR

OWN_FOLDER = f"{TETHER_DIR}/"
"""The prefix of the paths under Tether's own folder (memory files, settings)."""


def is_utf8(text: str) -> bool:
    """Tell whether ``text`` (decoded with surrogate escapes) was valid UTF-8."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def is_own(path: str) -> bool:
    """Tell whether ``path`` lies under Tether's own folder."""
    return path.startswith(OWN_FOLDER)

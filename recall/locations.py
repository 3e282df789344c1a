"""Where each scope keeps its memories and index: the repository's ``.tether`` or the user's."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from recall.errors import NotFound
from recall.repo import TETHER_DIR, find_root

PROJECT = "project"
GLOBAL = "global"
SCOPES = (PROJECT, GLOBAL)

# Derived files stay out of git; memory files go in, so they are reviewed like code.
GITIGNORE = (
    "# Derived and per-user files; memories/ is meant to be committed.\n"
    "index.db\nindex.db-*\n*.lock\ncache/\n*.log\n"
)


@dataclass(frozen=True)
class Location:
    """The folders of one scope."""

    scope: str
    base: Path
    repo_root: Path | None

    @property
    def memories_dir(self) -> Path:
        """Folder of the memory files."""
        return self.base / "memories"

    @property
    def index_path(self) -> Path:
        """The derived SQLite index."""
        return self.base / "index.db"

    @property
    def lock_path(self) -> Path:
        """The writer lock file."""
        return self.base / "write.lock"


def global_base() -> Path:
    """The global store's folder: ``TETHER_HOME`` or the platform's user data directory."""
    override = os.environ.get("TETHER_HOME")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("tether", appauthor=False))


def project_location(cwd: Path, *, create_at_cwd: bool = False) -> Location:
    """The project scope for ``cwd``: the nearest repository (or ``.tether``) above it.

    Raises :class:`NotFound` when there is none, unless ``create_at_cwd`` asks to start one,
    and :class:`recall.containment.UnsafeStore` when the repository's store holds a link that
    leads outside it.
    """
    root = find_root(cwd)
    if root is None:
        if not create_at_cwd:
            raise NotFound(
                f"{cwd} is not inside a git repository or a folder with {TETHER_DIR}/; "
                "run `tether init` there, or use --global"
            )
        root = cwd.resolve()
    from recall.containment import check_project_store

    check_project_store(root / TETHER_DIR, root)
    return Location(PROJECT, root / TETHER_DIR, root)


def global_location(cwd: Path) -> Location:
    """The global scope; paths in its memories are relative to the repository of ``cwd``."""
    return Location(GLOBAL, global_base(), find_root(cwd))


def ensure_created(location: Location) -> bool:
    """Create a scope's folders (and the project's .gitignore); return True if anything was new."""
    created = not location.memories_dir.is_dir()
    mode = 0o700 if location.scope == GLOBAL else 0o755
    location.base.mkdir(parents=True, exist_ok=True, mode=mode)
    location.memories_dir.mkdir(exist_ok=True, mode=mode)
    if location.scope == GLOBAL:
        os.chmod(location.base, 0o700)
    else:
        ignore = location.base / ".gitignore"
        if not ignore.exists() and not ignore.is_symlink():
            try:  # never through a link: a dangling one would create its target
                fd = os.open(ignore, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            except FileExistsError:
                return created
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(GITIGNORE)
            created = True
    return created

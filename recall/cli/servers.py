"""The servers the CLI starts (``tether lsp``, ``tether mcp``), found by name among the
installed package's entry points: the engine and its CLI never import a surface built on them.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points

from recall.errors import TetherError

SERVER_GROUP = "tether.servers"
"""The entry-point group (pyproject.toml) naming each server's ``run`` function."""


def server(name: str) -> Callable[..., int]:
    """The ``run`` function of the server called ``name`` (``lsp`` or ``mcp``)."""
    found = entry_points(group=SERVER_GROUP, name=name)
    if not found:
        raise TetherError(
            f"the {name} server is not installed with this Tether (no {name!r} entry point in "
            f"the {SERVER_GROUP!r} group); reinstall the package (`pip install -e .` in a "
            "checkout) so its entry points are registered"
        )
    return next(iter(found)).load()

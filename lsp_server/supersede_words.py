"""How a memory that supersedes one no longer active is told so, the same in a draft's
diagnostic and in the message after a save (the command refuses such a supersede outright)."""

from __future__ import annotations

from recall.model import Memory


def not_active(old: Memory) -> str:
    """What a memory superseding ``old`` is told when ``old`` is no longer active (so it cannot
    be marked superseded), and what to do."""
    by = f" by {old.superseded_by}" if old.status == "superseded" and old.superseded_by else ""
    return (
        f"supersedes {old.id}, which is {old.status}{by}: only active memories can be "
        f"superseded; restore it first (tether.restore {old.id}), or delete the supersedes "
        "line to remember this one on its own"
    )

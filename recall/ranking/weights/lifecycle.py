"""Ranking-side lifecycle judgements: when a memory's files have drifted past it."""

from __future__ import annotations

# -- Lifecycle: content drift ---------------------------------------------------------------------

# Commits to a memory's files since it was written or last confirmed (`tether confirm`) before it
# is marked for a spot-check: a file rewritten this often has likely moved past what the memory
# says, while a handful of commits is routine upkeep that rarely invalidates it.
DRIFT_COMMITS = 20

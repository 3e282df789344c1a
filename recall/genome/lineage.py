"""File identities followed through renames while commits are applied oldest first.

A file keeps one identity for its whole life: renames move the identity to the new name, a
delete keeps the name bound so a file re-created at the same path continues its history,
and a rename onto a name that already has an identity merges the two (git's own view of a
path is by name, so both histories belong to it from then on).
"""

from __future__ import annotations

from collections.abc import MutableMapping

from recall.genome.history import Change


class Lineage:
    """Maps file names to identities and records what changed while commits are applied."""

    def __init__(self, names: MutableMapping[str, int], next_id: int) -> None:
        """Start from the stored ``names`` (name → identity) and the next free identity."""
        self.names = names
        self.next_id = next_id
        self.first_new_id = next_id
        self.renamed: dict[int, str] = {}
        self.merged: dict[int, int] = {}
        self.renames: list[tuple[int, str, str]] = []

    def find(self, ident: int) -> int:
        """The identity ``ident`` lives on as after every merge so far."""
        merged = self.merged
        root = ident
        while root in merged:
            root = merged[root]
        while ident != root:
            following = merged[ident]
            merged[ident] = root
            ident = following
        return root

    def _bind(self, name: str) -> int:
        ident = self.names.get(name)
        if ident is None:
            ident = self.next_id
            self.next_id += 1
            self.names[name] = ident
            self.renamed[ident] = name
        return ident

    def apply(self, seq: int, changes: list[Change]) -> list[int]:
        """Apply one commit's changes; return the identities it touched, sorted, no repeats.

        Renames are applied first and all at once, so a swap (a→b with b→a) or a new file
        created at a name that was just vacated is attributed correctly.
        """
        names = self.names
        touched: set[int] = set()
        moves = [(names.pop(old, None), old, new) for status, new, old in changes if status == "R"]
        for ident, old, new in moves:
            if ident is None:
                # the old name's add was never read (a shallow clone's first commits, whose
                # parents are not there): the rename is git's word all the same
                touched.add(self._bind(new))
                self.renames.append((seq, old, new))
                continue
            existing = names.get(new)
            if existing is not None and existing != ident:
                self.merged[existing] = ident
                self.renamed.pop(existing, None)
            names[new] = ident
            self.renamed[ident] = new
            self.renames.append((seq, old, new))
            touched.add(ident)
        for status, path, _ in changes:
            if status != "R":
                ident = names.get(path)
                touched.add(ident if ident is not None else self._bind(path))
        return sorted(touched)

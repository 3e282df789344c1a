"""A small world for recall tests: a real git repository, real stores, the real engine.

``World`` commits files with fixed dates (through ``tests.genome.gitrepo.GitRepo``), writes
memories through the store API (project or global scope), opens the genome of the repository
in the project index and asks the real :class:`~recall.ranking.engine.Recaller`. Nothing of
the engine is replaced: the tests see what ``tether recall`` sees.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path

from recall.genome import Genome
from recall.locations import global_location, project_location
from recall.ranking import weights as W
from recall.ranking.embedding import HashEmbedder, cosine
from recall.ranking.engine import Hit, Recaller, RecallResult
from recall.ranking.query import RecallQuery, Touch
from recall.ranking.vectors import memory_text
from recall.store import MemoryStore
from tests.genome.gitrepo import GitRepo

#: The engine's clock in every ranking test (``TETHER_NOW``), so recency is the same each run.
NOW = "2026-06-01T12:00:00+00:00"
#: Creation time given to memories unless a test says otherwise: a month before ``NOW``.
CREATED = "2026-05-01T12:00:00+00:00"


class World:
    """A git repository with a project store (and, on demand, the user's global store)."""

    def __init__(self, root: Path) -> None:
        """Create an empty repository (branch ``main``) at ``root``."""
        root.mkdir(parents=True, exist_ok=True)
        self.repo = GitRepo(root.resolve())
        self.repo.git("init", "-q", "-b", "main")
        self.root = self.repo.root
        self._stores: dict[str, MemoryStore] = {}
        self._embedder = HashEmbedder()

    # -- the repository --------------------------------------------------------------------

    def commit(self, *paths: str, message: str = "change") -> str:
        """Rewrite ``paths`` with new content and commit them (and anything else staged)."""
        return self.repo.commit(message, *paths)

    def history(self, commits: Iterable[Sequence[str]]) -> None:
        """Commit each group of paths as one commit, in order."""
        for number, paths in enumerate(commits):
            self.commit(*paths, message=f"commit {number}")

    def delete(self, path: str) -> None:
        """Remove a tracked file and commit the removal."""
        self.repo.remove(path)
        self.repo.commit(f"delete {path}")

    def rename(self, old: str, new: str) -> None:
        """Rename a tracked file (content kept, so git detects the rename) and commit."""
        self.repo.move(old, new)
        self.repo.commit(f"rename {old} to {new}")

    # -- stores and memories ---------------------------------------------------------------

    def store(self, scope: str = "project") -> MemoryStore:
        """The store of ``scope`` (``project`` or ``global``), opened once."""
        if scope not in self._stores:
            location = (
                global_location(self.root)
                if scope == "global"
                else project_location(self.root, create_at_cwd=True)
            )
            self._stores[scope] = MemoryStore(location, notice=lambda message: None)
        return self._stores[scope]

    @property
    def project(self) -> MemoryStore:
        """The project store."""
        return self.store("project")

    def remember(
        self,
        summary: str,
        *files: str,
        category: str = "gotcha",
        details: str | None = None,
        pinned: bool = False,
        created: str = CREATED,
        supersedes: str | None = None,
        scope: str = "project",
    ) -> str:
        """Write a memory through the store API and return its id (fails on a duplicate)."""
        store = self.store(scope)
        draft = store.prepare_memory(
            summary=summary,
            category=category,
            files=list(files),
            details=details,
            pinned=pinned,
            created=created,
            supersedes=supersedes,
        )
        result = store.remember(draft)
        assert result.duplicate_of is None, f"{summary!r} duplicates {result.duplicate_of}"
        return result.id

    def hand_written(
        self, summary: str, *files: str, category: str = "gotcha", details: str = ""
    ) -> str:
        """Write a memory file by hand, as a cloned repository may bring one (with text no
        Tether writer takes, control characters say), read it in, and return its id."""
        store = self.project
        memory_id = store.new_id()
        listed = "".join(f"  - {path}\n" for path in files)
        text = (
            f"---\ncategory: {category}\nfiles:\n{listed}created: {CREATED}\n---\n"
            f"{summary}\n\n{details}\n"
        )
        store.location.memories_dir.mkdir(parents=True, exist_ok=True)
        (store.location.memories_dir / f"{memory_id}.md").write_text(text, encoding="utf-8")
        store.refresh()
        assert store.find(memory_id) is not None, f"{summary!r} was not read in"
        return memory_id

    def crowd(self, path: str, count: int, *, topic: str = "hot path note") -> list[str]:
        """``count`` distinct memories all naming ``path``, written in one batch; their ids."""
        store = self.project
        drafts = [
            (
                store.prepare_memory(
                    summary=f"{topic} number {n}",
                    category="context",
                    files=[path],
                    created=CREATED,
                ),
                None,
            )
            for n in range(count)
        ]
        results = store.import_many(drafts)
        assert all(r.duplicate_of is None for r in results)
        return [r.id for r in results]

    # -- recall ----------------------------------------------------------------------------

    def genome(self) -> Genome:
        """The genome of the repository in the project index, refreshed when stale."""
        return Genome.load(self.root, self.project.conn)

    def recaller(self, scopes: Sequence[str] = ("project",)) -> Recaller:
        """The real engine over the stores of ``scopes`` with the repository's genome."""
        stores = [self.store(scope) for scope in scopes]
        return Recaller(stores, self.genome(), cache_dir=self.project.location.base / "cache")

    def recall(
        self,
        *edits: str,
        prompt: str | None = None,
        opens: Sequence[str] = (),
        limit: int = 10,
        scopes: Sequence[str] = ("project",),
    ) -> RecallResult:
        """Recall for files being edited (and opened) and an optional prompt."""
        touches = tuple(Touch(p, "edit") for p in edits) + tuple(Touch(p, "open") for p in opens)
        query = RecallQuery(touches, prompt, limit=limit, scopes=tuple(scopes))
        return self.recaller(scopes).recall(query)

    def semantic_cosine(self, prompt: str, memory_id: str) -> float:
        """The hash-bag cosine between a (clean) prompt and a stored memory, as recall sees it."""
        memory = self.project.get(memory_id)
        text = memory_text(memory.summary, memory.details, json.dumps(list(memory.files)))
        return cosine(self._embedder.embed(prompt), self._embedder.embed(text))

    def close(self) -> None:
        """Close every opened store."""
        for store in self._stores.values():
            store.close()
        self._stores.clear()


def ids(result: RecallResult) -> list[str]:
    """The ids of a result's hits, best first."""
    return [hit.memory.id for hit in result.hits]


def hit_of(result: RecallResult, memory_id: str) -> Hit:
    """The hit of ``memory_id`` in ``result`` (fails the test when it did not surface)."""
    for hit in result.hits:
        if hit.memory.id == memory_id:
            return hit
    raise AssertionError(f"{memory_id} did not surface; got {describe(result)}")


def describe(result: RecallResult) -> list[tuple[str, str, float]]:
    """(id, receipt, score) of every hit, for assertion messages."""
    return [(h.memory.id, h.receipt, round(h.score, 4)) for h in result.hits]


def quiet_days(newest: str, now: str = NOW) -> float:
    """Days a file whose newest memory was written at ``newest`` has gone quiet by the clock
    ``now``, as the file channel counts them (from the start of the clock's day)."""
    day = datetime.fromisoformat(now).replace(hour=0, minute=0, second=0, microsecond=0)
    return (day - datetime.fromisoformat(newest)).total_seconds() / 86400


def quiet_origin(newest: str, now: str = NOW) -> float:
    """``W.origin_bonus`` at ``now`` of a file whose newest memory was written at ``newest``."""
    return W.origin_bonus(quiet_days(newest, now))


def newest_bonus(newer: int, newest: str = CREATED, now: str = NOW) -> float:
    """``W.file_newest_bonus(newer)`` at ``now`` on a file whose newest memory was written at
    ``newest``, faded by how long the file has gone quiet (``W.newest_quiet_scale``)."""
    return W.file_newest_bonus(newer) * W.newest_quiet_scale(quiet_days(newest, now))

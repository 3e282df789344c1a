"""Reading history: stream commits through the lineage and count them into file rows.

All the counting happens while git is still producing the stream, so it costs no extra
wall time; writing the result is a separate step (see ``history_write``) that holds the
database write lock only briefly.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from dataclasses import dataclass, field

from recall.genome.filerows import SQL_CHUNK, FileRows
from recall.genome.gitcmd import GitRunner
from recall.genome.history import Change, Commit, log_args, parse_log, read_tokens
from recall.genome.lineage import Lineage
from recall.genome.names import is_own, is_utf8

Progress = Callable[[str, int, int | None], None]

# Commits between two progress reports while history streams in.
PROGRESS_EVERY = 1000


class HistoryRewritten(Exception):
    """The last indexed commit is no longer an ancestor of HEAD: HEAD went back to one of its
    ancestors (``behind``: a checkout or reset of an earlier commit), or history rewritten or
    another branch checked out."""

    def __init__(self, after: str, behind: bool) -> None:
        """``after``: the last indexed commit."""
        super().__init__(after)
        self.behind = behind

    def notice(self, indexed: str) -> str:
        """What a refresh that rebuilds the history because of it says (``indexed``: the last
        indexed commit, as shown)."""
        if self.behind:
            return (
                f"HEAD is now an earlier commit than the indexed {indexed} (a checkout or reset "
                "back): history indexed again from scratch, up to HEAD"
            )
        return (
            f"indexed commit {indexed} is no longer an ancestor of HEAD (history rewritten, or "
            "another branch checked out): history indexed again from scratch"
        )


@dataclass
class HistoryBatch:
    """Commits read in one pass and the file rows they changed, ready to be written."""

    lineage: Lineage
    rows: FileRows
    max_commit_files: int
    commits: list[tuple[int, str, int, int]] = field(default_factory=list)
    skipped_large: int = 0
    skipped_shallow: int = 0


class StoredNames(MutableMapping[str, int]):
    """The stored name → identity map, read from the index only for the names asked about.

    An incremental read touches a few hundred names; loading every name of a large
    repository for that would cost more than the read itself.
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._known: dict[str, int | None] = {}

    def preload(self, names: Iterable[str | None]) -> None:
        """Fetch the identities of ``names`` in a few queries."""
        wanted = sorted({n for n in names if n is not None and n not in self._known})
        for start in range(0, len(wanted), SQL_CHUNK):
            chunk = wanted[start : start + SQL_CHUNK]
            marks = ",".join("?" * len(chunk))
            self._known.update(dict.fromkeys(chunk))
            self._known.update(
                (row[0], row[1])
                for row in self._conn.execute(
                    f"SELECT path, id FROM genome_files WHERE path IN ({marks})", chunk
                )
            )

    def __getitem__(self, name: str) -> int:
        if name not in self._known:
            self.preload((name,))
        ident = self._known[name]
        if ident is None:
            raise KeyError(name)
        return ident

    def __setitem__(self, name: str, ident: int) -> None:
        self._known[name] = ident

    def __delitem__(self, name: str) -> None:
        self[name]
        self._known[name] = None

    def __iter__(self) -> Iterator[str]:
        return (name for name, ident in self._known.items() if ident is not None)

    def __len__(self) -> int:
        return sum(1 for ident in self._known.values() if ident is not None)


def storable(changes: list[Change]) -> list[Change]:
    """The changes whose paths are valid UTF-8. Other names (bytes git allows) cannot be
    named by a memory nor stored as text, so the genome leaves those files out. A rename or
    copy between such a name and a valid one keeps its valid half: the file the genome can
    name was added (it gets a history from there) or went away."""
    for _, path, old in changes:
        if not path.isascii() or (old is not None and not old.isascii()):
            break
    else:
        return changes
    kept: list[Change] = []
    for status, path, old in changes:
        new_ok, old_ok = is_utf8(path), old is None or is_utf8(old)
        if new_ok and old_ok:
            kept.append((status, path, old))
        elif new_ok:
            kept.append(("A", path, None))
        elif old is not None and old_ok and status == "R":
            kept.append(("D", old, None))
    return kept


def commit_size(changes: list[Change]) -> int:
    """How many files a commit changed, as the bulk-commit cap counts them: Tether's own files
    left out (a change counts when either of its names is outside that folder). Memory files
    committed with a change say nothing about its size: five source files and forty memories
    are a small commit, not a reformatting."""
    return sum(
        1 for _, path, old in changes if not is_own(path) or (old is not None and not is_own(old))
    )


def own_ids(names: MutableMapping[str, int], changes: list[Change]) -> frozenset[int]:
    """The identities of a commit's changes that stay inside Tether's own folder (after the
    commit's changes were applied to ``names``): touched, but never paired for co-change. A
    team committing a thousand memory files with a fix would else pair each with every other."""
    own = [path for _, path, old in changes if is_own(path) and (old is None or is_own(old))]
    if not own:
        return frozenset()
    return frozenset(ident for ident in map(names.get, own) if ident is not None)


def next_numbers(conn: sqlite3.Connection) -> tuple[int, int]:
    """The next free file identity and the next commit number."""
    next_id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM genome_files").fetchone()[0]
    next_seq = conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM genome_commits").fetchone()[0]
    return int(next_id), int(next_seq)


def read_history(
    runner: GitRunner,
    revisions: list[str],
    *,
    subdir: bool,
    batch: HistoryBatch,
    next_seq: int,
    shallow: frozenset[str],
    after: str | None = None,
    progress: Progress | None = None,
) -> HistoryBatch:
    """Stream the commits of ``revisions`` oldest first into ``batch``.

    With ``after`` (the last indexed commit; ``revisions`` then starts with HEAD) merges are
    streamed too, only to check that ``after`` is the parent of some new commit, which in the
    whole repository holds exactly when it is still an ancestor of HEAD; when it is not, git
    is asked (:func:`descends_from`), and :class:`HistoryRewritten` is raised unless it is.
    Commits at a shallow clone's boundary are skipped: git shows them as adding every file,
    an artefact of the missing history.
    """
    with runner.stream(log_args(revisions, subdir=subdir, merges=after is not None)) as out:
        commits = parse_log(read_tokens(out))
        if after is None:
            _stream(batch, commits, next_seq, shallow, progress)
        else:
            head = revisions[0]
            _buffered(
                batch, commits, next_seq, shallow, after, lambda: descends_from(runner, head, after)
            )
    if progress is not None:
        progress("reading history", len(batch.commits), len(batch.commits))
    return batch


def _stream(
    batch: HistoryBatch,
    commits: Iterable[Commit],
    seq: int,
    shallow: frozenset[str],
    progress: Progress | None,
) -> None:
    """Number, trace and count each commit as it arrives."""
    records = batch.commits
    apply = batch.lineage.apply
    count = batch.rows.count
    cap = batch.max_commit_files
    for sha, ts, changes, _ in commits:
        if shallow and sha in shallow:
            batch.skipped_shallow += 1
            continue
        nfiles = commit_size(changes)
        records.append((seq, sha, ts, nfiles))
        if changes:
            kept = storable(changes)
            ids = apply(seq, kept)
            count(seq, ids, nfiles <= cap, own_ids(batch.lineage.names, kept))
            if nfiles > cap:
                batch.skipped_large += 1
        seq += 1
        if progress is not None and len(records) % PROGRESS_EVERY == 0:
            progress("reading history", len(records), None)


def descends_from(runner: GitRunner, head: str, after: str) -> None:
    """Check that ``head`` descends from ``after`` (the last indexed commit) when the read did
    not show ``after`` as a parent: HEAD went back (raise :class:`HistoryRewritten`, behind),
    moved to another line of history (raise it, not behind), or a project in a subfolder of the
    repository saw only commits outside it (its log leaves those out: the read stands). One
    ``git merge-base``, run only then."""
    status, out, _ = runner.run(["merge-base", head, after], check=False)
    base = out.decode("ascii", "replace").strip().lower() if status == 0 else ""
    if base != after.lower():
        raise HistoryRewritten(after, behind=base == head.lower())


def _buffered(
    batch: HistoryBatch,
    commits: Iterable[Commit],
    seq: int,
    shallow: frozenset[str],
    after: str,
    check: Callable[[], None],
) -> None:
    """An incremental read: check it continues from ``after`` (``check``, when no commit read
    has it as a parent), then fetch the stored names and rows it needs in a few queries before
    counting."""
    kept: list[Commit] = []
    connected = False
    for commit in commits:
        parents = commit.parents.split()
        connected = connected or after in parents
        if len(parents) > 1:
            continue
        if shallow and commit.sha in shallow:
            batch.skipped_shallow += 1
        else:
            kept.append(commit)
    if not connected:
        check()
    names = batch.lineage.names
    # Only names the genome can store are looked up: the index holds text, and a name that is
    # not UTF-8 cannot even be put to it as a query.
    stored_changes = [storable(commit.changes) for commit in kept]
    if isinstance(names, StoredNames):
        names.preload(path for changes in stored_changes for _, *paths in changes for path in paths)
    traced: list[tuple[int, list[int], bool, frozenset[int]]] = []
    cap = batch.max_commit_files
    for (sha, ts, changes, _), stored in zip(kept, stored_changes, strict=True):
        nfiles = commit_size(changes)
        batch.commits.append((seq, sha, ts, nfiles))
        if changes:
            ids = batch.lineage.apply(seq, stored)
            traced.append((seq, ids, nfiles <= cap, own_ids(names, stored)))
            if nfiles > cap:
                batch.skipped_large += 1
        seq += 1
    batch.rows.preload(ident for _, ids, _, _ in traced for ident in ids)
    for number, ids, eligible, own in traced:
        batch.rows.count(number, ids, eligible, own)

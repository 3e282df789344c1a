"""One refresh of the genome: plan it, read history and the tree side by side, write both.

The history stream runs on the calling thread and the tree listing and import scan on a
second one, so git's two processes and the Python work overlap. Nothing is written until
both are read, and then in one transaction, after checking that no other process
refreshed in the meantime.
"""

from __future__ import annotations

import hashlib
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from recall.genome.commit_times import write_times
from recall.genome.filerows import FileRows
from recall.genome.gitcmd import GitMissing, GitRunner, GitUnavailable, RepoProbe
from recall.genome.headref import common_dir, probe_files, read_head, unborn_notice
from recall.genome.history import MalformedLog
from recall.genome.history_index import (
    HistoryBatch,
    HistoryRewritten,
    StoredNames,
    next_numbers,
    read_history,
)
from recall.genome.history_write import clear_history, write_history
from recall.genome.index_added import added_in_index, record_index_added
from recall.genome.lineage import Lineage
from recall.genome.names import submodules_state, unnamed_notice
from recall.genome.refresh_phases import Phases, Progress, serialized, timed
from recall.genome.schema import (
    SYMBOLS_BEHIND,
    SYMBOLS_STATE,
    ensure_schema,
    read_state,
    schema_current,
    write_state,
    write_transaction,
)
from recall.genome.summary import IndexSummary
from recall.genome.symbols.index import (
    StoredSymbols,
    SymbolBatch,
    clear_symbols,
    read_symbols,
    stored_symbols,
    write_symbols,
)
from recall.genome.tree_index import TreeBatch, clear_tree, read_tree, stored_rows, write_tree
from recall.work_tree import git_expected

DEFERRED = "deferred"
"""The mode of a refresh made without ``rebuild`` that would have read the whole history: it
read and wrote nothing."""


class RebuildDeferred(Exception):
    """An incremental history read that must become a rebuild (history was rewritten), in a
    refresh that may not rebuild."""


def _shallow_commits(git_dir: Path) -> frozenset[str]:
    """The boundary commits of a shallow clone (the file lives in the common directory)."""
    for folder in (common_dir(git_dir), git_dir):
        try:
            text = (folder / "shallow").read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        return frozenset(line.strip() for line in text.splitlines() if line.strip())
    return frozenset()


def _tree_then_symbols(
    root: Path,
    stored: dict,
    stored_syms: StoredSymbols | None,
    use_cache: bool,
    progress: Progress | None,
) -> tuple[TreeBatch, SymbolBatch | None, float, float]:
    """The tree, then the definitions of its source files whose content is new (on the tree
    thread, beside the history read); returns both with the wall time of each. No symbols
    are read without ``stored_syms`` (the refresh leaves them for later)."""
    tree, tree_ms = timed(read_tree, GitRunner(root), root, stored, use_cache, progress)
    if stored_syms is None:
        return tree, None, tree_ms, 0.0
    symbols, symbols_ms = timed(read_symbols, root, tree.rows, stored_syms, use_cache)
    return tree, symbols, tree_ms, symbols_ms


def shallow_notice(commits_read: int) -> str:
    """What a shallow clone's history lacks, in words that fit the number of commits read."""
    if commits_read == 0:
        covered = (
            "no co-change yet: the clone holds no commit whose parent was fetched, and a "
            "commit's changes are known only against its parent"
        )
    else:
        noun = "commit" if commits_read == 1 else "commits"
        covered = f"co-change covers only the {commits_read} {noun} whose parents were fetched"
    return (
        f"shallow clone: {covered}; `git fetch --unshallow` (or `git fetch --deepen=N`) gives "
        "more of the history"
    )


def _unreadable_notice(error: Exception) -> str:
    """What a refresh says when git cannot read the repository: git's own reason."""
    return f"git could not read the repository ({error}); the genome is left as it was"


def settings_signature(max_commit_files: int, prefix: str, shallow: frozenset[str]) -> str:
    """What the stored history depends on besides the commits; a change forces a rebuild."""
    digest = hashlib.sha1("\n".join(sorted(shallow)).encode()).hexdigest()[:12]
    return f"{max_commit_files}|{prefix}|{digest}"


class Refresh:
    """Brings the genome tables of ``conn`` up to date with the repository at ``root``.

    Without ``symbols`` the symbol index is left as it was (a short-lived process, such as an
    agent's hook, must not spend its start-up parsing files) and the state says it lags, so
    the next refresh that reads symbols (``tether index``, the language server) brings it up
    to date; its stored definitions stay consistent with the contents they were read from.

    Without ``rebuild`` a refresh that would read the whole history (never indexed, other
    settings, history rewritten, or git gone) reads and writes nothing, and its summary's mode
    is :data:`DEFERRED`: an edit hook catching up with a commit must stay quick.
    """

    def __init__(
        self,
        root: Path | None,
        conn: sqlite3.Connection,
        max_commit_files: int,
        *,
        symbols: bool = True,
        rebuild: bool = True,
    ):
        """Prepare a refresh; nothing is read until :meth:`run`."""
        self.root = root
        self.conn = conn
        self.max_commit_files = max_commit_files
        self.symbols = symbols
        self.rebuild = rebuild

    def run(self, full: bool, progress: Progress | None) -> IndexSummary:
        """Refresh (from scratch if ``full``) and return what was done."""
        summary = IndexSummary()
        phases = Phases(summary)
        try:
            self._run(summary, phases, full, progress)
        finally:
            phases.close()
        return summary

    def _run(
        self, summary: IndexSummary, phases: Phases, full: bool, progress: Progress | None
    ) -> None:
        root = self.root
        if root is None:
            summary.mode = "unavailable"
            summary.notices.append("no project folder: the genome has nothing to read")
            return
        schema_ok = schema_current(self.conn)
        state_before = read_state(self.conn) if schema_ok else {}
        with phases("probe"):
            head_state = read_head(root)
            try:
                runner = GitRunner(root)
                probe = probe_files(root) or runner.probe()
            except GitUnavailable as error:
                if isinstance(error, GitMissing) or not git_expected(str(root)):
                    self._write_unavailable(summary, error)
                else:  # a repository is there, and git refuses it (broken, another user's)
                    summary.mode = "failed"
                    summary.notices.append(_unreadable_notice(error))
                return
        summary.head = probe.head
        shallow = _shallow_commits(probe.git_dir) if probe.shallow else frozenset()
        settings = settings_signature(self.max_commit_files, probe.prefix, shallow)
        summary.mode, last = self._plan(probe, state_before, settings, full, summary)
        if summary.mode == "full" and not self.rebuild:
            summary.mode = DEFERRED
            return
        report = serialized(progress)
        stored = stored_rows(self.conn) if schema_ok else {}
        stored_syms: StoredSymbols | None = None
        if self.symbols:
            stored_syms = stored_symbols(self.conn) if schema_ok else StoredSymbols()
        try:
            with ThreadPoolExecutor(max_workers=1) as pool:
                tree_job = pool.submit(
                    _tree_then_symbols, root, stored, stored_syms, not full, report
                )
                with phases("history"):
                    batch = self._read_history(runner, probe, shallow, last, summary, report)
                tree, symbols, summary.elapsed_ms["tree"], summary.elapsed_ms["symbols"] = (
                    tree_job.result()
                )
            added = added_in_index(runner, probe.head)
        except RebuildDeferred:
            summary.mode = DEFERRED
            return
        except GitMissing as error:
            self._write_unavailable(summary, error)
            return
        except (GitUnavailable, MalformedLog) as error:
            summary.mode = "failed"
            summary.notices.append(_unreadable_notice(error))
            return
        self._summarize(summary, batch, tree, state_before)
        if symbols is not None:
            summary.symbol_files_parsed = symbols.parsed
            summary.symbol_files_reused = symbols.reused
            summary.symbol_parsers.update(symbols.parsers)
            summary.symbol_fallbacks.extend(symbols.notes)
        state = {
            "mode": summary.mode,
            "head": probe.head or "",
            "index_sig": head_state.index_sig if head_state else "",
            "settings": settings,
            "max_commit_files": str(self.max_commit_files),
            "tree_time": repr(tree.listed_at),
        }
        if symbols is None:
            state[SYMBOLS_STATE] = SYMBOLS_BEHIND
        state.update(submodules_state(tree.gitlinks))
        with phases("write"):
            self._write(summary, batch, tree, symbols, state_before, state, added)

    def _summarize(
        self,
        summary: IndexSummary,
        batch: HistoryBatch | None,
        tree: TreeBatch,
        state_before: dict[str, str],
    ) -> None:
        if batch is not None:
            summary.commits_read = len(batch.commits)
            summary.commits_skipped_large = batch.skipped_large
            summary.renames = len(batch.lineage.renames)
            if batch.skipped_shallow:
                summary.notices.append(shallow_notice(summary.commits_read))
        summary.notices.extend([unnamed_notice(tree.unnamed)] if tree.unnamed else [])
        summary.files_tracked = len(tree.rows)
        summary.files_scanned = tree.scanned
        summary.files_cached = tree.cached
        summary.files_skipped.update(tree.skipped)
        if tree.edges is not None:
            summary.import_edges = tree.edges
        else:
            summary.import_edges = int(state_before.get("import_edges", "0"))

    def _write(
        self,
        summary: IndexSummary,
        batch: HistoryBatch | None,
        tree: TreeBatch,
        symbols: SymbolBatch | None,
        state_before: dict[str, str],
        state: dict[str, str],
        added: list[str] | None,
    ) -> None:
        """Write everything in one transaction, unless another process got there first
        (``added``: the names git's index adds to HEAD's tree)."""
        with write_transaction(self.conn):
            recreated = ensure_schema(self.conn)
            if (read_state(self.conn) if not recreated else {}) != state_before:
                summary.notices.append(
                    "another process refreshed the genome at the same time; its result is kept"
                )
                return
            rebuilt = summary.mode in ("full", "empty")
            pairs = 0 if rebuilt else int(state_before.get("pairs", "0"))
            if rebuilt:
                clear_history(self.conn)
            if batch is not None:
                pairs += write_history(self.conn, batch)
            record_index_added(self.conn, state, added)
            write_times(self.conn, state_before, state)
            write_tree(self.conn, tree, fresh=recreated)
            if symbols is not None:
                write_symbols(self.conn, symbols, fresh=recreated)
            summary.cochange_pairs = pairs
            state["pairs"] = str(pairs)
            state["import_edges"] = str(summary.import_edges)
            write_state(self.conn, state)

    def _plan(
        self,
        probe: RepoProbe,
        state: dict[str, str],
        settings: str,
        full: bool,
        summary: IndexSummary,
    ) -> tuple[str, str | None]:
        """Choose a full, incremental or no history read; return it and the last commit."""
        if probe.detached and probe.head:
            summary.notices.append(
                f"detached HEAD at {probe.head[:12]}: history is indexed up to that commit"
            )
        if probe.head is None:
            summary.notices.append(unborn_notice(probe.git_dir))
            return "empty", None
        last = state.get("head") or None
        if full or state.get("settings") != settings or last is None:
            return "full", None
        if last == probe.head:
            return "unchanged", None
        return "incremental", last

    def _read_history(
        self,
        runner: GitRunner,
        probe: RepoProbe,
        shallow: frozenset[str],
        last: str | None,
        summary: IndexSummary,
        progress: Progress | None,
    ) -> HistoryBatch | None:
        """Read the commits the plan calls for; fall back to a rebuild if history moved."""
        if summary.mode not in ("full", "incremental") or probe.head is None:
            return None
        subdir = bool(probe.prefix)
        cap = self.max_commit_files
        reason: str | None = None
        if summary.mode == "incremental" and last is not None:
            next_id, next_seq = next_numbers(self.conn)
            batch = HistoryBatch(
                Lineage(StoredNames(self.conn), next_id), FileRows(self.conn, next_id), cap
            )
            try:
                return read_history(
                    runner,
                    [probe.head, f"^{last}"],
                    subdir=subdir,
                    batch=batch,
                    next_seq=next_seq,
                    shallow=shallow,
                    after=last,
                    progress=progress,
                )
            except GitMissing:
                raise
            except HistoryRewritten as moved:
                reason = moved.notice(last[:12])
            except GitUnavailable:
                reason = f"indexed commit {last[:12]} cannot be read any more: rebuilt from scratch"
            if not self.rebuild:
                raise RebuildDeferred(reason)
            summary.mode = "full"
        batch = read_history(
            runner,
            [probe.head],
            subdir=subdir,
            batch=HistoryBatch(Lineage({}, 1), FileRows(None, 1), cap),
            next_seq=1,
            shallow=shallow,
            progress=progress,
        )
        if reason is not None:
            summary.notices.append(reason)
        return batch

    def _write_unavailable(self, summary: IndexSummary, error: GitUnavailable) -> None:
        if not self.rebuild:  # clearing the history is for a refresh that may rebuild it
            summary.mode = DEFERRED
            return
        summary.mode = "unavailable"
        if isinstance(error, GitMissing):
            reason = f"git is not available ({error})"
        else:
            reason = f"{self.root} is not inside a git repository"
        summary.notices.append(
            f"{reason}: existence comes from the file system alone; no co-change, renames or fan-in"
        )
        with write_transaction(self.conn):
            ensure_schema(self.conn)
            clear_history(self.conn)
            clear_tree(self.conn)
            clear_symbols(self.conn)
            write_state(
                self.conn,
                {"mode": "unavailable", "max_commit_files": str(self.max_commit_files)},
            )

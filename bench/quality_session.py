"""One replayed repository with a Tether store, driven in-process the way the CLI drives it.

The quality benchmark moves the repository through history (``git checkout`` of a task's
parent commit), refreshes the genome incrementally as ``tether index`` would, imports
memories as ``tether import`` would, and recalls as ``tether recall --no-record`` would,
with the clock (``TETHER_NOW``) at the task's date. Everything runs in this process, so a
history of hundreds of moments costs the refreshes and recalls, not hundreds of start-ups.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Iterable, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from bench.replay import check_out, commit_ids


def memory_line(commit: dict[str, Any], *, scan: bool = False) -> str:
    """The import line of one commit: summary = subject, details = body, files, date, id;
    unless ``scan``, written past the secrets scan (public commit messages: "token = 83f1…"
    in a protocol's log is not a secret)."""
    line = {
        "summary": _seen(commit["subject"]) or "(no subject)",
        "details": _C0.sub(" ", commit["body"]),
        "category": "context",
        "files": commit["files"],
        "created": commit["date"],
        "id": commit["sha"][:8],
    }
    return json.dumps(line if scan else {**line, "allow_secret": True})


_C0 = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
"""The control characters the store refuses in details (all of C0 but tab and line breaks)."""


def _seen(text: str) -> str:
    """``text`` with each character the store refuses in a summary (a control, format or
    separator character: a commit subject may hold a stray byte such as ``\\x8d``) made a
    space."""
    from recall.display import is_unseen

    return "".join(" " if is_unseen(ch) else ch for ch in text)


class Session:
    """A replayed repository ``repo`` with its project store, opened in this process."""

    def __init__(self, repo: Path, home: Path, *, fresh: bool = False) -> None:
        """Open (or, with ``fresh``, recreate) the store of ``repo``; the global store lives
        under ``home``."""
        from recall.cli.context import CommandContext
        from recall.locations import ensure_created, project_location

        os.environ["TETHER_HOME"] = str(home)
        if fresh:
            shutil.rmtree(repo / ".tether", ignore_errors=True)
        ensure_created(project_location(repo, create_at_cwd=True))
        self.repo = repo
        self.ids = commit_ids(repo)
        self.ctx = CommandContext(json_output=True, cwd=repo)
        self.store = self.ctx.project()
        self._recaller: Any = None
        self.id_of_sha: dict[str, str] = {}
        """Memory id of each imported commit (a commit repeating an earlier one's text is
        stored as that memory)."""

    @property
    def recaller(self) -> Any:
        """The engine over the project and global stores, as ``tether recall`` builds it."""
        if self._recaller is None:
            from recall.cli.cmd_recall import _recaller

            self._recaller = _recaller(self.ctx, "all", short_lived=False)
        return self._recaller

    def import_commits(self, commits: Sequence[dict[str, Any]]) -> None:
        """Import ``commits`` as memories, as ``tether import`` does."""
        from recall.importer import import_lines

        if not commits:
            return
        store = self.store
        results = import_lines(
            store,
            [memory_line(c) for c in commits],
            lambda raw: store.normalize_input(raw, self.repo),
            "bench",
        )
        for result in results:
            if result.status == "error":
                raise RuntimeError(f"import of {commits[result.line - 1]['sha']}: {result.error}")
            self.id_of_sha[commits[result.line - 1]["sha"]] = str(result.duplicate_of or result.id)

    def at(self, idx: int) -> float:
        """Check the repository out at history index ``idx`` (its commit) and refresh the
        genome incrementally; the refresh's milliseconds (0 when it was current)."""
        check_out(self.repo, self.ids[idx])
        genome = self.recaller.repo
        started = time.perf_counter()
        if genome.is_stale():
            genome.refresh()
        return (time.perf_counter() - started) * 1000

    def recall(
        self, prompt: str, files: Iterable[str], limit: int = 10, *, afresh: bool = False
    ) -> list[Any]:
        """The hits of ``tether recall --no-record --limit LIMIT PROMPT -f FILE...``; with
        ``afresh``, nothing ranked by an earlier recall is reused (a variant of the ranking's
        constants must not be served the file channel another one computed)."""
        from recall.cli.cmd_recall import _touches
        from recall.ranking.query import RecallQuery
        from recall.touched_files import recalled

        recaller = self.recaller
        if afresh:
            recaller.forget_rankings()
        touches = _touches(self.ctx, recaller, list(files), [])
        return recalled(recaller, RecallQuery(touches, prompt, limit=limit)).hits

    def close(self) -> None:
        """Close the stores."""
        self.ctx.close()


@contextmanager
def clock(moment: str):
    """Pin the engine's clock (``TETHER_NOW``) to ``moment`` for the block."""
    before = os.environ.get("TETHER_NOW")
    os.environ["TETHER_NOW"] = moment
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("TETHER_NOW", None)
        else:
            os.environ["TETHER_NOW"] = before


@contextmanager
def patched(changes: dict[str, Any]):
    """Set constants of ``recall.ranking.weights`` for the block (a tuning variant), then
    restore them."""
    from recall.ranking import weights

    saved = {name: getattr(weights, name) for name in changes}
    for name, value in changes.items():
        if not hasattr(weights, name):
            raise SystemExit(f"recall.ranking.weights has no constant {name}")
        for holder in _holders(weights, name):
            setattr(holder, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            for holder in _holders(weights, name):
                setattr(holder, name, value)


def _holders(package: ModuleType, name: str) -> list[ModuleType]:
    """The package and each of its topic modules that binds ``name``: the package is what
    callers read, the defining module what its own functions read."""
    topics = [
        module
        for module in vars(package).values()
        if isinstance(module, ModuleType)
        and module.__name__.startswith(package.__name__ + ".")
        and hasattr(module, name)
    ]
    return [package, *topics]

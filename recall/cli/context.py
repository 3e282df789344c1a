"""What every CLI command is given: the stores, the output mode and ways to talk to the user."""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recall import unloaded
from recall.cli.json_output import json_text as json_text
from recall.display import plural, visible
from recall.errors import BadInput, NotFound
from recall.locations import PROJECT, HomeUnusable, created_message, current_folder, not_a_folder
from recall.model import MIN_ID_PREFIX
from recall.service import FolderStores, Notice
from recall.store import MemoryStore
from recall.store.busy import OWN_WAITS as OWN_WAITS
from recall.store.busy import READ_WAIT_SECONDS, WRITE_WAIT_SECONDS
from recall.unloaded import SKIPPED_NAMED

if TYPE_CHECKING:
    from rich.console import Console

MIN_PREFIX = MIN_ID_PREFIX
"""Shortest id prefix a memory is found by (the store's own rule, said in its errors)."""

Render = Callable[["Console"], None]
ProgressUpdate = Callable[[str, int, int | None], None]


READ_COMMANDS = frozenset({"list", "search", "recall", "inject", "show", "stats"})
"""The commands that only read a store (their usage counts are bookkeeping, skipped when the
index is busy): they wait for another process as briefly as the hooks do (``inject`` as long,
by its own wait), then read the index as last committed."""


WRITE_COMMANDS = frozenset(
    {
        *("init", "remember", "supersede", "confirm", "import", "reindex", "purge", "index"),
        *("pin", "unpin", "guard", "unguard", "archive", "restore", "delete", "session"),
    }
)
"""The commands that write a store on every run (``index`` the code map into it, ``session
start`` its pass): a busy store fails them from their first read on, never read as last
committed."""

WRITES_WHEN: dict[str, Callable[[Any], bool]] = {
    "repoint": lambda args: bool(args.apply),
    "pending": lambda args: args.action != "list",
    "distill": lambda args: not args.dry_run,
    "cleanup": lambda args: not getattr(args, "json", False) or _decides(args),
}
"""The commands that write only as asked, decided per run from their arguments: ``repoint
--apply``, ``pending confirm|drop``, ``distill`` but a dry run, ``cleanup`` but a ``--json``
listing. Any command in none of these sets reads: it waits as long as a write (a code-map
refresh on the way may write), then reads the index as last committed."""


def _decides(args: Any) -> bool:
    """Whether a ``tether cleanup`` run was given decisions to apply."""
    from recall.lifecycle.cleanup import DECISIONS  # cleanup runs only

    return any(getattr(args, decision, None) for decision in DECISIONS)


def writes(command: str, args: Any = None) -> bool:
    """Whether this run of ``command`` (parsed into ``args``) writes a store; without
    ``args``, whether it may."""
    if command in WRITE_COMMANDS:
        return True
    when = WRITES_WHEN.get(command)
    return when is not None and (args is None or when(args))


class CommandStores(FolderStores):
    """The stores of one CLI invocation, each handed out waiting for another Tether process
    as a person at a terminal is best served: a read command's stores wait as long as the
    hooks do (:data:`~recall.store.busy.READ_WAIT_SECONDS`), then answer from the index as
    last committed and say so; any other command's wait as long as a write does
    (:data:`~recall.store.busy.WRITE_WAIT_SECONDS`, or ``write_wait``: ``tether --wait``),
    saying what they wait for (a read command waits the shorter of the two). Those of a
    command that writes then fail naming the busy store, their reads first included (a write
    never says it reads the index as last committed), one wait's parts adding up to one such
    wait at most; those of a command that does not, read the index as last committed."""

    def __init__(
        self,
        cwd: Path,
        *,
        notice: Notice,
        reads_only: bool = False,
        for_write: bool = False,
        write_wait: float = WRITE_WAIT_SECONDS,
    ) -> None:
        super().__init__(cwd, notice=notice)
        self._reads_only = reads_only
        self._for_write = for_write
        self._write_wait = write_wait

    def project(self, *, create: bool = False) -> MemoryStore:
        return self._waiting(super().project(create=create))

    def global_store(self) -> MemoryStore:
        try:
            return self._waiting(super().global_store())
        except HomeUnusable as error:  # refused before any write of the command is made
            if not self._for_write:
                raise
            raise HomeUnusable(f"{error}; nothing was written") from None

    def _waiting(self, store: MemoryStore) -> MemoryStore:
        write_wait = self._write_wait
        store.wait = min(READ_WAIT_SECONDS, write_wait) if self._reads_only else write_wait
        store.write_wait = write_wait
        store.for_write = self._for_write
        return store


class CommandContext:
    """Shared state of one CLI invocation."""

    def __init__(
        self, *, json_output: bool, cwd: Path | None = None, command: str = "", args: Any = None
    ) -> None:
        self.json = json_output
        self._cwd = cwd  # None: the process's current folder, looked up when first needed
        self._command = command
        self._args = args
        self._said: set[str] = set()  # the notices given so far (each is given once)
        # the exit code the command decided before its output began (:meth:`emit`); kept when
        # the reader closes the pipe early (``tether check | head -1``), as its verdict
        self.verdict = 0
        wait = getattr(args, "wait", None)
        # how long a write of this command waits for another process (``--wait``)
        self.write_wait: float = WRITE_WAIT_SECONDS if wait is None else wait

    @property
    def cwd(self) -> Path:
        """The folder the command runs in: ``-C``'s, else the process's current folder.
        Looked up on first use, so a command that is told its folder (a hook's input, a
        language server's client) runs even where the current folder was deleted; any other
        raises :class:`~recall.locations.FolderGone` there, said in one line."""
        if self._cwd is None:
            self._cwd = current_folder()
        return self._cwd

    @functools.cached_property
    def folder(self) -> CommandStores:
        """The stores of :attr:`cwd`, each opened on first use."""
        return CommandStores(
            self.cwd,
            notice=self.notice,
            reads_only=self._command in READ_COMMANDS,
            for_write=writes(self._command, self._args),
            write_wait=self.write_wait,
        )

    # -- stores ----------------------------------------------------------------------------

    def project(self, *, create: bool = False) -> MemoryStore:
        """The project store of the repository around ``cwd``."""
        return self.folder.project(create=create)

    def global_store(self) -> MemoryStore:
        """The user's global store."""
        return self.folder.global_store()

    def store(self, scope: str) -> MemoryStore:
        """The store of ``scope`` (``project`` or ``global``)."""
        return self.folder.store(scope)

    def stores(self, scope: str) -> list[MemoryStore]:
        """The stores a read covers: one scope, or ``all`` (project first when there is one)."""
        return self.folder.stores(scope)

    def say_skipped(self, stores: list[MemoryStore]) -> int:
        """Name the memory files of ``stores`` that could not be loaded (a hand edit that broke
        one, most often), so that a memory missing from the answer is never a silent loss;
        return how many there are."""
        problems = [
            f"skipped {problem} (fix the file; it is read again once it changes)"
            for store in stores
            if store.exists
            for problem in store.problems()
        ]
        problems += [
            unloaded.skipped_message(store.folder.path / name, what)
            for store in stores
            if store.exists
            for name, what in unloaded.skipped(store.folder.path)
        ]
        for problem in problems[:SKIPPED_NAMED]:
            self.notice(problem)
        if len(problems) > SKIPPED_NAMED:
            more = len(problems) - SKIPPED_NAMED
            self.notice(
                f"skipped {plural(more, 'more memory file')} that cannot be loaded: `tether doctor`"
            )
        return len(problems)

    def skipped_entries(self, store: MemoryStore) -> list[dict[str, Any]]:
        """Every memory file of ``store`` left out, as ``doctor --json`` gives it (without its
        ``scope``): an entry named like one that is not a plain file (``kind`` skipped, its
        ``path`` and ``message``), then each file that cannot be loaded (its ``path``,
        ``line`` and ``message``)."""
        if not store.exists:
            return []
        folder = store.folder.path
        entries: list[dict[str, Any]] = [
            {
                "kind": "skipped",
                "path": str(folder / name),
                "message": unloaded.skipped_message(folder / name, what),
            }
            for name, what in unloaded.skipped(folder)
        ]
        entries += [
            {"path": str(problem.path), "line": problem.line, "message": problem.message}
            for problem in store.problems()
        ]
        return entries

    def say_if_not_set_up(self, stores: list[MemoryStore]) -> None:
        """A notice when the project store read from has not been created yet: an empty
        listing then means "nothing set up here", not "nothing remembered"; and one for each
        memory file skipped as unreadable (:meth:`say_skipped`)."""
        self.say_skipped(stores)
        self.say_not_set_up(stores)

    def say_created(self, store: MemoryStore) -> None:
        """The notice of a command that set up a repository's store on its way, as ``tether
        init`` does (``remember``, ``session start``, ``reindex``), and where its ignore rules
        went when not in its own ``.gitignore`` (:meth:`say_set_up`)."""
        self.notice(created_message(store.location))
        self.say_set_up(store)

    def say_set_up(self, store: MemoryStore) -> None:
        """Say, once, that a write of ``store`` put its ignore rules in the clone's exclude
        file, and what that means on this branch (:mod:`recall.ignore_rules`)."""
        made, store.set_up = store.set_up, None
        if made is not None and made.rules_in_exclude is not None:
            self.notice(made.rules_in_exclude.message())

    def say_not_set_up(self, stores: list[MemoryStore], *, odd_folder: bool = True) -> None:
        """A notice when the project store read from has not been created yet (``tether
        init`` is the first step), or when no store read from exists outside a repository:
        an answer with nothing in it then says why. A file in the memory folder's place is
        said too, unless not ``odd_folder`` (``tether doctor`` lists it as a finding)."""
        for store in stores:
            folder = store.location.memories_dir
            if not store.exists and os.path.lexists(folder):  # a file has the folder's name
                if odd_folder:
                    self.notice(not_a_folder(folder))
                continue
            if store.scope == PROJECT and not store.exists:
                self.notice(
                    f"no {store.location.base.name}/ in {store.repo_root} yet: "
                    "`tether init` sets this repository up (`tether remember` does too)"
                )
        if any(store.scope == PROJECT or store.exists for store in stores):
            return
        if self.folder.project_if_any() is None and self.folder.in_git_folder:
            return  # why there is no project store here was said, with where to run instead
        if self.folder.project_if_any() is None:
            self.notice(
                f"{self.cwd} is not inside a git repository, and there are no global memories "
                "yet: run tether inside a repository (`tether init` sets one up), or write a "
                "user-wide memory with `tether remember --global`"
            )
        else:
            self.notice("no global memories yet: `tether remember --global` writes one")

    def say_settings_left_out(self, reason: str) -> None:
        """Say once that the user's own settings were not read, ``TETHER_HOME`` being unusable
        here (``reason``), unless the user-wide store's note said it
        (:meth:`recall.service.FolderStores.say_settings_left_out`)."""
        self.folder.say_settings_left_out(reason)

    def find_memory(
        self, ref: str, scope: str = "all", listing: str = "tether list --scope all"
    ) -> tuple[MemoryStore, Any]:
        """Find a memory by id across the stores of ``scope`` (project first; a prefix held in
        two stores is ambiguous, see :func:`recall.store.across.find_across`); an id found in
        neither points to ``listing``, the command that shows the ids meant."""
        from recall.store.across import find_across, why_not_found

        found = find_across(self.stores(scope), ref)
        if found is not None:
            return found
        if len(ref.strip()) < MIN_PREFIX:
            raise BadInput(
                f"no memory has the id {ref!r}, and an id prefix needs at least {MIN_PREFIX} "
                f"characters; `{listing}` shows ids"
            )
        why = why_not_found(self.stores(scope), ref)
        if why is not None:
            raise NotFound(why)
        if scope != "all":  # held by the other store, which --scope leaves out
            elsewhere = find_across(self.stores("all"), ref)
            if elsewhere is not None:
                raise NotFound(
                    f"memory {elsewhere[1].id} is in the {elsewhere[0].scope} store, and "
                    f"--scope {scope} leaves it out; run it with --scope "
                    f"{elsewhere[0].scope} (or without --scope)"
                )
        raise NotFound(f"no memory {ref!r} found; `{listing}` shows ids")

    def close(self) -> None:
        """Close every store opened by this invocation."""
        if "folder" in self.__dict__:  # never looked up: no store was opened
            self.folder.close()

    # -- output ----------------------------------------------------------------------------

    def emit(self, data: Any, render: Render | None = None, *, verdict: int = 0) -> None:
        """Print ``data`` as JSON (with --json) or call ``render`` with a console on stdout.

        ``verdict`` is the exit code the output reports (``tether check``'s failures, ``tether
        doctor``'s problems): a reader that stops reading early (``| head -1``) cuts the
        output short but does not change it (:func:`recall.cli.main.main`)."""
        self.verdict = verdict
        if self.json or render is None:
            sys.stdout.write(json_text(data) + "\n")
            return
        render(self.console())

    def console(self) -> Console:
        """A rich console on stdout, which shows control characters as escapes."""
        from recall.cli.terminal import console

        return console()

    def notice(self, message: str) -> None:
        """A one-line notice for the user, on stderr (none when there is no stderr: printing
        to ``None`` would put it on stdout, among a ``--json`` command's output). One line
        whatever it quotes: a path or an error in it may hold a line break. Each is said once
        a run: two readers of one settings file (``inject``'s trust check and its embedder)
        would otherwise say the same problem twice."""
        if message in self._said:
            return
        self._said.add(message)
        if sys.stderr is not None:
            print(f"tether: {visible(message)}", file=sys.stderr)

    @contextlib.contextmanager
    def progress(self) -> Iterator[ProgressUpdate]:
        """A progress bar on stderr, silent for --json or when stderr is not a terminal."""
        if self.json or sys.stderr is None or not sys.stderr.isatty():
            yield lambda description, completed, total: None
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
        with Progress(*columns, console=Console(stderr=True, emoji=False), transient=True) as bar:
            tasks: dict[str, Any] = {}

            def update(description: str, completed: int, total: int | None) -> None:
                if description not in tasks:
                    tasks[description] = bar.add_task(description, total=total)
                bar.update(tasks[description], completed=completed, total=total)

            yield update

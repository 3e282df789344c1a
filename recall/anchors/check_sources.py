"""The definitions ``tether check`` compares: those of a change's files at its base (read from
git) and now (the working tree), and where an anchored symbol went (:class:`Sources`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from recall.anchors.diff import Change
from recall.anchors.symbols import SymbolAnchor, leaf_of, normalize_name
from recall.anchors.unread import unread_content
from recall.genome.gitcmd import GitRunner
from recall.genome.symbols.extract import REGEX, Extracted, extract, read_file
from recall.genome.symbols.grammars import one_family
from recall.genome.symbols.model import Definition, same_code


class _Unqualified(dict[str, list[Definition]]):
    """Definitions by name as the fallback reader finds them: with no containers
    (``Widget.render`` is read as ``render``)."""


def by_name(read: Extracted | None) -> dict[str, list[Definition]]:
    """The definitions ``read`` found, by name (none for None)."""
    found: dict[str, list[Definition]] = _Unqualified() if read and read.parser == REGEX else {}
    for definition in read.definitions if read is not None else ():
        found.setdefault(definition.name, []).append(definition)
    return found


def candidates(defs: dict[str, list[Definition]], name: str) -> list[Definition]:
    """The definitions ``name`` may stand for: those of that exact name, else those whose
    qualified name ends with it (``Stop`` for ``Server.Stop``); in a file the fallback reader
    read, which knows no containers, those named as its last part (as ``remember`` and
    ``show`` find them)."""
    wanted = normalize_name(name)
    exact = defs.get(wanted, [])
    if exact:
        return exact
    if isinstance(defs, _Unqualified):
        return defs.get(leaf_of(wanted), [])
    return [d for key, ds in defs.items() if key.endswith("." + wanted) for d in ds]


def find(defs: dict[str, list[Definition]], name: str) -> Definition | None:
    """The one definition of ``name`` (None when there is none, or more than one)."""
    found = candidates(defs, name)
    return found[0] if len(found) == 1 else None


def _one(
    found: list[tuple[str, Definition]], bodies: Iterable[str | None]
) -> tuple[str, Definition] | None:
    """The one candidate with the first of ``bodies`` only one has, else the only candidate."""
    for body in bodies:
        alike = [item for item in found if body is not None and matches(body, item[1])]
        if len(alike) == 1:
            return alike[0]
    return found[0] if len(found) == 1 else None


def matches(recorded: str, definition: Definition) -> bool:
    """Whether ``recorded`` (an anchor's hash, or another definition's) is ``definition``'s."""
    return same_code(recorded, definition.body, definition.formers)


class Sources:
    """Definitions of files at the base (from git) and now (from the working tree), cached.
    ``inner`` says where a file of a submodule the change moves is shown at the base: a runner
    in the submodule and its spec there (None for any other file)."""

    def __init__(
        self,
        runner: GitRunner,
        root: Path,
        base: str,
        changes: list[Change],
        inner: Callable[[str], tuple[GitRunner, str] | None] = lambda path: None,
    ) -> None:
        self.runner, self.root, self.base, self.inner = runner, root, base, inner
        self.changes = changes
        self.by_old = {change.old: change for change in changes if change.status != "A"}
        self._then: dict[str, dict[str, list[Definition]]] = {}
        self._unread_then: dict[str, str] = {}
        self._now: dict[str, dict[str, list[Definition]]] = {}
        self._broken: dict[str, tuple[tuple[int, int], ...]] = {}
        self._leaves: set[str] | None = None
        self._untracked: list[str] | None = None

    def then(self, path: str) -> dict[str, list[Definition]]:
        """The definitions of ``path`` at the base (none when git has no such file there)."""
        if path not in self._then:
            runner, spec = self.inner(path) or (self.runner, f"{self.base}:{path}")
            status, out, _ = runner.run(["show", spec], check=False)
            self._then[path] = by_name(extract(path, out) if status == 0 else None)
            unread = unread_content(path, out) if status == 0 else None
            if unread is not None:
                self._unread_then[path] = unread
        return self._then[path]

    def unread_then(self, path: str) -> str | None:
        """Why ``path`` at the base is not read for symbols (binary, too large), None when it
        is read or git has no such file there."""
        self.then(path)
        return self._unread_then.get(path)

    def now(self, path: str) -> dict[str, list[Definition]]:
        """The definitions of ``path`` in the working tree."""
        if path not in self._now:
            full = self.root / path
            read = read_file(path, str(full)) if full.is_file() else None
            self._now[path] = by_name(read)
            if read is not None and read.syntax_errors:
                self._broken[path] = read.error_lines
        return self._now[path]

    def broken(self, path: str) -> tuple[tuple[int, int], ...]:
        """The line stretches of the syntax errors in ``path`` in the working tree (none when
        it parses, or was not read)."""
        self.now(path)
        return self._broken.get(path, ())

    def _base_leaves(self) -> set[str]:
        if self._leaves is None:
            self._leaves = {leaf_of(key) for old in self.by_old for key in self.then(old)}
        return self._leaves

    def locate(self, anchor: SymbolAnchor, follow: bool) -> tuple[Change, Definition] | None:
        """The change to the file that defined the anchored symbol at the base, and that
        definition: its own file, else (moved before the base, or repointed in the change) the
        one file the change touches that defined it (by the recorded body when several), when
        ``follow`` (it costs every changed file read at the base)."""
        change = self.by_old.get(anchor.path)
        if change is not None:
            before = find(self.then(anchor.path), anchor.name)
            if before is not None:
                return change, before
        if not follow:
            return None
        if leaf_of(normalize_name(anchor.name)) not in self._base_leaves():
            return None  # no file the change touches defined it: the cheap, usual answer
        if change is None and find(self.then(anchor.path), anchor.name) is not None:
            return None  # still in its own file, which the change leaves alone
        found = [
            (old, d)
            for old in self.by_old
            if old != anchor.path and (d := find(self.then(old), anchor.name)) is not None
        ]
        one = _one(found, [anchor.body])
        return (self.by_old[one[0]], one[1]) if one is not None else None

    def moved_to(
        self, name: str, source: str, bodies: Iterable[str | None]
    ) -> tuple[str, Definition] | None:
        """A file of the change (other than ``source``) that defines ``name`` now, and that
        definition (the one with the same body when several files do). A definition with
        none of ``bodies`` counts only when it is new there: a file that defined the name at
        the base holds another function of the same name, not the one that moved. Only a file
        of ``source``'s language family is looked at."""
        found = [
            (change.new, d)
            for change in self.changes
            if change.status != "D"
            and change.new != source
            and one_family(source, change.new)
            and (d := find(self.now(change.new), name)) is not None
        ]
        same = _one(found, bodies)
        if same is not None and any(b is not None and matches(b, same[1]) for b in bodies):
            return same
        new = [(path, d) for path, d in found if not self._base_had(path, name)]
        return _one(new, bodies) or (new[0] if new else None)

    def _base_had(self, path: str, name: str) -> bool:
        """Whether the file now at ``path`` defined ``name`` at the base (under its name then),
        once or more."""
        old = next((c.old for c in self.changes if c.new == path), path)
        defs = self.then(old)
        wanted = normalize_name(name)
        return bool(defs.get(wanted)) or any(k.endswith("." + wanted) for k in defs)

    def untracked_with(self, name: str, source: str, bodies: Iterable[str | None]) -> str | None:
        """A file git does not track yet (nor ignores) that defines ``name`` now: where a
        plain ``mv`` put ``source``, which no change lists until it is added. Only files of
        ``source``'s language family are read."""
        if self._untracked is None:
            listed = ["ls-files", "--others", "--exclude-standard", "-z"]
            status, out, _ = self.runner.run(listed, check=False)
            paths = out.decode("utf-8", "surrogateescape").split("\0") if status == 0 else []
            self._untracked = [path for path in paths if path]
        found = [
            (path, d)
            for path in self._untracked
            if one_family(source, path) and (d := find(self.now(path), name))
        ]
        one = _one(found, bodies) or (found[0] if found else None)
        return one[0] if one is not None else None

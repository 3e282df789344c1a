"""``tether check``: which memories a change affects, and which it breaks.

The change is the working tree against the merge base of a reference and HEAD (a pull
request's branch against its target, or the work in progress against HEAD). For every active
project memory it finds:

- **review**: the change modifies, moves or deletes a file the memory names, or changes the
  code of a symbol it anchors (its body at the base differs from its body now);
- **fail**: the change deletes or moves the anchored file or symbol of a *pinned* memory that
  still points at the old place (``tether repoint`` fixes it), or changes the code under a
  *guarded* memory (``guard: true``) whose recorded body hash was not confirmed anew
  (``tether confirm``, committed with the change).

Definitions at the base are read from git (``git show``), those of now from the working tree,
both with the symbol index's parser; nothing is written.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from recall.anchors.symbols import SymbolAnchor, normalize_name
from recall.errors import BadInput
from recall.genome.gitcmd import GitRunner
from recall.genome.symbols.extract import extract, read_file
from recall.genome.symbols.model import Definition
from recall.model import Memory

REVIEW = "review"
FAIL = "fail"
GUARDED = "under a guarded memory"


@dataclass(frozen=True)
class Change:
    """One file the change touches: ``status`` is git's letter (M, A, D, R…)."""

    status: str
    old: str
    new: str


@dataclass(frozen=True)
class Finding:
    """One memory the change affects, where, and why."""

    level: str
    memory: Memory
    path: str
    line: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "level": self.level,
            "id": self.memory.id,
            "category": self.memory.category,
            "summary": self.memory.summary,
            "pinned": self.memory.pinned,
            "path": self.path,
            "line": self.line,
            "reason": self.reason,
        }


@dataclass
class CheckResult:
    """Everything ``tether check`` found."""

    base: str
    changes: list[Change] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        """Whether any finding is a failure (the command exits 1)."""
        return any(f.level == FAIL for f in self.findings)


def _base(runner: GitRunner, ref: str) -> str:
    """The merge base of ``ref`` and HEAD (``ref`` itself when there is none)."""
    status, out, _ = runner.run(["merge-base", ref, "HEAD"], check=False)
    if status == 0 and out.strip():
        return out.decode().strip()
    status, out, _ = runner.run(
        ["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], check=False
    )
    if status != 0:
        raise BadInput(f"--base {ref!r} is not a commit git knows; give a branch, tag or commit")
    return out.decode().strip()


def _changes(runner: GitRunner, base: str) -> list[Change]:
    _, out, _ = runner.run(["diff", "--name-status", "-z", "-M", base, "--"])
    parts = out.decode("utf-8", "surrogateescape").split("\0")
    found: list[Change] = []
    index = 0
    while index < len(parts) and parts[index]:
        status = parts[index]
        if status[0] in "RC":
            found.append(Change(status[0], parts[index + 1], parts[index + 2]))
            index += 3
        else:
            found.append(Change(status[0], parts[index + 1], parts[index + 1]))
            index += 2
    return found


def _first_lines(runner: GitRunner, base: str) -> dict[str, int]:
    """The first changed line of each file in the new version (1 for a deletion)."""
    _, out, _ = runner.run(["diff", "-U0", "--no-color", "-M", base, "--"])
    found: dict[str, int] = {}
    current = None
    for raw in out.decode("utf-8", "surrogateescape").splitlines():
        if raw.startswith("+++ "):
            current = raw[6:] if raw.startswith("+++ b/") else None
        elif raw.startswith("@@") and current is not None and current not in found:
            new = raw.split("+", 1)[1].split(" ", 1)[0]
            found[current] = max(1, int(new.split(",", 1)[0] or 1))
    return found


def _by_name(definitions: Iterable[Definition]) -> dict[str, Definition]:
    found: dict[str, Definition] = {}
    for definition in definitions:
        found.setdefault(definition.name, definition)
    return found


class _Sources:
    """Definitions of files at the base (from git) and now (from the working tree), cached."""

    def __init__(self, runner: GitRunner, root: Path, base: str, changes: list[Change]) -> None:
        self.runner, self.root, self.base = runner, root, base
        self.changes = changes
        self._then: dict[str, dict[str, Definition]] = {}
        self._now: dict[str, dict[str, Definition]] = {}

    def then(self, path: str) -> dict[str, Definition]:
        if path not in self._then:
            status, out, _ = self.runner.run(["show", f"{self.base}:{path}"], check=False)
            self._then[path] = _by_name(extract(path, out).definitions) if status == 0 else {}
        return self._then[path]

    def moved_to(self, name: str, source: str) -> str | None:
        """A file of the change (other than ``source``) that defines ``name`` now."""
        for change in self.changes:
            found = change.status != "D" and change.new != source
            if found and _find(self.now(change.new), name) is not None:
                return change.new
        return None

    def now(self, path: str) -> dict[str, Definition]:
        if path not in self._now:
            full = self.root / path
            found = read_file(path, str(full)).definitions if full.is_file() else []
            self._now[path] = _by_name(found)
        return self._now[path]


def _find(defs: dict[str, Definition], name: str) -> Definition | None:
    wanted = normalize_name(name)
    if wanted in defs:
        return defs[wanted]
    tails = [d for key, d in defs.items() if key.endswith("." + wanted)]
    return tails[0] if len(tails) == 1 else None


def _anchor_findings(
    memory: Memory,
    anchor: SymbolAnchor,
    change: Change,
    sources: _Sources,
    guarded: bool,
    line: int,
) -> list[Finding]:
    """What the change did to one anchored symbol of ``memory`` (``line``: the first changed
    line of its file, where a symbol that left it is reported)."""
    before = _find(sources.then(anchor.path), anchor.name)
    if before is None:
        return []  # not defined there at the base: nothing this change did to it
    here = change.new if change.status != "D" else None
    after = _find(sources.now(here), anchor.name) if here else None
    name = anchor.name
    if after is None:
        moved = sources.moved_to(name, change.new)
        if moved is not None:
            reason = f"the change moves symbol {name} from {anchor.path} to {moved}"
        else:
            reason = f"the change deletes symbol {name}, anchored at {anchor.path}"
        if memory.pinned:
            fix = f"; the memory is pinned: `tether repoint {memory.id} --apply` after the move"
            return [Finding(FAIL, memory, change.new, line, reason + fix)]
        return [Finding(REVIEW, memory, change.new, line, reason)]
    found: list[Finding] = []
    if change.status == "R" and memory.pinned:
        reason = (
            f"the change moves {anchor.path} (anchored symbol {name}) to {change.new}; the "
            f"memory is pinned: `tether repoint {memory.id} --apply`"
        )
        found.append(Finding(FAIL, memory, change.new, after.start, reason))
    if after.body != before.body:
        found.append(
            Finding(REVIEW, memory, here or change.new, after.start, f"the change edits {name}")
        )
        if guarded and anchor.body != after.body:
            reason = (
                f"the change edits {name}, {GUARDED}; after checking it still "
                f"holds, `tether confirm {memory.id}` and commit the memory with the change"
            )
            found.append(Finding(FAIL, memory, here or change.new, after.start, reason))
    return found


def _file_findings(
    memory: Memory, path: str, change: Change, first: dict[str, int], guarded: bool
) -> list[Finding]:
    line = first.get(change.new, 1)
    if change.status == "D":
        reason = f"the change deletes {path}"
    elif change.status == "R":
        reason = f"the change moves {path} to {change.new}"
    elif change.status == "A":
        reason = f"the change adds {path}"
    else:
        reason = f"the change edits {path}"
    found = []
    if change.status in "DR" and memory.pinned:
        fix = f"; the memory is pinned: `tether repoint {memory.id} --apply`"
        found.append(Finding(FAIL, memory, change.new, line, reason + fix))
    else:
        found.append(Finding(REVIEW, memory, change.new, line, reason))
    if guarded and not memory.anchors:
        reason = (
            f"the change edits {path}, {GUARDED}; after checking it still holds, "
            f"`tether confirm {memory.id}` and commit the memory with the change"
        )
        found.append(Finding(FAIL, memory, change.new, line, reason))
    return found


def check(
    root: Path,
    memories: Sequence[Memory],
    ref: str,
    memory_files: dict[str, str],
) -> CheckResult:
    """What the change from ``ref``'s merge base to the working tree does to ``memories``.

    ``memory_files`` maps each memory id to its file, relative to ``root`` (a guarded memory
    confirmed in the same change is not a failure).
    """
    runner = GitRunner(root)
    base = _base(runner, ref)
    result = CheckResult(base, _changes(runner, base))
    by_old = {change.old: change for change in result.changes}
    touched_files = {change.new for change in result.changes}
    first = _first_lines(runner, base) if result.changes else {}
    sources = _Sources(runner, root, base, result.changes)
    for memory in memories:
        hit = [p for p in (*memory.files, *(a.path for a in memory.anchors)) if p in by_old]
        if not hit:
            continue
        confirmed_here = memory_files.get(memory.id) in touched_files
        guarded = memory.guard
        findings: list[Finding] = []
        for path in memory.files:
            change = by_old.get(path)
            if change is not None:
                findings += _file_findings(memory, path, change, first, guarded)
        for anchor in memory.anchors:
            change = by_old.get(anchor.path)
            if change is not None:
                line = first.get(change.new, 1)
                findings += _anchor_findings(memory, anchor, change, sources, guarded, line)
        if confirmed_here:  # the memory was confirmed in the change itself
            findings = [f for f in findings if not (f.level == FAIL and GUARDED in f.reason)]
        result.findings += _unique(_without_plain_file_reviews(findings, memory))
    return result


def _without_plain_file_reviews(findings: list[Finding], memory: Memory) -> list[Finding]:
    """Drop "the change edits FILE" for a file where the memory has a sharper finding (about
    one of its symbols, or a failure): one line per thing to look at."""
    plain = {f"the change edits {path}" for path in memory.files}
    sharper = {f.path for f in findings if f.reason not in plain}
    return [f for f in findings if not (f.reason in plain and f.path in sharper)]


def _unique(findings: list[Finding]) -> list[Finding]:
    seen: set[tuple[str, str, str]] = set()
    kept: list[Finding] = []
    for finding in findings:
        key = (finding.level, finding.path, finding.reason)
        if key not in seen:
            seen.add(key)
            kept.append(finding)
    return kept

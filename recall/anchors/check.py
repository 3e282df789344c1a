"""``tether check``: which memories a change affects, and which it breaks.

The change is the working tree against the merge base of a reference and HEAD (a pull
request's branch against its target, or the work in progress against HEAD). For every active
project memory it finds:

- **review**: the change modifies, moves or deletes a file the memory names, or changes the
  code of a symbol it anchors (its body at the base differs from its body now);
- **fail**: the change deletes or moves the anchored file or symbol of a *pinned* or *guarded*
  memory (``guard: true``) that still points at the old place (``tether repoint`` fixes it; for
  a guarded one, ``tether confirm`` in the change too), or changes the code under a guarded
  memory: an anchored symbol whose body now differs from the hash the memory recorded
  (``tether confirm`` records it anew), or, for a guard without anchors or whose anchored
  symbol is not found at the base, one of its files, unless the change sets the memory's
  ``confirmed`` key anew or writes the memory. Guards are those of the base: a memory guarded
  there that the change deletes or unguards is checked with its guard.

A file is found by any name it had: a memory naming it by a name before a rename git's history
shows counts as naming it, and a failure then says to repoint the memory (see
:mod:`recall.anchors.named_files`). An anchored symbol is followed where it went: a renamed
file, or the file of the change that defines the name (the one with the same body when several
do; one that defined the name at the base too counts only with the same body: it holds another
function of that name). For a pinned or guarded memory this holds at the base too: a symbol
moved before it (or repointed in the change) is found in the file of the change that defined it
then.

Definitions at the base are read from git (``git show``), those of now from the working tree,
both with the symbol index's parser; no memory is written.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from shlex import quote

from recall.anchors.base_guards import GuardSource, Lifted, lifted_guards, name_now
from recall.anchors.check_sources import Sources, candidates, find, matches
from recall.anchors.confirmed import confirmed_in_change
from recall.anchors.diff import Change, changes, first_lines, merge_base
from recall.anchors.findings import (
    FAIL,
    REVIEW,
    Finding,
    Suggested,
    deleted_reason,
    guard_fix,
    one_failure_per_memory,
    pinned_and_gone,
)
from recall.anchors.named_files import (
    AT_BASE,
    BEFORE_RENAME,
    ChangedNames,
    Named,
    file_findings,
)
from recall.anchors.submodules import Submodules, with_submodules
from recall.anchors.symbols import SymbolAnchor
from recall.genome.gitcmd import GitRunner
from recall.genome.symbols.model import Definition
from recall.model import Memory


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


def _anchor_findings(
    memory: Memory,
    anchor: SymbolAnchor,
    change: Change,
    before: Definition,
    sources: Sources,
    confirmed: bool,
    line: int,
) -> list[Finding]:
    """What the change did to one anchored symbol of ``memory``, defined by ``before`` at the
    base in ``change.old`` (``line``: the first changed line of that file, where a symbol that
    left it is reported)."""
    name, old = anchor.name, change.old
    here = change.new if change.status != "D" else None
    after = _found_now(sources, here, name, before)
    now_path = here if after is not None else None
    if after is None:
        moved = sources.moved_to(name, change.new, [before.body, anchor.body])
        if moved is not None:
            now_path, after = moved
    if now_path is None and here is not None and sources.broken(here):
        return [_unreadable_now(memory, anchor, here, sources.broken(here), confirmed)]
    found: list[Finding] = []
    if now_path != old:
        repointed = now_path is not None and anchor.path == now_path
        untracked: str | None = None
        close: Suggested = ()
        if now_path is None:
            reason, close = deleted_reason(anchor, old, here, sources.now(here) if here else ())
            untracked = sources.untracked_with(name, old, [before.body, anchor.body])
        elif now_path == change.new:
            reason = f"the change moves {old} (anchored symbol {name}) to {now_path}"
        else:
            reason = f"the change moves symbol {name} from {old} to {now_path}"
        where, at = change.new, line
        if now_path == change.new and after is not None:
            at = after.start
        if untracked is not None:  # moved with a plain `mv`: the move is not in the change
            reason += f"; it is found in {untracked}, a file git does not track yet"
            fix = (
                f": `git add {quote(untracked)}` so that the change holds the move, and check again"
            )
            level = FAIL if memory.pinned or (memory.guard and not confirmed) else REVIEW
            found.append(Finding(level, memory, where, at, reason, fix if level == FAIL else ""))
        elif memory.pinned and not repointed:
            fix = (
                f"; the memory is pinned: `tether repoint {memory.id} --apply` after the move"
                if now_path is not None
                # the file gone, a new anchor is in another
                else pinned_and_gone(memory, f"--anchor {quote((here or 'PATH') + '::NAME')}")
            )
            found.append(Finding(FAIL, memory, where, at, reason, fix))
        elif memory.guard and not repointed and not confirmed:
            gone = anchor.text if now_path is None else None
            fix = guard_fix(memory, moved=now_path is not None, gone=gone)
            found.append(Finding(FAIL, memory, where, at, reason, fix))
        else:
            found.append(Finding(REVIEW, memory, where, at, reason))
        found = [replace(f, close=close) for f in found]  # the names the reason gives, for JSON
    if after is not None and now_path is not None and after.body != before.body:
        reason = f"the change edits {name}"
        found.append(Finding(REVIEW, memory, now_path, after.start, reason))
        # the recorded body is what the memory was confirmed against; without one, the key
        recorded = anchor.body
        if recorded is not None and matches(recorded, before):
            recorded = before.body  # a hash of the old form that holds at the base: its code
        unconfirmed = not matches(recorded, after) if recorded is not None else not confirmed
        if memory.guard and unconfirmed:
            fix = guard_fix(memory)
            found.append(Finding(FAIL, memory, now_path, after.start, reason, fix))
    return found


def _found_now(
    sources: Sources, here: str | None, name: str, before: Definition
) -> Definition | None:
    """The definition of the anchored ``name`` in the file ``here`` now: the one the name
    stands for, or, where it now stands for several (a method of that name added to another
    type), the one of the qualified name it stood for at the base (``before``)."""
    if here is None:
        return None
    now = sources.now(here)
    return find(now, name) or (find(now, before.name) if before.name != name else None)


def _unreadable_now(
    memory: Memory,
    anchor: SymbolAnchor,
    path: str,
    errors: tuple[tuple[int, int], ...],
    confirmed: bool,
) -> Finding:
    """An anchored symbol not found in ``path``, which has syntax errors now: whether the
    change deletes it cannot be told until the file parses."""
    lines = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in errors[:4])
    lines = (
        f"line {lines}" if len(errors) == 1 and errors[0][0] == errors[0][1] else f"lines {lines}"
    )
    reason = (
        f"{anchor.name} cannot be read in {path}: the file has syntax errors ({lines}), "
        "so whether the change deletes or edits it cannot be told"
    )
    fails = memory.pinned or (memory.guard and not confirmed)
    fix = ": fix the syntax errors, then check again" if fails else ""
    return Finding(FAIL if fails else REVIEW, memory, path, errors[0][0], reason, fix)


@dataclass
class _Change:
    """What every memory is checked against: the change, and its files at the base and now."""

    runner: GitRunner
    root: Path
    base: str
    changes: list[Change]
    first: dict[str, int]
    sources: Sources
    names: ChangedNames
    subs: Submodules
    by_old: dict[str, Change] = field(default_factory=dict)
    """The changes by the name each file had at the base (an added file by its name)."""


def _memory_findings(memory: Memory, memory_file: str | None, at: _Change) -> list[Finding]:
    """What the change does to one memory (whose file is ``memory_file``), one failure at most."""
    files = at.names.named(memory)
    follow = memory.guard or memory.pinned  # where a moved symbol can fail the check
    located = {a: at.sources.locate(a, follow) for a in memory.anchors} if at.changes else {}
    lost = [a for a, where in located.items() if where is None and a.path in at.by_old]

    @cache  # asked for the submodules not here and for the files: git reads the file once
    def confirmed_now() -> bool:
        return memory.guard and confirmed_in_change(at.runner, at.root, at.base, memory_file)

    unchecked = at.subs.unchecked(memory, confirmed_now)  # in a submodule not here
    if not files and not lost and not any(located.values()):
        return unchecked
    confirmed = confirmed_now()
    spoken_for = _files_its_anchors_speak_for(located, lost)
    findings: list[Finding] = []
    for named in files:
        if (
            named.how in (AT_BASE, BEFORE_RENAME)
            and named.change.status == "M"
            and named.change.old in spoken_for
        ):
            continue  # edited, not moved or deleted: its anchored symbols say what changed
        guard_fails = memory.guard and not memory.anchors and not confirmed
        guard_fails = guard_fails and not at.names.guard_holds(named)
        findings += file_findings(memory, named, at.first, guard_fails, at.names.renamed(named))
    for anchor in lost:  # not found at the base: the whole file stands for it
        several = candidates(at.sources.then(anchor.path), anchor.name)
        why = _ambiguous_at_base(anchor, several) if len(several) > 1 else _not_at_base(anchor, at)
        guard_fails = memory.guard and not confirmed
        named = Named(anchor.path, at.by_old[anchor.path], AT_BASE)
        findings += file_findings(memory, named, at.first, guard_fails, why=why)
    for anchor, where in located.items():
        if where is not None:
            change, before = where
            line = at.first.get(change.new, 1)
            findings += _anchor_findings(
                memory, anchor, change, before, at.sources, confirmed, line
            )
    findings = _without_reviews_a_failure_says(findings + unchecked)
    findings = _unique(_without_plain_file_reviews(findings, memory))
    return one_failure_per_memory(findings)


def _files_its_anchors_speak_for(
    located: dict[SymbolAnchor, tuple[Change, Definition] | None], lost: list[SymbolAnchor]
) -> set[str]:
    """The files (by their names at the base) where the anchored symbols of a memory were
    found at the base, none of its other anchors naming them without being found: an edit
    of such a file concerns the memory only where it touches one of them (an edit elsewhere
    in the file is no review of a memory tied to one function of it). A file renamed before
    the base counts under its name there (the memory naming it by its earlier name)."""
    found = {where[0].old for where in located.values() if where is not None}
    unsure = {a.path for a, where in located.items() if where is None}
    return found - unsure - {a.path for a in lost}


def _ambiguous_at_base(anchor: SymbolAnchor, several: list[Definition]) -> str:
    """Why the whole file stands for an anchor that names several definitions at the base."""
    names = list(dict.fromkeys(d.name for d in several))
    if len(names) == 1:
        return (
            f" (anchored symbol {anchor.name} is defined {len(several)} times there at the "
            "base: so the whole file stands for it)"
        )
    listed = ", ".join(names[:4]) + (", …" if len(names) > 4 else "")
    return (
        f" (anchored symbol {anchor.name} is ambiguous there at the base ({listed}): so the "
        "whole file stands for it; anchor the qualified name to follow one of them)"
    )


def _not_at_base(anchor: SymbolAnchor, at: _Change) -> str:
    """Why the whole file stands for an anchor not found at the base: a file not read for
    symbols (binary, too large) is said as such, not as one that lacks the name."""
    unread = at.sources.unread_then(anchor.path)
    if unread is not None:
        return f" (anchored symbol {anchor.name}: {unread}, so the whole file stands for it)"
    return f" (anchored symbol {anchor.name} is not found there at the base)"


def _lifted_findings(lifted: Lifted, at: _Change) -> list[Finding]:
    """A memory guarded at the base whose guard the change lifts, checked with that guard: a
    failure says the guard is lifted in a change of its own; without one, the lift is a
    review."""
    memory, path = lifted.memory, lifted.path
    findings = _memory_findings(memory, path, at)
    fix = (
        f"; the memory is guarded at the base and the change {lifted.how} ({path}): a guard is "
        f"lifted in a change of its own, so restore it as the base has it (`git checkout "
        f"{at.base[:12]} -- {path}`), then check the code and `tether confirm {memory.id}`"
    )
    if any(f.level == FAIL for f in findings):
        return [replace(f, fix=fix) if f.level == FAIL else f for f in findings]
    reason = (
        f"the change {lifted.how}, guarded at the base: only a person lifts a guard, in a change "
        "of its own; see that it is meant"
    )
    return [Finding(REVIEW, memory, path, 1, reason), *findings]


def check(
    root: Path,
    memories: Sequence[Memory],
    ref: str,
    memory_files: dict[str, str],
    index: sqlite3.Connection | None = None,
    guards: GuardSource | None = None,
) -> CheckResult:
    """What the change from ``ref``'s merge base to the working tree does to ``memories``.

    ``memory_files`` maps each memory id to its file, relative to ``root`` (a guarded memory
    new in the change, or whose ``confirmed`` key the change sets anew, is confirmed).
    ``index`` is the project's index: its genome's renames let a memory that names a file by
    an earlier name find it (see :mod:`recall.anchors.named_files`). ``guards`` says where the
    memory files are: a memory guarded at the base whose guard the change lifts (deleted,
    unguarded, unreadable) is checked with it (see :mod:`recall.anchors.base_guards`).
    """
    runner = GitRunner(root)
    base = merge_base(runner, ref)
    subs = with_submodules(runner, root, base, changes(runner, base))
    result = CheckResult(base, subs.changes)
    first = {**first_lines(runner, base), **subs.first} if result.changes else {}
    sources = Sources(runner, root, base, result.changes, subs.base_of)
    names = ChangedNames(root, result.changes, index if result.changes else None)
    by_old = {change.old: change for change in result.changes}
    at = _Change(runner, root, base, result.changes, first, sources, names, subs, by_old)
    now_name = name_now({c.old: c.new for c in result.changes if c.status == "R"}, index)
    lifted = lifted_guards(root, base, guards, now_name) if guards is not None else []
    lifted_ids = {item.memory.id for item in lifted}
    for memory in memories:
        if memory.id not in lifted_ids:
            result.findings += _memory_findings(memory, memory_files.get(memory.id), at)
    for item in lifted:
        result.findings += _lifted_findings(item, at)
    return result


def _without_reviews_a_failure_says(findings: list[Finding]) -> list[Finding]:
    """Drop a memory's review that one of its failures at the same place says already (the
    failure is the review's reason and what to do about it): a memory the change fails is
    printed once, as the failure."""
    failures = [(f.path, f.reason) for f in findings if f.level == FAIL]

    def said(review: Finding) -> bool:
        return any(
            path == review.path
            and reason.startswith(review.reason)
            and reason[len(review.reason) :][:2] in ("", ", ", "; ", " (")
            for path, reason in failures
        )

    return [f for f in findings if f.level == FAIL or not said(f)]


def _without_plain_file_reviews(findings: list[Finding], memory: Memory) -> list[Finding]:
    """Drop "the change edits FILE" for a file where the memory has a sharper finding (about
    one of its symbols, or a failure): one line per thing to look at."""
    paths = (*memory.files, *(anchor.path for anchor in memory.anchors))
    plain = {f"the change edits {path}" for path in paths}
    sharper = {f.path for f in findings if f.reason not in plain}
    return [f for f in findings if not (f.reason in plain and f.path in sharper)]


def _unique(findings: list[Finding]) -> list[Finding]:
    seen: set[tuple[str, str, str, str]] = set()
    kept: list[Finding] = []
    for finding in findings:
        key = (finding.level, finding.path, finding.reason, finding.fix)
        if key not in seen:
            seen.add(key)
            kept.append(finding)
    return kept

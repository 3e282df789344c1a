"""``tether check [--base REF] [--format text|github]``: the memories a change affects.

For continuous integration, a pre-commit hook and pull-request review: the memories to review
(their files or anchored symbols changed), and failures, which make it exit 1 (see
:mod:`recall.anchors.check`). ``--format github`` prints workflow annotations on the changed
lines.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from recall.cli.context import CommandContext
from recall.cli.needs_git import needs_git
from recall.display import plural, visible
from recall.errors import BadInput, NotFound, TetherError
from recall.locations import InGitFolder

EXIT_FAILED = 1


def register(sub: Any) -> None:
    """Add ``check`` to the CLI's subcommands."""
    p = sub.add_parser(
        "check",
        help="the memories a change affects (for CI, pre-commit and review); exit 1 on a break",
        description=(
            "Compare the working tree with the merge base of REF and HEAD: list the memories "
            "whose files or anchored symbols change, and fail when a pinned or guarded "
            "memory's file or symbol moves or goes without a repoint, or code under a guarded "
            "memory changes without a confirm."
        ),
    )
    p.add_argument("--base", default="HEAD", metavar="REF", help="compare against (HEAD)")
    p.add_argument(
        "--format",
        choices=("text", "github"),
        default="text",
        help="text, or GitHub workflow annotations on the changed lines",
    )
    p.set_defaults(func=run_check)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


FILE_PROPERTY_KEEPS = "\t"
"""The one character :func:`visible` escapes that an annotation's ``file`` keeps as it is: a
tab only moves the cursor, and written as ``\\t`` the property names a file that does not
exist. Any other control, bidi or invisible character in a path (a file a change adds may be
named with an ESC sequence for the CI log) is written as its escape, and said on stderr."""


def _file_property(path: str) -> str:
    """``path`` as an annotation's ``file`` property: GitHub's escapes, and
    :func:`visible`'s but for :data:`FILE_PROPERTY_KEEPS`."""
    return visible(_escape_property(path), keep=FILE_PROPERTY_KEEPS)


def _unplaced_note(path: str) -> str | None:
    """What ``check --format github`` says on stderr of a ``path`` its annotations cannot
    name as it is (:func:`_file_property`); None for any other path."""
    if _file_property(path) == _escape_property(path):
        return None
    return (
        f"{path}: its name holds a character a log must not be given as it is, so its "
        "annotations name it with that character escaped, and GitHub may place them on no file"
    )


def github_line(finding: Any) -> str:
    """One workflow annotation: ``::error`` for a failure, ``::warning`` to review. The
    memory's words are made :func:`visible`; the ``file`` is the path as it is
    (:func:`_file_property`)."""
    command = "error" if finding.level == "fail" else "warning"
    memory = finding.memory
    title = visible(_escape_property(f"Tether {memory.category} {memory.id}"))
    message = visible(_escape_data(f"{memory.summary} ({finding.said})"))
    where = f"file={_file_property(finding.path)},line={finding.line}"
    return f"::{command} {where},title={title}::{message}"


def _renames_index(store: Any, memories: list[Any], ctx: CommandContext) -> Any | None:
    """The project index whose genome knows git's renames as of HEAD, for memories naming a
    file by an earlier name. The history is read whole (when never indexed) only when some
    memory names a file the working tree no longer has, the usual way a memory names a file
    by an old name: the usual check in a fresh clone reads no history. An indexed history
    lagging HEAD is caught up all the same (the commits since alone): a memory may name a
    file by a name another file took again."""
    if not store.exists or store.repo_root is None:
        return None
    from recall.genome.catch_up import catch_up

    root = store.repo_root
    gone = any(not (root / path).is_file() for memory in memories for path in memory.files)
    catch_up(store, notice=ctx.notice, rebuild=gone)
    return store.conn


def _require_work_tree(root: Path) -> None:
    """Raise :class:`BadInput` unless git finds a working tree at ``root``: the check compares
    one with the base (a folder without git, or a bare repository's store, has none). A
    repository git refuses (a worktree whose main repository moved, one owned by another
    user) raises :class:`TetherError` with git's reason: ``git init`` would not mend it."""
    from recall.gitquery import git_answer
    from recall.known_paths import GIT_TIMEOUT_S
    from recall.work_tree import git_expected

    answer, reason = git_answer(root, "rev-parse", "--is-inside-work-tree", timeout=GIT_TIMEOUT_S)
    if answer is None and git_expected(str(root)):
        raise TetherError(
            f"git could not read the repository at {root} ({reason.splitlines()[0]}); nothing "
            "was checked: fix what `git status` says there, then run tether check again"
        )
    if answer is None:  # no repository at all: a folder set up with `tether init` alone
        raise BadInput(needs_git("check", _READS, root))
    if answer.strip() != b"true":
        raise BadInput(
            f"tether check needs a git work tree to compare with the base, and git finds none "
            f"at {root}; run it in a clone with a working tree"
        )


def _removes(changes: list[Any], folder: Path, root: Path) -> bool:
    """Whether ``changes`` take files out of the store's ``folder``: a store the change
    deletes was set up, so "run `tether init`" would not be the advice."""
    if not folder.is_relative_to(root):
        return False
    prefix = folder.relative_to(root).as_posix() + "/"
    return any(change.old.startswith(prefix) for change in changes)


Unreadable = tuple[str, int, str]


def _unreadable(store: Any, root: Path) -> list[Unreadable]:
    """The memory files that cannot be loaded now, as (path from ``root``, line, problem):
    ``check`` cannot say what the change does to them, so it does not pass."""
    from recall.unloaded import skipped

    def shown(path: Path) -> str:
        return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)

    found = [(shown(p.path), p.line, p.message) for p in store.problems()]
    folder = store.folder.path
    found += [
        (shown(folder / name), 1, f"{what}, so it is never read") for name, what in skipped(folder)
    ]
    return found


def _unreadable_text(broken: Unreadable) -> str:
    """What ``check`` says on stderr of a memory file it cannot read."""
    path, line, problem = broken
    return (
        f"{path}:{line}: {problem}; tether check cannot vouch for this memory (a guard or pin "
        "in it is not applied as written): fix the file (`tether doctor` lists every one)"
    )


def _unreadable_annotation(broken: Unreadable) -> str:
    """A workflow ``::error`` on a memory file ``check`` cannot read."""
    path, line, _ = broken
    where = f"file={_file_property(path)},line={line}"
    title = _escape_property("Tether memory file")
    return f"::error {where},title={title}::{visible(_escape_data(_unreadable_text(broken)))}"


_READS = "compares a change with its base in git"
"""What check reads in git, as its refusal outside git says it (:func:`needs_git`)."""


def _masked(store: Any, findings: list[Any], ctx: CommandContext) -> list[Any]:
    """``findings`` with each memory's text as agents and scripts are given it: CI logs and
    annotations are read by many, so a credential written into a memory file is masked
    (:mod:`recall.agent_text`), and the file holding it named on stderr once."""
    from dataclasses import replace

    from recall.agent_text import file_of, for_agent, masked_note

    for memory_id in dict.fromkeys(f.memory.id for f in findings if f.memory.holds_secret):
        ctx.notice(masked_note(memory_id, file_of(store, memory_id)))
    return [replace(f, memory=for_agent(f.memory)) for f in findings]


def run_check(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Check the change against the project's memories."""
    from recall.anchors.base_guards import GuardSource
    from recall.anchors.check import check
    from recall.genome.gitcmd import GitUnavailable

    if ctx.json and args.format == "github":
        raise BadInput(
            "--format github prints GitHub workflow annotations and --json one JSON object; "
            "give one of them"
        )
    try:
        store = ctx.project(create=False)
    except InGitFolder:
        raise  # a bare repository: said as every command says it, with a clone to run in
    except NotFound as error:  # nothing to check here: a wrong place to run it, said as such
        _require_work_tree(ctx.cwd)  # what check needs is git, not `tether init`
        raise BadInput(str(error)) from None
    root = store.repo_root
    if root is None:
        raise BadInput(needs_git("check", _READS, ctx.cwd))
    _require_work_tree(root)
    # a memory file left out (a merge conflict in it) is never silent: check names each one
    # itself, once, below (:func:`_unreadable`), not also as every reading command does
    memories = store.list(status="active") if store.exists else []
    files = {}
    for memory in memories:
        path = store.path_of(memory.id)
        if path.is_relative_to(root):
            files[memory.id] = path.relative_to(root).as_posix()

    guards = None
    if store.location.memories_dir.is_relative_to(root):  # gone when the change deletes all
        folder = store.location.memories_dir.relative_to(root).as_posix()
        everyone = store.list(status=None) if store.exists else []
        guards = GuardSource(folder, everyone, store.normalize_stored)
    renames = _renames_index(store, memories, ctx)
    try:
        result = check(root, memories, args.base, files, renames, guards)
    except GitUnavailable as error:  # a file git cannot hash (a named pipe an archive held)
        raise TetherError(
            f"git could not read the change in {root} ({error}); nothing was checked: mend or "
            "remove what git names, then run tether check again"
        ) from None
    if not store.exists and not _removes(result.changes, store.location.base, root):
        ctx.say_not_set_up([store])  # never set up here: `tether init` comes first
    unreadable = _unreadable(store, root) if store.exists else []
    for broken in unreadable:
        print(visible(_unreadable_text(broken)), file=sys.stderr)
    findings = _masked(store, result.findings, ctx)
    review = [f for f in findings if f.level != "fail"]
    failures = [f for f in findings if f.level == "fail"]
    data = {
        "base": result.base,
        "files_changed": len(result.changes),
        "review": [f.to_dict() for f in review],
        "failures": [f.to_dict() for f in failures],
        "unreadable": [
            {"path": path, "line": line, "problem": problem} for path, line, problem in unreadable
        ],
    }
    verdict = EXIT_FAILED if result.failed or unreadable else 0
    if args.format == "github" and not ctx.json:
        ctx.verdict = verdict
        named = [broken[0] for broken in unreadable] + [f.path for f in [*failures, *review]]
        for path in dict.fromkeys(named):
            note = _unplaced_note(path)
            if note is not None:
                ctx.notice(note)
        for broken in unreadable:
            print(_unreadable_annotation(broken))
        for finding in [*failures, *review]:
            print(github_line(finding))
    else:

        def render(console) -> None:
            for finding in [*failures, *review]:
                mark = "FAIL  " if finding.level == "fail" else "review"
                line = (
                    f"{mark} {finding.path}:{finding.line}  {finding.memory.id} "
                    f"{finding.memory.category}: {finding.memory.summary} — {finding.said}"
                )
                console.print(visible(line), markup=False, highlight=False, soft_wrap=True)
            ids = len({f.memory.id for f in review})
            console.print(
                f"{plural(len(result.changes), 'file')} changed since {result.base[:12]}: "
                f"{plural(ids, 'memory')} to review, {plural(len(failures), 'failure')}"
                + (f", {plural(len(unreadable), 'unreadable memory file')}" if unreadable else ""),
                markup=False,
                highlight=False,
                soft_wrap=True,
            )

        ctx.emit(data, render, verdict=verdict)
    return verdict

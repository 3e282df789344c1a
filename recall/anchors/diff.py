"""The change ``tether check`` reads: git's diff of the working tree against a base, read the
same whatever the user's git configuration says."""

from __future__ import annotations

from dataclasses import dataclass

from recall.errors import BadInput
from recall.genome.gitcmd import GitRunner
from recall.genome.limits import RENAME_LIMIT

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""Git's empty tree (SHA-1): the base of a repository with no commit yet, when git cannot
name it itself."""
# Diffs read the same whatever the user's git config says (prefixes, external diff tools,
# text conversion, quoted paths, paths relative to a subdirectory, a low rename limit).
_DIFF = (
    "-c",
    "core.quotepath=off",
    "diff",
    "--no-ext-diff",
    "--no-textconv",
    "--no-relative",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--no-color",
    "-M",
    f"-l{RENAME_LIMIT}",
)


@dataclass(frozen=True)
class Change:
    """One file the change touches: ``status`` is git's letter (M, A, D, R…)."""

    status: str
    old: str
    new: str
    same: bool = False
    """A rename or copy whose content is unchanged (git's similarity 100)."""


def has_head(runner: GitRunner) -> bool:
    """Whether the repository has a commit yet."""
    status, _, _ = runner.run(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], check=False)
    return status == 0


def merge_base(runner: GitRunner, ref: str) -> str:
    """The merge base of ``ref`` and HEAD (git's empty tree for ``HEAD`` in a repository with
    no commit yet, so the first commit is checked too). Raises :class:`BadInput` when there
    is none git can see: in a shallow clone, or for unrelated histories, comparing with ``ref``
    itself would lay what ``ref`` did since on the change."""
    if ref == "HEAD" and not has_head(runner):
        status, out, _ = runner.run(["hash-object", "-t", "tree", "/dev/null"], check=False)
        return out.decode().strip() if status == 0 and out.strip() else EMPTY_TREE
    status, out, _ = runner.run(["merge-base", ref, "HEAD"], check=False)
    if status == 0 and out.strip():
        return out.decode().strip()
    status, out, _ = runner.run(
        ["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], check=False
    )
    shallow = _is_shallow(runner)
    if status != 0:
        hint = f"; {_SHALLOW}, then run it again" if shallow else ""
        raise BadInput(
            f"--base {ref!r} is not a commit git knows; give a branch, tag or commit{hint}"
        )
    if ref == "HEAD":  # the work not committed yet: HEAD is its own base
        return out.decode().strip()
    why = (
        _SHALLOW
        if shallow
        else "their histories are unrelated: give a base on this branch's history"
    )
    raise BadInput(
        f"--base {ref!r} and HEAD share no commit git can see, so what the change did cannot "
        f"be told from what {ref} did since; {why}, then run it again"
    )


_SHALLOW = (
    "this clone is shallow, so commits older than its depth are not here: fetch the history "
    "(`git fetch --unshallow`, or `fetch-depth: 0` for actions/checkout)"
)


def _is_shallow(runner: GitRunner) -> bool:
    _, out, _ = runner.run(["rev-parse", "--is-shallow-repository"], check=False)
    return out.strip() == b"true"


def changes(runner: GitRunner, *revs: str) -> list[Change]:
    """The files the working tree changes against ``revs`` (a base; or two commits, the
    change between them), renames and copies paired."""
    _, out, _ = runner.run([*_DIFF, "--name-status", "-z", *revs, "--"])
    parts = out.decode("utf-8", "surrogateescape").split("\0")
    found: list[Change] = []
    index = 0
    while index < len(parts) and parts[index]:
        status = parts[index]
        if status[0] in "RC":
            same = status[1:] == "100"
            found.append(Change(status[0], parts[index + 1], parts[index + 2], same))
            index += 3
        else:
            found.append(Change(status[0], parts[index + 1], parts[index + 1]))
            index += 2
    return found


def first_lines(runner: GitRunner, *revs: str) -> dict[str, int]:
    """The first changed line of each file in the new version (1 for a deletion), against
    ``revs`` as :func:`changes` takes them."""
    _, out, _ = runner.run([*_DIFF, "-U0", *revs, "--"])
    found: dict[str, int] = {}
    current = None
    for raw in out.decode("utf-8", "surrogateescape").splitlines():
        if raw.startswith("+++ "):
            current = raw[6:] if raw.startswith("+++ b/") else None
        elif raw.startswith("@@") and current is not None and current not in found:
            new = raw.split("+", 1)[1].split(" ", 1)[0]
            found[current] = max(1, int(new.split(",", 1)[0] or 1))
    return found

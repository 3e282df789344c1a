"""One short git query, for the few places that ask git a single question outside the genome
(whose reads go through :mod:`recall.genome.gitcmd`): its stdout, or None when it cannot say."""

from __future__ import annotations

from pathlib import Path

from recall.git_safety import SAFE_GIT_OPTIONS, with_command_options
from recall.work_tree import location_options


def git_answer(
    root: Path,
    *args: str,
    timeout: float,
    data: bytes | None = None,
    answers: tuple[int, ...] = (0,),
) -> tuple[bytes | None, str]:
    """Run ``git ARGS`` in ``root`` (fed ``data``); its stdout and '', or None and why not
    (git missing, failing, timing out, ``root`` not a repository). Paths come back unquoted
    (``core.quotepath=off``). An exit code of ``answers`` is an answer (``check-ignore``'s 1:
    nothing ignored), its stdout kept and its stderr's warnings left out."""
    import subprocess  # only when git is asked: most callers are on paths that rarely do

    try:
        done = subprocess.run(
            [
                "git",
                *location_options(str(root)),
                *SAFE_GIT_OPTIONS,
                *("-c", "core.quotepath=off"),
                *with_command_options(args),
            ],
            cwd=root,
            input=data,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as error:
        return None, str(error)
    if done.returncode in answers:
        return done.stdout, ""
    return None, done.stderr.decode("utf-8", "replace").strip() or f"exit {done.returncode}"


def silent_exit(why: str, code: int) -> bool:
    """Whether ``why`` (from :func:`git_answer`) says git exited ``code`` with nothing on
    stderr: an answer, such as ``check-ignore``'s exit 1 for "nothing ignored", not a failure."""
    return why == f"exit {code}"


def git_stdout(root: Path, *args: str, timeout: float) -> bytes | None:
    """Run ``git ARGS`` in ``root``; its stdout, or None when it cannot say (see
    :func:`git_answer`)."""
    return git_answer(root, *args, timeout=timeout)[0]

"""The ``--command`` value of ``agent-config`` and ``editor-config``: how a generated set-up
runs tether, read the same way by both."""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

from recall.errors import BadInput

TETHER_NAMES = frozenset({"tether", "tether.exe"})
"""Program names taken as tether itself, whose server needs the ``lsp`` subcommand (a wrapper
of another name is written as given: what it needs is not known here)."""


def given_command(value: str, cwd: Path, *, allow_missing: bool) -> list[str]:
    """The command a ``--command`` value names: the whole value when it is the path of a file
    (``/opt/my tools/tether``), else the value split as a shell would. A relative program path
    is made absolute (hooks and editors run elsewhere, not here). Raises :class:`BadInput` when
    the value cannot be split, or the program is not on PATH, not a file or not executable,
    unless ``allow_missing``."""
    whole = cwd / value
    if os.sep in value and whole.is_file():
        command = [value]
    else:
        try:
            command = shlex.split(value)
        except ValueError as error:
            raise BadInput(
                f"--command {value!r} cannot be read: {error}; quote it as a shell would "
                "(a path with a ' in it goes in double quotes)"
            ) from None
    if not command:
        raise BadInput("--command is empty; give the program that runs tether")
    program = command[0]
    if os.sep not in program:  # looked up on PATH, as the agent or editor will
        problem = None if shutil.which(program) else "is not on PATH"
    else:
        command[0] = os.path.abspath(cwd / program)
        problem = _file_problem(Path(command[0]))
    if problem is not None and not allow_missing:
        whole_too = f" (nor is {value!r} a file)" if len(command) > 1 and os.sep in value else ""
        raise BadInput(
            f"--command: the program {program!r} {problem}{whole_too}; give the path of the "
            "tether program (quote a command line's parts as a shell would), or add "
            "--allow-missing to write it anyway"
        )
    return command


def server_command(command: list[str]) -> tuple[list[str], str | None]:
    """``command`` as the language server's: with ``lsp`` added when the program is tether
    (or ``-m recall``) and no ``lsp`` is among its arguments, plus a note saying so (None
    when it is written as given)."""
    runs_tether = os.path.basename(command[0]) in TETHER_NAMES
    runs_module = any(command[i : i + 2] == ["-m", "recall"] for i in range(1, len(command)))
    if (runs_tether or runs_module) and "lsp" not in command[1:]:
        return [
            *command,
            "lsp",
        ], "`lsp` added: that command runs tether, the server is `tether lsp`"
    return command, None


def _file_problem(path: Path) -> str | None:
    if not os.path.lexists(path):
        return "does not exist"
    if not path.is_file():
        return "is not a file"
    return None if os.access(path, os.X_OK) else "is not executable"

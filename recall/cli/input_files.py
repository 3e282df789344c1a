"""The files commands read their input from (``tether import FILE``, ``tether recall --batch
FILE``): opened alike, relative to the folder the command runs in (``-C`` too), and said alike
when missing or unreadable, naming the file, what it should be and that ``-`` reads stdin."""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from recall.errors import BadInput


def open_input(cwd: Path, name: str, what: str, *, label: str) -> BinaryIO:
    """``name`` (relative to ``cwd``) opened for reading bytes; :class:`BadInput` naming it
    when there is no such file or it cannot be read (a folder, no permission), with ``what``
    it should be (``a JSON Lines file of ...``), and naming the argument ``label`` when
    ``name`` is empty (``cwd / ""`` would be the folder itself)."""
    if not name:
        raise BadInput(empty_input(label, what))
    try:
        return (cwd / name).open("rb")
    except OSError as error:
        raise BadInput(input_problem(name, error, what)) from None


def empty_input(label: str, what: str) -> str:
    """What to tell of the input file argument ``label`` given empty: the path of ``what``,
    or ``-`` for stdin, is what to give."""
    return f"{label} is empty; give the path of {what} (or - for stdin)"


def input_problem(name: str, error: OSError, what: str) -> str:
    """What to tell of the input file ``name`` that failed with ``error``: which file, what
    went wrong, and what to give instead: the path of ``what``, or ``-`` for stdin."""
    if isinstance(error, FileNotFoundError):
        problem = "no such file"
    else:  # a folder, no permission...
        problem = f"cannot be read ({error.strerror or error})"
    return f"{name}: {problem}; give the path of {what} (or - for stdin)"

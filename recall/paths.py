"""Normalizing the file paths a memory names: repo-relative, POSIX, inside the repository."""

from __future__ import annotations

import functools
import os
import posixpath
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from recall.display import as_given
from recall.errors import BadInput

LONGEST_PATH = 4096
"""The longest path taken, in bytes: Linux's ``PATH_MAX``; no file of a repository has a
longer one, and the message naming a longer one would be longer still."""

LONGEST_NAME = 255
"""The longest name of one folder or file in a path, in bytes: what Linux file systems take."""


def _check_text(raw: str, label: str) -> None:
    if "\x00" in raw:
        raise BadInput(f"{label} {raw!r} contains a NUL byte; give a real file path")
    try:
        size = len(raw.encode("utf-8"))
    except UnicodeEncodeError:
        raise BadInput(
            f"{label} {as_given(raw)} is not valid UTF-8; rename the file or give another path"
        ) from None
    widest = max((len(part.encode("utf-8")) for part in re.split(r"[/\\]", raw)), default=0)
    if size > LONGEST_PATH or widest > LONGEST_NAME:
        shown = f"{raw[:60]!r}..." if len(raw) > 60 else repr(raw)
        raise BadInput(
            f"{label} {shown} is longer than a file's path can be ({size:,} bytes, a name of "
            f"{widest:,}; at most {LONGEST_PATH:,} and {LONGEST_NAME}); give a file path"
        )


_URI = re.compile(r"^(file:|[A-Za-z][A-Za-z0-9+.-]+://)", re.IGNORECASE)


def _is_uri(text: str) -> bool:
    """``file:`` anything, or ``scheme://`` (a one-letter scheme is a Windows drive, not a URI)."""
    return bool(_URI.match(text))


def _from_uri(raw: str, label: str) -> str:
    try:
        parts = urlsplit(raw)
    except ValueError as error:
        raise BadInput(f"{label} {raw!r} is not a valid URI ({error})") from None
    if parts.scheme != "file":
        raise BadInput(f"{label} {raw!r} is a {parts.scheme}: URI; only file: URIs name files")
    if parts.netloc not in ("", "localhost"):
        raise BadInput(f"{label} {raw!r} names a remote host; give a local file")
    return unquote(parts.path)


@functools.lru_cache(maxsize=1024)
def _realpath(path: str) -> str:
    """realpath of a folder; folders are resolved once per process (a bulk import names many)."""
    return os.path.realpath(path)


def _resolved_inside(lexical: str) -> str:
    """Where ``lexical`` really points: its folder resolved (cached) plus the file if a symlink."""
    folder, name = posixpath.split(lexical)
    real_folder = _realpath(folder) if folder else "/"
    candidate = posixpath.join(real_folder, name)
    if os.path.islink(candidate):
        return os.path.realpath(candidate)
    return candidate


def is_inside(child: str, parent: str) -> bool:
    """Tell whether absolute normalized path ``child`` is ``parent`` or lies below it."""
    return child == parent or child.startswith(parent.rstrip("/") + "/")


def _path_text(raw: str, label: str, advice: str, *, exact: bool = False) -> str:
    """The path a user gave, stripped (kept whole when ``exact``) and out of its ``file://``
    URI, checked to be text a path can hold; an empty one is refused with ``advice``."""
    if not isinstance(raw, str) or not raw.strip():
        raise BadInput(f"{label} is empty; {advice}")
    _check_text(raw, label)
    text = raw.strip()
    if _is_uri(text):
        text = _from_uri(text, label)
        _check_text(text, label)
    elif exact:
        text = raw
    return text


def _names_an_entry(text: str, base: str) -> bool:
    """Whether ``text``, spaces and all, names something on disk from ``base``: only then is a
    path's leading or trailing space part of its name rather than a slip of the copy."""
    try:
        return os.path.lexists(text if text.startswith("/") else posixpath.join(base, text))
    except (OSError, ValueError):
        return False


def _backslash_named(given: str, base: str, root: str) -> bool:
    """Whether ``given``, a name holding a backslash, names a file with it (one on disk, or
    one git tracks): a backslash is part of a name on Linux, so only a name no file has is
    read as Windows' separator."""
    lexical = posixpath.normpath(given if given.startswith("/") else posixpath.join(base, given))
    if lexical == root or not is_inside(lexical, root):
        return False
    if os.path.lexists(lexical):
        return True
    from recall.known_paths import GIT_TIMEOUT_S, git_stdout  # only for such a name

    relative = lexical[len(root.rstrip("/")) + 1 :]
    spec = f":(literal){relative}"
    listed = git_stdout(Path(root), "ls-files", "-z", "--", spec, timeout=GIT_TIMEOUT_S)
    return bool(listed)


def refuse_spaced_new(raw: str, path: str, repo_root: Path | None, *, label: str) -> None:
    """Refuse ``raw``, typed with spaces at its ends and kept so as ``path``, when no file of
    ``repo_root`` has that name: a new memory would name a file to come by what may be a slip
    of the copy, and which name was meant is not for Tether to guess."""
    if raw == raw.strip() or repo_root is None or path == path.strip():
        return
    if os.path.lexists(posixpath.join(_realpath(str(repo_root)), path)):
        return
    raise BadInput(
        f"{label} {raw!r} begins or ends with a space and no file has that name; give "
        f"{raw.strip()!r} if the spaces are a slip (a name that really has them is taken once "
        "its file exists)"
    )


def normalize(
    raw: str,
    repo_root: Path,
    cwd: Path | None = None,
    *,
    label: str = "path",
    exact: bool = False,
    names: str = "a file or folder",
) -> str:
    """Turn a user-given path, absolute path or ``file://`` URI into a repo-relative POSIX path.

    Relative paths are taken from ``cwd`` (the repository root when not given, or when ``cwd``
    is outside it, as git takes them where its configuration moved the work tree). A path that
    resolves outside the repository, lexically or through a symlink, is rejected with
    :class:`BadInput`; so are NUL bytes, non-UTF-8 names and the repository root itself.
    Spaces at a name's ends are kept when ``exact`` (a name as Tether wrote it: a memory file,
    an exported line); a typed name drops them only when the name without them is on disk and
    the name with them is not (a slip of the copy). ``names`` is what the command takes, said
    when the path is the repository root.
    """
    advice = "give a file path inside the repository"
    given = _path_text(raw, label, advice, exact=exact)
    root = _realpath(str(repo_root))
    base = _realpath(str(cwd)) if cwd is not None else root
    if not is_inside(base, root):  # run outside a work tree git's configuration put elsewhere:
        base = root  # git takes a relative path from the work tree's top there, and so does this
    slip = given != raw and not _is_uri(raw.strip())
    if slip and (
        _names_an_entry(raw.replace("\\", "/"), base)
        or not _names_an_entry(given.replace("\\", "/"), base)
    ):
        given = raw  # a name that begins or ends with a space, and no slip for another
    named = "\\" in given and _backslash_named(given, base, root)
    text = given if named else given.replace("\\", "/")
    joined = text if text.startswith("/") else posixpath.join(base, text)
    lexical = posixpath.normpath(joined)
    if lexical.startswith("//"):
        lexical = "/" + lexical.lstrip("/")
    if not is_inside(lexical, root):
        resolved = os.path.realpath(lexical)
        if not is_inside(resolved, root):
            raise BadInput(
                f"{label} {raw!r} resolves outside the repository {root}; "
                "memories can only name files inside it"
            )
        lexical = resolved
    else:
        resolved = _resolved_inside(lexical)
        if not is_inside(resolved, root):
            raise BadInput(
                f"{label} {raw!r} leads through a symlink to {resolved}, outside the repository; "
                "name the file inside the repository instead"
            )
    # ``lexical`` is ``root`` or below it here, so the relative path is a plain slice.
    relative = "" if lexical == root else lexical[len(root.rstrip("/")) + 1 :]
    if relative in (".", ""):
        raise BadInput(f"{label} {raw!r} is the repository root; name {names} inside it")
    return relative


def normalize_loose(raw: str, *, label: str = "path") -> str:
    """Normalize a path lexically without a repository (global memories outside any repo).

    Separators become ``/``, ``./`` and duplicate slashes go; ``..`` above the start is rejected.
    Spaces at the ends are kept, there being no files to tell a slip of the copy from a name.
    """
    text = posixpath.normpath(
        _path_text(raw, label, "give a file path", exact=True).replace("\\", "/")
    )
    if text == ".." or text.startswith("../"):
        raise BadInput(f"{label} {raw!r} climbs above its starting folder; give a plain path")
    if text == ".":
        raise BadInput(f"{label} {raw!r} names no file; give a file path")
    if text.startswith("//"):
        text = "/" + text.lstrip("/")
    return text


def link_target(repo_root: Path | None, path: str) -> str:
    """The repository path an edit of ``path`` writes: ``path`` itself, or, when it is a link
    (or lies below a linked folder) leading elsewhere inside the repository, the target's.

    ``path`` comes from :func:`normalize`, which has refused any path leading outside the
    repository; a target found outside it all the same (the link changed since) gives
    ``path`` back. The hooks (an edit through a link) and ``tether recall --file`` read a
    link alike."""
    if repo_root is None:
        return path
    root = os.path.realpath(repo_root)
    real = os.path.realpath(posixpath.join(root, path))
    if real == posixpath.join(root, path) or real == root or not is_inside(real, root):
        return path
    return real[len(root.rstrip("/")) + 1 :]

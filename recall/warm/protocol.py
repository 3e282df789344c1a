"""What the warm engine and its clients share: where the socket lives, who may use it, and how
a message is framed. Imported by every ``tether inject`` and ``tether hook`` before anything
heavy, so it uses built-in modules only (``_socket`` rather than ``socket``, whose import
pulls in ``selectors`` and ``enum``; ``marshal`` rather than ``json``).

Messages are ``marshal``-ed dicts of plain values (text, bytes, numbers, lists, dicts), each
behind a 4-byte big-endian length. ``marshal`` is only ever read from a peer whose user id the
kernel vouched for (:func:`peer_is_us`): a process of the same user can do anything the engine
can anyway.
"""

from __future__ import annotations

import _socket
import marshal
import os
import sys
import time

from recall import work_tree

TYPE_CHECKING = False  # typing itself costs a hook 4 ms to import
if TYPE_CHECKING:
    from typing import Any, Final

PROTOCOL: Final = 1
"""Bumped whenever a message's shape changes: an engine and a client that disagree never talk
(the client runs the command itself)."""

MAX_MESSAGE: Final = 64 * 1024 * 1024
"""The largest message read (64 MiB): far above any hook's input or answer, small enough that
a corrupt length cannot make a reader allocate without bound."""

IN_ENGINE = [False]
"""Set in the engine process: a session-start hook it serves must not start another engine."""

AUTO_START: Final = True
"""Default of the ``warm_engine`` setting: the session-start hook starts the project's engine,
so an agent session's hooks answer warm from its first prompt on; the engine exits by itself
when idle (recall.warm.server.IDLE_EXIT_S)."""

ENV_SWITCH: Final = "TETHER_WARM"
ENV_IDLE: Final = "TETHER_WARM_IDLE"
"""Seconds an engine waits idle before it exits, overriding the default (tests use a few)."""


def disabled(environ: Any = None) -> bool:
    """Whether ``TETHER_WARM`` turns the warm engine off; a value it cannot read does too, and
    the command refuses it (``recall.env_values``). Read here by the words alone: a hook
    served warm imports nothing more than this module and the client."""
    from recall.switch_words import ON_WORDS

    word = (os.environ if environ is None else environ).get(ENV_SWITCH, "").strip().casefold()
    return bool(word) and word not in ON_WORDS


def find_root(start: str) -> str | None:
    """The folder the project of ``start`` is rooted at, resolved: the same answer as
    :func:`recall.repo.find_root`, without ``pathlib``."""
    return work_tree.find_root(start)


def home_key(environ: Any) -> tuple[str, str, str]:
    """What decides where the user's global store is (``TETHER_HOME``, else the platform's data
    folder under ``XDG_DATA_HOME`` or ``HOME``): an engine serves only requests that agree."""
    return tuple(environ.get(name, "") for name in ("TETHER_HOME", "XDG_DATA_HOME", "HOME"))  # type: ignore[return-value]


IMPORT_VARIABLES: Final = (
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONUSERBASE",
    "PYTHONNOUSERSITE",
    "PYTHONPLATLIBDIR",
    "PYTHONSAFEPATH",
)
"""Environment variables that decide, when a process starts, where its modules come from: a
client whose differ from the engine's could load other code, so it is not served."""


def import_key(environ: Any) -> tuple[str, ...]:
    """The values of :data:`IMPORT_VARIABLES` in ``environ``."""
    return tuple(environ.get(name, "") for name in IMPORT_VARIABLES)


def code_key() -> tuple[str, str, str]:
    """The interpreter, the installed package's folder and Python's version: an engine answers
    only clients running the same code (it also exits when its own files change)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return (sys.executable, os.path.realpath(package), sys.version)


def text_key() -> list[Any]:
    """How this process encodes text it reads and writes (files opened without an encoding,
    file names): an engine answers only a client that does it the same way."""
    import _locale

    try:
        codeset = _locale.nl_langinfo(_locale.CODESET)
    except (AttributeError, ValueError):
        codeset = ""
    return [codeset, sys.getfilesystemencoding(), sys.flags.utf8_mode]


def folder() -> str:
    """The per-user folder of the engines' sockets and locks: ``$XDG_RUNTIME_DIR/tether``
    when the session has one, else ``tether-UID`` in the temporary folder."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime and os.path.isabs(runtime):
        return os.path.join(runtime, "tether")
    temp = os.environ.get("TMPDIR", "") or "/tmp"
    return os.path.join(temp, f"tether-{os.getuid()}")


def private_folder(create: bool) -> str | None:
    """:func:`folder` when it is safe to use: a real folder (not a link), owned by this user,
    that nobody else can enter (mode 0700); created so when ``create``. None otherwise: a
    folder someone else could write to could hold a socket of theirs."""
    path = folder()
    if create:
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        except OSError:
            return None
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if (st.st_mode & 0o170000) != 0o040000 or st.st_uid != os.getuid():
        return None
    if st.st_mode & 0o077:
        return None
    return path


def unsafe_reason() -> str | None:
    """Why :func:`folder` cannot be used (None when it can or does not exist yet)."""
    path = folder()
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if (st.st_mode & 0o170000) != 0o040000:
        return f"{path} is not a folder"
    if st.st_uid != os.getuid():
        return f"{path} belongs to another user"
    if st.st_mode & 0o077:
        return f"{path} can be entered by other users (mode {st.st_mode & 0o777:o}; want 700)"
    return None


def project_id(root: str, environ: Any) -> str:
    """A short name for the engine of ``root`` with this global store (sockets' paths are
    limited to 108 bytes, so the root is hashed, never spelled out)."""
    from _blake2 import blake2b  # hashlib would load OpenSSL for one hash

    seed = "\0".join((root, *home_key(environ))).encode("utf-8", "surrogateescape")
    return blake2b(seed, digest_size=12).hexdigest()


def socket_path(base: str, ident: str) -> str:
    """The engine's socket in the private folder ``base``."""
    return os.path.join(base, ident + ".sock")


def idle_mark_path(base: str, ident: str) -> str:
    """Left by an engine that exited for want of requests: the session may still be going on,
    and its next hook starts the engine again (:func:`recall.warm.control.wake_after_idle`)."""
    return os.path.join(base, ident + ".idle")


def lock_path(base: str, ident: str) -> str:
    """The lock an engine holds while it runs (never two for one project)."""
    return os.path.join(base, ident + ".lock")


def peer_is_us(sock: Any) -> bool:
    """Whether the process at the other end runs as this user (``SO_PEERCRED``: the kernel's
    word, not the peer's)."""
    try:
        raw = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
    except (OSError, AttributeError):
        return False
    uid = int.from_bytes(raw[4:8], sys.byteorder)
    return uid == os.getuid()


def send(sock: Any, message: dict[str, Any]) -> None:
    """Write one message."""
    data = marshal.dumps(message)
    sock.sendall(len(data).to_bytes(4, "big") + data)


def _exactly(sock: Any, size: int, deadline: float | None) -> bytes:
    chunks: list[bytes] = []
    while size:
        if deadline is not None:  # one bound for the whole message, not for each read
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer in time")
            sock.settimeout(left)
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            raise ConnectionError("the other end closed the connection")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def receive(sock: Any, deadline: float | None = None) -> dict[str, Any]:
    """Read one message, by ``deadline`` (``time.monotonic``) when given; raises
    :class:`ConnectionError` when it is cut or not a message, :class:`TimeoutError` when late."""
    size = int.from_bytes(_exactly(sock, 4, deadline), "big")
    if size > MAX_MESSAGE:
        raise ConnectionError(f"a message of {size} bytes is larger than allowed")
    try:
        message = marshal.loads(_exactly(sock, size, deadline))
    except (EOFError, ValueError, TypeError):
        raise ConnectionError("not a message") from None
    if not isinstance(message, dict):
        raise ConnectionError("not a message")
    return message


def peer_gone(sock: Any) -> bool:
    """Whether the other end has closed the connection (read without waiting or consuming):
    a client that gave up waiting has run its command itself, and must not have it run twice."""
    timeout = sock.gettimeout()
    sock.settimeout(0.0)  # with a timeout set, Python would wait for data before the read
    try:
        return sock.recv(1, _socket.MSG_PEEK) == b""
    except (BlockingIOError, InterruptedError, TimeoutError):
        return False  # still there, nothing more to say
    except OSError:
        return True
    finally:
        sock.settimeout(timeout)


def connect(path: str, timeout: float) -> Any:
    """A connection to the engine at ``path``, checked to be this user's; raises OSError."""
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(path)
        if not peer_is_us(sock):
            raise PermissionError(f"{path}: the engine runs as another user")
    except BaseException:
        sock.close()
        raise
    return sock

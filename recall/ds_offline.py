"""Loading detect-secrets without the HTTP client it imports and Tether never lets it use.

detect-secrets imports ``requests`` at load (its plugins can ask a vendor's API whether a key
is live), which costs every writing process a fifth of a second of CPU here: a third of what
``tether remember`` or ``tether import`` spends starting. Tether never verifies a key online
(its settings have no verification filter, and a memory's text must not leave the machine), so
while detect-secrets loads, ``requests`` is a stand-in that has the names detect-secrets looks
up at load and refuses any request. A process that had already imported the real ``requests``
keeps it; one that imports it later gets the real one. Should a detect-secrets release ask
the stand-in for a name it lacks, the library is loaded again with the real ``requests``
(:func:`import_offline`): slower to start, never a write refused for it.

While detect-secrets loads, another thread's ``import requests`` would get the stand-in; nothing
in Tether imports ``requests``, so no thread of its own can.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import NoReturn

_NAMES = ("requests", "requests.exceptions")


class RequestException(OSError):
    """What the stand-in raises for any request (detect-secrets catches it as ``requests``'s
    own and reports the key as unverified)."""


class Response:
    """Named in detect-secrets' annotations, which are evaluated at load; never made."""


def _refuse(*_args: object, **_kwargs: object) -> NoReturn:
    raise RequestException("Tether never sends a memory's text to verify a key online")


def stand_in() -> ModuleType:
    """The ``requests`` stand-in: ``exceptions.RequestException``, ``Response``, and ``get``
    and ``post`` that refuse."""
    exceptions = ModuleType("requests.exceptions")
    exceptions.RequestException = RequestException  # type: ignore[attr-defined]
    module = ModuleType("requests", "stand-in while detect-secrets loads (recall.ds_offline)")
    module.exceptions = exceptions  # type: ignore[attr-defined]
    module.RequestException = RequestException  # type: ignore[attr-defined]
    module.Response = Response  # type: ignore[attr-defined]
    module.get = module.post = _refuse  # type: ignore[attr-defined]
    return module


@contextlib.contextmanager
def loading() -> Iterator[None]:
    """Import detect-secrets inside this block: ``requests`` is the stand-in while it lasts,
    unless the real one was loaded before, and is taken out of ``sys.modules`` after."""
    if "requests" in sys.modules:
        yield
        return
    module = stand_in()
    sys.modules["requests"] = module
    sys.modules["requests.exceptions"] = module.exceptions  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for name, placed in zip(_NAMES, (module, module.exceptions), strict=True):  # type: ignore[attr-defined]
            if sys.modules.get(name) is placed:
                del sys.modules[name]


def import_offline(names: Sequence[str], dependents: tuple[str, ...] = ()) -> list[ModuleType]:
    """The modules ``names``, then ``dependents`` (which import detect-secrets), imported inside
    :func:`loading`. When the stand-in lacks something a newer detect-secrets asks for at load,
    everything they loaded is forgotten and they are imported again with the real
    ``requests``."""
    wanted = [*names, *dependents]
    try:
        with loading():
            return [importlib.import_module(name) for name in wanted]
    except (ImportError, AttributeError):
        for name in [n for n in sys.modules if _loaded_by(n, ("detect_secrets", *dependents))]:
            del sys.modules[name]
        return [importlib.import_module(name) for name in wanted]


def _loaded_by(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)

"""The embedder of the semantic channel, as configured: the built-in hash-bag, or a provider's
class named by the user's own ``embedder`` setting, built once per process.

Apart from the engine so that writers (which make vectors when a memory is written) can find
the embedder without importing the ranking engine.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from recall.errors import BadInput

if TYPE_CHECKING:
    from recall.ranking.embedding import Embedder

_PROVIDERS: dict[str, Embedder] = {}
"""Provider embedders already built, by spec: a long-lived server builds each once."""


def configured_embedder(
    spec: str | None, warn: Callable[[str], None]
) -> tuple[Embedder | None, bool]:
    """(embedder, semantic on) for the ``embedder`` setting: ``(None, True)`` for the built-in
    hash-bag (the default path imports nothing more), the provider it names, or, when that
    cannot be loaded, ``(None, False)`` after saying so through ``warn``: recall then goes on
    without the semantic channel. Falling back to the hash-bag instead would overwrite the
    provider's stored vectors, to be paid for again once the provider is back.
    """
    if spec is None or spec.strip() in ("", "hash"):
        return None, True
    spec = spec.strip()
    if spec in _PROVIDERS:
        return _PROVIDERS[spec], True
    from recall.ranking.embedding import load_embedder

    try:
        embedder = _PROVIDERS[spec] = load_embedder(spec)
    except BadInput as error:
        warn(f"{error}; recall runs without its semantic channel until the setting is fixed")
        return None, False
    return embedder, True


def embedder_for(
    repo_root: Path | None, warn: Callable[[str], None]
) -> tuple[Embedder | None, bool]:
    """:func:`configured_embedder` for the ``embedder`` setting that applies to ``repo_root``."""
    from recall.settings import embedder_setting

    return configured_embedder(embedder_setting(repo_root, warn), warn)

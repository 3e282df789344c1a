"""Per-language import scanners, chosen by file suffix."""

from __future__ import annotations

from recall.genome.imports.base import Language
from recall.genome.imports.cfamily import CLanguage
from recall.genome.imports.golang import GoLanguage
from recall.genome.imports.javascript import ScriptLanguage
from recall.genome.imports.jvm import JvmLanguage
from recall.genome.imports.python import PythonLanguage
from recall.genome.imports.rust import RustLanguage

LANGUAGES: tuple[Language, ...] = (
    PythonLanguage(),
    ScriptLanguage(),
    GoLanguage(),
    RustLanguage(),
    CLanguage(),
    JvmLanguage(),
)

_BY_SUFFIX: dict[str, Language] = {
    suffix: language for language in LANGUAGES for suffix in language.suffixes
}


# Files that steer how imports resolve; a change to one may move any file's fan-in.
CONFIG_NAMES = frozenset({"go.mod", "Cargo.toml", "tsconfig.json", "jsconfig.json"})


def is_config(path: str) -> bool:
    """Tell whether ``path`` is a module or project configuration that resolution reads."""
    name = path.rpartition("/")[2]
    return name in CONFIG_NAMES or (name.startswith("tsconfig") and name.endswith(".json"))


def language_for(path: str) -> Language | None:
    """The scanner for ``path`` by its suffix, or None when no scanner reads it."""
    name = path.rpartition("/")[2]
    dot = name.rfind(".")
    if dot <= 0:
        return None
    return _BY_SUFFIX.get(name[dot:].lower())


__all__ = ["CONFIG_NAMES", "LANGUAGES", "Language", "is_config", "language_for"]

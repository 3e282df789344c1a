"""Which tree-sitter grammar reads which file, loaded on first use from its own wheel.

Each grammar ships compiled inside its PyPI package (``tree-sitter-c``…), so nothing is
fetched at run time. A grammar that is not installed or does not load is remembered as
missing, with the reason, and its files fall back to the regular-expression finder.
"""

from __future__ import annotations

import functools
import importlib
import threading
from dataclasses import dataclass
from typing import Any, Final

# Suffix → (grammar name, module, function returning the language pointer).
_GRAMMARS: Final[dict[str, tuple[str, str, str]]] = {
    ".c": ("c", "tree_sitter_c", "language"),
    ".h": ("c", "tree_sitter_c", "language"),
    ".cc": ("cpp", "tree_sitter_cpp", "language"),
    ".cpp": ("cpp", "tree_sitter_cpp", "language"),
    ".cxx": ("cpp", "tree_sitter_cpp", "language"),
    ".c++": ("cpp", "tree_sitter_cpp", "language"),
    ".hh": ("cpp", "tree_sitter_cpp", "language"),
    ".hpp": ("cpp", "tree_sitter_cpp", "language"),
    ".hxx": ("cpp", "tree_sitter_cpp", "language"),
    ".h++": ("cpp", "tree_sitter_cpp", "language"),
    ".ipp": ("cpp", "tree_sitter_cpp", "language"),
    ".inl": ("cpp", "tree_sitter_cpp", "language"),
    ".tcc": ("cpp", "tree_sitter_cpp", "language"),
    ".py": ("python", "tree_sitter_python", "language"),
    ".pyi": ("python", "tree_sitter_python", "language"),
    ".js": ("javascript", "tree_sitter_javascript", "language"),
    ".jsx": ("javascript", "tree_sitter_javascript", "language"),
    ".mjs": ("javascript", "tree_sitter_javascript", "language"),
    ".cjs": ("javascript", "tree_sitter_javascript", "language"),
    ".ts": ("typescript", "tree_sitter_typescript", "language_typescript"),
    ".mts": ("typescript", "tree_sitter_typescript", "language_typescript"),
    ".cts": ("typescript", "tree_sitter_typescript", "language_typescript"),
    ".tsx": ("tsx", "tree_sitter_typescript", "language_tsx"),
    ".go": ("go", "tree_sitter_go", "language"),
    ".rs": ("rust", "tree_sitter_rust", "language"),
    ".java": ("java", "tree_sitter_java", "language"),
}

INDENTED_GRAMMARS: Final = frozenset({"python"})
"""Grammars where indentation is syntax: a definition's hash keeps it (and its decorators), as
moving a line out of a block changes what the code does."""

# Files the regular-expression finder reads although no grammar is wired for them, and the
# language of each, as a grammar names its own.
REGEX_ONLY_LANGUAGES: Final = {".kt": "kotlin", ".kts": "kotlin", ".m": "objc", ".mm": "objc"}
REGEX_ONLY: Final = frozenset(REGEX_ONLY_LANGUAGES)


LANGUAGE_FAMILIES: Final = (
    frozenset({"c", "cpp", "objc"}),
    frozenset({"javascript", "typescript", "tsx"}),
)
"""Languages a definition can move between, each family one set; any other language is a family
of its own. C code is compiled as C++ and Objective-C and shares their headers, and JavaScript
moves into TypeScript as it is typed; a same-named function in a file of another language (a C
helper and a Python one) is another function, never the anchored one moved."""


def suffix_of(path: str) -> str:
    """The lower-cased suffix of ``path``'s file name ('' for none or a dot file)."""
    name = path.rpartition("/")[2]
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def reads(path: str) -> bool:
    """Tell whether the symbol index reads ``path`` (a grammar or the fallback knows it)."""
    suffix = suffix_of(path)
    return suffix in _GRAMMARS or suffix in REGEX_ONLY


def grammar_name(path: str) -> str | None:
    """The grammar wired for ``path``'s suffix (loaded or not), or None."""
    entry = _GRAMMARS.get(suffix_of(path))
    return entry[0] if entry else None


def language_of(path: str) -> str | None:
    """The language of ``path`` as the symbol index reads it (its grammar's name, or the
    fallback reader's language), or None for a file it does not read."""
    return grammar_name(path) or REGEX_ONLY_LANGUAGES.get(suffix_of(path))


def one_family(path: str, other: str) -> bool:
    """Whether a definition in ``path`` can move to ``other``: both files of one language, or
    of one of :data:`LANGUAGE_FAMILIES`."""
    mine, theirs = language_of(path), language_of(other)
    if mine is None or theirs is None:
        return False
    return mine == theirs or any({mine, theirs} <= family for family in LANGUAGE_FAMILIES)


@dataclass(frozen=True)
class Loaded:
    """A grammar ready to parse, or why it could not be loaded."""

    name: str
    parser: Any | None
    error: str | None = None


@functools.cache
def _language(name: str) -> tuple[Any | None, str | None]:
    """Grammar ``name`` as a tree-sitter language, loaded once per process, or why not."""
    entry = next((e for e in _GRAMMARS.values() if e[0] == name), None)
    if entry is None:
        return None, f"no grammar is wired for {name}"
    _, module_name, function = entry
    try:
        from tree_sitter import Language

        module = importlib.import_module(module_name)
        return Language(getattr(module, function)()), None
    except Exception as error:  # a missing wheel, an ABI mismatch, a broken build
        return None, f"the {name} grammar did not load ({error})"


# A tree-sitter parser is not safe to share between threads: each thread keeps its own.
_THREAD = threading.local()


def load(name: str) -> Loaded:
    """This thread's parser for grammar ``name``; never raises."""
    language, error = _language(name)
    if language is None:
        return Loaded(name, None, error)
    parsers: dict[str, Any] = _THREAD.__dict__.setdefault("parsers", {})
    parser = parsers.get(name)
    if parser is None:
        from tree_sitter import Parser

        parser = parsers[name] = Parser(language)
    return Loaded(name, parser)


def forget() -> None:
    """Load every grammar afresh on next use (after the installed grammars changed)."""
    _language.cache_clear()
    _THREAD.__dict__.pop("parsers", None)

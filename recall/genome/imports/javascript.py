"""JavaScript and TypeScript imports: ES modules, ``require`` and dynamic ``import()``.

Relative specifiers resolve like bundlers and TypeScript do: the exact file, then with each
known extension, then ``index`` files inside a folder; ``./x.js`` written in TypeScript
source also finds ``x.ts``. Bare specifiers resolve through the nearest ``tsconfig.json``
or ``jsconfig.json`` (``baseUrl`` and ``paths``); anything else is a package, not a file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from recall.genome.imports.repofiles import RepoFiles, join, parent
from recall.genome.imports.tsconfig import TsConfig, load_tsconfigs

_SPECIFIERS = re.compile(
    r"""\bfrom\s*(["'])([^"'\n]+)\1"""
    r"""|\bimport\s*(["'])([^"'\n]+)\3"""
    r"""|\b(?:require|import)\s*\(\s*(["'])([^"'\n]+)\5\s*\)"""
)
_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".json")
_JS_TO_TS = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}


def extract(text: str) -> list[str]:
    """Every quoted module specifier after ``from``, ``import``, ``require(`` or ``import(``."""
    specs = []
    for match in _SPECIFIERS.finditer(text):
        spec = match.group(2) or match.group(4) or match.group(6)
        if spec:
            specs.append(spec)
    return specs


def _candidates(base: str) -> Iterator[str]:
    yield base
    for ext in _EXTENSIONS:
        yield base + ext
    for old, news in _JS_TO_TS.items():
        if base.endswith(old):
            stem = base[: -len(old)]
            for new in news:
                yield stem + new
    for ext in _EXTENSIONS:
        yield f"{base}/index{ext}"


def resolve_file(repo: RepoFiles, base: str) -> str | None:
    """The file a specifier path ``base`` (already joined to its folder) stands for."""
    for candidate in _candidates(base):
        if candidate in repo:
            return candidate
    return None


@dataclass(frozen=True)
class ScriptContext:
    """The tree and its TypeScript/JavaScript project configurations by folder."""

    repo: RepoFiles
    configs: dict[str, TsConfig]

    def config_for(self, path: str) -> TsConfig | None:
        """The configuration of the nearest folder above ``path`` that has one."""
        folder = parent(path)
        while True:
            found = self.configs.get(folder)
            if found is not None:
                return found
            if not folder:
                return None
            folder = parent(folder)


class ScriptLanguage:
    """JavaScript and TypeScript source files."""

    name = "javascript"
    suffixes = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")

    def extract(self, text: str) -> list[str]:
        """See :func:`extract`."""
        return extract(text)

    def prepare(self, repo: RepoFiles, specs: Mapping[str, Sequence[str]]) -> ScriptContext:
        """Read every ``tsconfig.json``/``jsconfig.json`` of the tree."""
        return ScriptContext(repo, load_tsconfigs(repo))

    def resolve(self, path: str, specs: Sequence[str], context: ScriptContext) -> set[str]:
        """Repository files named by relative specifiers or by configured path mappings."""
        repo = context.repo
        found: set[str] = set()
        folder = parent(path)
        config: TsConfig | None = None
        looked_up = False
        for spec in specs:
            if spec.startswith(("./", "../")) or spec in (".", ".."):
                base = join(folder, spec)
                target = resolve_file(repo, base) if base is not None else None
            else:
                if not looked_up:
                    config, looked_up = context.config_for(path), True
                target = None
                if config is not None:
                    for base in config.candidates(spec):
                        target = resolve_file(repo, base)
                        if target:
                            break
            if target and target != path:
                found.add(target)
        return found

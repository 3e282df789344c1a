"""Go imports, resolved through the module paths declared in ``go.mod`` files.

Importing a Go package imports every file of it, so each non-test ``.go`` file of the
package's folder counts the importer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from recall.genome.imports.repofiles import RepoFiles, join, parent
from recall.genome.limits import MAX_PACKAGE_FILES

_BLOCK = re.compile(r"^\s*import\s*\(([^)]*)\)", re.MULTILINE)
_SINGLE = re.compile(r"""^\s*import\s+(?:[\w.]+\s+)?["`]([^"`\n]+)["`]""", re.MULTILINE)
_QUOTED = re.compile(r"""["`]([^"`\n]+)["`]""")
_MODULE = re.compile(r"""^\s*module\s+["`]?([^\s"`]+)["`]?""", re.MULTILINE)
_LINE_COMMENT = re.compile(r"//[^\n]*")


def extract(text: str) -> list[str]:
    """Import paths of single imports and of parenthesized import blocks."""
    specs = [m.group(1) for m in _SINGLE.finditer(text)]
    for block in _BLOCK.finditer(text):
        specs.extend(_QUOTED.findall(_LINE_COMMENT.sub("", block.group(1))))
    return specs


@dataclass(frozen=True)
class GoContext:
    """The tree and its modules, longest module path first."""

    repo: RepoFiles
    modules: tuple[tuple[str, str], ...]

    def package_dir(self, spec: str) -> str | None:
        """The folder of the repository package ``spec`` names, if one of our modules has it."""
        for module, folder in self.modules:
            if spec == module:
                return folder
            if spec.startswith(module + "/"):
                return join(folder, spec[len(module) + 1 :])
        return None


def _package_files(repo: RepoFiles, folder: str) -> list[str]:
    return [
        path
        for path in repo.in_dir(folder)
        if path.endswith(".go") and not path.endswith("_test.go")
    ]


class GoLanguage:
    """Go source files."""

    name = "go"
    suffixes = (".go",)

    def extract(self, text: str) -> list[str]:
        """See :func:`extract`."""
        return extract(text)

    def prepare(self, repo: RepoFiles, specs: Mapping[str, Sequence[str]]) -> GoContext:
        """Read the module path of every ``go.mod``."""
        modules = []
        for gomod in repo.named("go.mod"):
            text = repo.read_text(gomod)
            match = _MODULE.search(text) if text else None
            if match:
                modules.append((match.group(1), parent(gomod)))
        modules.sort(key=lambda item: len(item[0]), reverse=True)
        return GoContext(repo, tuple(modules))

    def resolve(self, path: str, specs: Sequence[str], context: GoContext) -> set[str]:
        """Every file of each imported package that lives in this repository."""
        found: set[str] = set()
        for spec in specs:
            folder = context.package_dir(spec)
            if folder is None:
                continue
            files = _package_files(context.repo, folder)
            if len(files) <= MAX_PACKAGE_FILES:
                found.update(files)
        found.discard(path)
        return found

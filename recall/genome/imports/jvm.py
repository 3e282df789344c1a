"""Java and Kotlin imports, resolved through the ``package`` each file declares.

A file ``Foo.java`` (or ``Foo.kt``) declaring ``package a.b`` provides ``a.b.Foo``; the
declaration is read from the file rather than guessed from its folder, since Kotlin does
not require the two to match. ``import a.b.*`` counts every file of the package.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from recall.genome.imports.repofiles import RepoFiles
from recall.genome.limits import MAX_PACKAGE_FILES

_PACKAGE = re.compile(r"^[ \t]*package[ \t]+([\w.]+)", re.MULTILINE)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+(?:static[ \t]+)?([\w.]+)(\.\*)?", re.MULTILINE)
_COMMENTS = re.compile(r"/\*.*?\*/", re.DOTALL)


def extract(text: str) -> list[str]:
    """``p:<package>`` for the declaration, ``i:<name>`` per import, ``w:<name>`` per
    wildcard import."""
    text = _COMMENTS.sub("", text)
    specs = []
    package = _PACKAGE.search(text)
    if package:
        specs.append(f"p:{package.group(1)}")
    for name, star in _IMPORT.findall(text):
        specs.append(f"{'w' if star else 'i'}:{name}")
    return specs


@dataclass(frozen=True)
class JvmContext:
    """Fully qualified type names and packages, mapped to the files declaring them."""

    types: dict[str, str]
    packages: dict[str, list[str]]


class JvmLanguage:
    """Java and Kotlin sources."""

    name = "jvm"
    suffixes = (".java", ".kt", ".kts")

    def extract(self, text: str) -> list[str]:
        """See :func:`extract`."""
        return extract(text)

    def prepare(self, repo: RepoFiles, specs: Mapping[str, Sequence[str]]) -> JvmContext:
        """Map ``package.FileStem`` and each package to the files that declare them."""
        types: dict[str, str] = {}
        packages: dict[str, list[str]] = {}
        for path in sorted(specs):
            package = next((s[2:] for s in specs[path] if s.startswith("p:")), "")
            stem = path.rpartition("/")[2].rpartition(".")[0]
            types.setdefault(f"{package}.{stem}" if package else stem, path)
            packages.setdefault(package, []).append(path)
        return JvmContext(types, packages)

    def resolve(self, path: str, specs: Sequence[str], context: JvmContext) -> set[str]:
        """The file of each imported type (or of its outer type), every file of a wildcard
        package."""
        found: set[str] = set()
        for spec in specs:
            kind, _, name = spec.partition(":")
            if kind == "p":
                continue
            if kind == "w":
                members = context.packages.get(name)
                if members and len(members) <= MAX_PACKAGE_FILES:
                    found.update(members)
                    continue
            parts = name.split(".")
            while len(parts) >= 2:
                target = context.types.get(".".join(parts))
                if target:
                    found.add(target)
                    break
                parts.pop()
        found.discard(path)
        return found

"""Python imports: ``import a.b`` and ``from .x import y``, resolved to modules and packages.

Absolute imports are looked up from the source roots (the repository top, and the folder
above every top-level package), and from the importing file's own folder when that folder
is not a package (how scripts and pytest test folders import their neighbours).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from recall.genome.imports.repofiles import RepoFiles, parent

_IMPORT = re.compile(r"import\s+(.+)", re.DOTALL)
_FROM = re.compile(r"from\s+(\.*)\s*([\w.]*)\s+import\s+(.+)", re.DOTALL)
_NAME = re.compile(r"[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*|\*")
_TRIPLE = re.compile(r"\"\"\"|'''")
_MODULE_FILES = (".py", "/__init__.py", ".pyi", "/__init__.pyi")


def _statements(text: str) -> Iterable[str]:
    """Logical lines starting with ``import``/``from``, outside triple-quoted strings."""
    in_string: str | None = None
    pending = ""
    depth = 0
    for line in text.splitlines():
        if pending:
            pending += " " + line.split("#", 1)[0]
            depth += line.count("(") - line.count(")")
            if depth <= 0 and not pending.endswith("\\"):
                yield pending
                pending = ""
            else:
                pending = pending.rstrip("\\")
            continue
        for quote in _TRIPLE.findall(line):
            if in_string is None:
                in_string = quote
            elif quote == in_string:
                in_string = None
        if in_string is not None:
            continue
        stripped = line.strip()
        if not stripped.startswith(("import ", "from ", "import\t", "from\t")):
            continue
        body = stripped.split("#", 1)[0].split(";", 1)[0].rstrip()
        depth = body.count("(") - body.count(")")
        if depth > 0 or body.endswith("\\"):
            pending = body.rstrip("\\")
            continue
        yield body


def _names(clause: str) -> list[str]:
    clause = clause.replace("(", " ").replace(")", " ")
    found = []
    for part in clause.split(","):
        part = part.strip()
        if not part:
            continue
        match = _NAME.match(part)
        if match:
            found.append(re.sub(r"\s+", "", match.group(0)))
    return found


def extract(text: str) -> list[str]:
    """Specifiers ``i:<module>`` for ``import`` and ``f:<dots><module>:<n1,n2>`` for ``from``."""
    specs: list[str] = []
    if "import" not in text:
        return specs
    for statement in _statements(text):
        if statement.startswith("from"):
            match = _FROM.match(statement)
            if match:
                dots, module, clause = match.groups()
                names = _names(clause)
                specs.append(f"f:{dots}{module}:{','.join(names)}")
        else:
            match = _IMPORT.match(statement)
            if match:
                specs.extend(f"i:{name}" for name in _names(match.group(1)) if name != "*")
    return specs


@dataclass(frozen=True)
class PythonContext:
    """The tree and its source roots."""

    repo: RepoFiles
    roots: tuple[str, ...]


def _module_file(repo: RepoFiles, base: str, dotted: str) -> str | None:
    stem = dotted.replace(".", "/")
    if base:
        stem = f"{base}/{stem}" if stem else base
    if not stem:
        return None
    for ending in _MODULE_FILES:
        candidate = stem + ending
        if candidate in repo:
            return candidate
    return None


def _is_package(repo: RepoFiles, folder: str) -> bool:
    return bool(folder) and (f"{folder}/__init__.py" in repo or f"{folder}/__init__.pyi" in repo)


class PythonLanguage:
    """Python: ``.py`` and ``.pyi`` files."""

    name = "python"
    suffixes = (".py", ".pyi")

    def extract(self, text: str) -> list[str]:
        """See :func:`extract`."""
        return extract(text)

    def prepare(self, repo: RepoFiles, specs: Mapping[str, Sequence[str]]) -> PythonContext:
        """Find the source roots: the top, and the parent of every top-level package."""
        roots = {""}
        for init in repo.named("__init__.py"):
            package = parent(init)
            above = parent(package)
            if package and not _is_package(repo, above):
                roots.add(above)
        return PythonContext(repo, tuple(sorted(roots, key=lambda r: (r.count("/"), r))))

    def _absolute(self, path: str, dotted: str, ctx: PythonContext) -> str | None:
        folder = parent(path)
        bases = ctx.roots if _is_package(ctx.repo, folder) else (folder, *ctx.roots)
        for base in bases:
            found = _module_file(ctx.repo, base, dotted)
            if found is not None:
                return found
        return None

    def _relative_base(self, path: str, level: int) -> str | None:
        folder = parent(path)
        for _ in range(level - 1):
            if not folder:
                return None
            folder = parent(folder)
        return folder

    def resolve(self, path: str, specs: Sequence[str], context: PythonContext) -> set[str]:
        """Module files for ``import``; for ``from``, the submodule named if it is one, else
        the module imported from."""
        found: set[str] = set()
        repo = context.repo
        for spec in specs:
            kind, _, rest = spec.partition(":")
            if kind == "i":
                target = self._absolute(path, rest, context)
                if target:
                    found.add(target)
                continue
            module, _, names = rest.partition(":")
            dotted = module.lstrip(".")
            level = len(module) - len(dotted)
            if level:
                base = self._relative_base(path, level)
                if base is None:
                    continue
                module_file = _module_file(repo, base, dotted) if dotted else None
                if not dotted and _is_package(repo, base):
                    module_file = _module_file(repo, base, "")
                for name in names.split(","):
                    if name and name != "*":
                        sub = _module_file(repo, base, f"{dotted}.{name}" if dotted else name)
                        if sub:
                            found.add(sub)
                            continue
                    if module_file:
                        found.add(module_file)
                continue
            module_file = self._absolute(path, dotted, context)
            for name in names.split(","):
                if name and name != "*":
                    sub = self._absolute(path, f"{dotted}.{name}", context)
                    if sub:
                        found.add(sub)
                        continue
                if module_file:
                    found.add(module_file)
        return found

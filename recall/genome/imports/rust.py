"""Rust: ``mod name;`` declarations and ``use`` paths into the crate or a workspace crate.

A ``use`` path resolves to the file of its longest prefix that is a module, so
``use crate::net::tcp::Listener`` counts ``src/net/tcp.rs`` (or ``src/net/tcp/mod.rs``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from recall.genome.imports.repofiles import RepoFiles, join, parent

_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
_MOD = re.compile(
    r'(?:#\[path\s*=\s*"([^"]+)"\]\s*)?(?<![\w.:])(?:pub(?:\s*\([^)]*\))?\s+)?mod\s+(?:r#)?(\w+)\s*;'
)
_USE = re.compile(r"(?<![\w.:])use\s+([^;{]*(?:\{[^;]*\})?[^;]*);")
_ALIAS = re.compile(r"\s+as\s+\w+")
_PACKAGE_NAME = re.compile(
    r"^\[package\][^\[]*?^\s*name\s*=\s*\"([^\"]+)\"", re.MULTILINE | re.DOTALL
)
_ROOT_FILES = ("lib.rs", "main.rs")


def _split_top(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return [part for part in parts if part]


def expand_use(tree: str) -> list[str]:
    """Flatten a use tree: ``a::{b, c::{d, self}}`` → ``a::b``, ``a::c::d``, ``a::c``."""
    tree = re.sub(r"\s+", "", _ALIAS.sub("", tree)).removeprefix("::")
    brace = tree.find("{")
    if brace < 0:
        path = tree.removesuffix("::*")
        return [path] if path and path != "*" else []
    prefix = tree[:brace]
    inner = tree[brace + 1 : tree.rfind("}")]
    found = []
    for part in _split_top(inner):
        for sub in expand_use(part):
            found.append(prefix.removesuffix("::") if sub == "self" else prefix + sub)
    return found


def extract(text: str) -> list[str]:
    """``m:<name>`` per module declaration (``p:<path>`` with a path attribute) and
    ``u:<path>`` per flattened use path."""
    text = _COMMENTS.sub("", text)
    specs = []
    for match in _MOD.finditer(text):
        specs.append(f"p:{match.group(1)}" if match.group(1) else f"m:{match.group(2)}")
    for match in _USE.finditer(text):
        specs.extend(f"u:{path}" for path in expand_use(match.group(1)))
    return specs


@dataclass(frozen=True)
class Crate:
    """Where a crate's modules live and which file is its root."""

    src: str
    root_file: str | None


@dataclass(frozen=True)
class RustContext:
    """The tree, its crates by folder and the workspace crates by name."""

    repo: RepoFiles
    crates: dict[str, Crate]
    by_name: dict[str, Crate]

    def crate_of(self, path: str) -> Crate:
        """The crate whose source folder holds ``path``.

        A file of a package outside its ``src`` (tests, examples, build scripts) is the root
        of its own crate; without any ``Cargo.toml`` the nearest ``lib.rs``/``main.rs`` marks
        the crate.
        """
        probe = parent(path)
        while True:
            crate = self.crates.get(probe)
            if crate is not None:
                return crate if path.startswith(crate.src + "/") else Crate(parent(path), path)
            if not probe:
                break
            probe = parent(probe)
        probe = parent(path)
        while True:
            for root in _ROOT_FILES:
                candidate = f"{probe}/{root}" if probe else root
                if candidate in self.repo:
                    return Crate(probe, candidate)
            if not probe:
                return Crate(parent(path), path)
            probe = parent(probe)


def _module_path(path: str, crate: Crate) -> list[str]:
    if path == crate.root_file:
        return []
    relative = path[len(crate.src) + 1 :] if crate.src else path
    relative = relative.removesuffix(".rs").removesuffix("/mod")
    return relative.split("/") if relative and relative != "mod" else []


def _module_file(repo: RepoFiles, crate: Crate, segments: Sequence[str]) -> str | None:
    if not segments:
        return crate.root_file
    stem = "/".join(segments)
    stem = f"{crate.src}/{stem}" if crate.src else stem
    for candidate in (stem + ".rs", stem + "/mod.rs"):
        if candidate in repo:
            return candidate
    return None


class RustLanguage:
    """Rust source files."""

    name = "rust"
    suffixes = (".rs",)

    def extract(self, text: str) -> list[str]:
        """See :func:`extract`."""
        return extract(text)

    def prepare(self, repo: RepoFiles, specs: Mapping[str, Sequence[str]]) -> RustContext:
        """Find each crate (``Cargo.toml`` + ``src``) and the names workspace crates go by."""
        crates: dict[str, Crate] = {}
        by_name: dict[str, Crate] = {}
        for manifest in repo.named("Cargo.toml"):
            folder = parent(manifest)
            src = f"{folder}/src" if folder else "src"
            root = next((f"{src}/{r}" for r in _ROOT_FILES if f"{src}/{r}" in repo), None)
            crate = Crate(src, root)
            crates[folder] = crate
            text = repo.read_text(manifest)
            match = _PACKAGE_NAME.search(text) if text else None
            if match:
                by_name[match.group(1).replace("-", "_")] = crate
        return RustContext(repo, crates, by_name)

    def resolve(self, path: str, specs: Sequence[str], context: RustContext) -> set[str]:
        """Files of declared modules and of the modules ``use`` paths reach into."""
        repo = context.repo
        crate = context.crate_of(path)
        here = _module_path(path, crate)
        name = path.rpartition("/")[2]
        own_dir = (
            parent(path)
            if name in ("mod.rs", *_ROOT_FILES) or path == crate.root_file
            else path[:-3]
        )
        found: set[str] = set()
        for spec in specs:
            kind, _, value = spec.partition(":")
            target: str | None = None
            if kind == "m":
                for candidate in (f"{value}.rs", f"{value}/mod.rs"):
                    joined = join(own_dir, candidate)
                    if joined in repo:
                        target = joined
                        break
            elif kind == "p":
                target = join(parent(path), value)
            else:
                target = self._use_target(repo, context, crate, here, value.split("::"))
            if target and target in repo and target != path:
                found.add(target)
        return found

    def _use_target(
        self,
        repo: RepoFiles,
        context: RustContext,
        crate: Crate,
        here: list[str],
        segments: list[str],
    ) -> str | None:
        head = segments[0]
        if head == "crate":
            base, rest = [], segments[1:]
        elif head == "self":
            base, rest = here, segments[1:]
        elif head == "super":
            ups = 0
            while ups < len(segments) and segments[ups] == "super":
                ups += 1
            if ups > len(here):
                return None
            base, rest = here[: len(here) - ups], segments[ups:]
        elif head in context.by_name:
            crate, base, rest = context.by_name[head], [], segments[1:]
        else:
            base, rest = here, segments
            for k in range(len(rest), 0, -1):
                found = _module_file(repo, crate, [*base, *rest[:k]])
                if found:
                    return found
            return None
        for k in range(len(rest), -1, -1):
            found = _module_file(repo, crate, [*base, *rest[:k]])
            if found:
                return found
        return None

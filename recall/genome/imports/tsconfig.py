"""TypeScript project configuration: ``baseUrl`` and ``paths`` from ``tsconfig.json``.

The files are JSON with comments and trailing commas. ``extends`` is followed when it names
another file of the repository; configurations from npm packages are out of reach.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from recall.genome.imports.repofiles import RepoFiles, join, parent

CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")

# Chains of ``extends`` deeper than this are cycles or machinery, not configuration.
MAX_EXTENDS_DEPTH = 8

_COMMENTS = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', re.DOTALL)
_TRAILING_COMMAS = re.compile(r'("(?:\\.|[^"\\])*")|,(\s*[}\]])')


def parse_jsonc(text: str) -> object:
    """Parse JSON that may hold comments and trailing commas; raises ValueError if broken."""
    text = _COMMENTS.sub(lambda m: m.group(1) or "", text)
    text = _TRAILING_COMMAS.sub(lambda m: m.group(1) or m.group(2), text)
    return json.loads(text)


@dataclass(frozen=True)
class TsConfig:
    """The module resolution settings in force for one project folder."""

    base_url: str | None
    paths_base: str
    paths: dict[str, list[str]] = field(default_factory=dict)

    def candidates(self, spec: str) -> Iterator[str]:
        """Repo-relative bases a bare specifier may stand for, best first.

        Like TypeScript, the ``paths`` pattern with the longest prefix before its ``*`` wins;
        ``baseUrl`` is tried after it.
        """
        best: tuple[int, str, list[str]] | None = None
        for pattern, targets in self.paths.items():
            star = pattern.find("*")
            if star < 0:
                if pattern == spec:
                    best = (len(pattern) + 1, "", targets)
                    break
                continue
            prefix, suffix = pattern[:star], pattern[star + 1 :]
            if (
                spec.startswith(prefix)
                and spec.endswith(suffix)
                and len(spec) >= len(prefix) + len(suffix)
                and (best is None or len(prefix) > best[0])
            ):
                best = (len(prefix), spec[len(prefix) : len(spec) - len(suffix)], targets)
        if best is not None:
            for target in best[2]:
                base = join(self.paths_base, target.replace("*", best[1], 1))
                if base is not None:
                    yield base
        if self.base_url is not None:
            base = join(self.base_url, spec)
            if base is not None:
                yield base


def _compiler_options(
    repo: RepoFiles, path: str, depth: int = 0
) -> tuple[str | None, str | None, dict[str, list[str]]]:
    """(baseUrl, folder ``paths`` are relative to, paths) of one config, following extends."""
    text = repo.read_text(path)
    if text is None or depth > MAX_EXTENDS_DEPTH:
        return None, None, {}
    try:
        data = parse_jsonc(text)
    except ValueError:
        return None, None, {}
    if not isinstance(data, dict):
        return None, None, {}
    folder = parent(path)
    base_url: str | None = None
    paths_base: str | None = None
    paths: dict[str, list[str]] = {}
    extends = data.get("extends")
    for parent_config in extends if isinstance(extends, list) else [extends]:
        if isinstance(parent_config, str) and parent_config.startswith(("./", "../")):
            target = join(folder, parent_config)
            if target is not None and not target.endswith(".json"):
                target += ".json"
            if target is not None:
                inherited = _compiler_options(repo, target, depth + 1)
                if inherited[0] is not None:
                    base_url = inherited[0]
                if inherited[2]:
                    paths_base, paths = inherited[1], inherited[2]
    options = data.get("compilerOptions")
    if isinstance(options, dict):
        raw_base = options.get("baseUrl")
        if isinstance(raw_base, str):
            base_url = join(folder, raw_base)
        raw_paths = options.get("paths")
        if isinstance(raw_paths, dict):
            paths = {
                key: [t for t in value if isinstance(t, str)]
                for key, value in raw_paths.items()
                if isinstance(key, str) and isinstance(value, list)
            }
            paths_base = None
    if paths and paths_base is None:
        paths_base = base_url if base_url is not None else folder
    return base_url, paths_base, paths


def load_tsconfigs(repo: RepoFiles) -> dict[str, TsConfig]:
    """Each folder holding a ``tsconfig.json`` (or ``jsconfig.json``) → its settings."""
    configs: dict[str, TsConfig] = {}
    for name in CONFIG_NAMES:
        for path in repo.named(name):
            folder = parent(path)
            if folder in configs:
                continue
            base_url, paths_base, paths = _compiler_options(repo, path)
            configs[folder] = TsConfig(base_url, paths_base or folder, paths)
    return configs

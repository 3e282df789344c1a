"""Fan-in: how many files of the repository import each file."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from recall.genome.imports import LANGUAGES, language_for
from recall.genome.imports.repofiles import RepoFiles


def count_fan_in(repo: RepoFiles, specs: Mapping[str, Sequence[str]]) -> tuple[Counter[str], int]:
    """Resolve every file's import specifiers against ``repo``; return importers per file
    and the number of import edges.

    A file importing another several times, or through several specifiers, counts once;
    a file never counts as importing itself.
    """
    grouped: dict[str, dict[str, Sequence[str]]] = {language.name: {} for language in LANGUAGES}
    for path, file_specs in specs.items():
        language = language_for(path)
        if language is not None and file_specs:
            grouped[language.name][path] = file_specs
    fan_in: Counter[str] = Counter()
    edges = 0
    for language in LANGUAGES:
        members = grouped[language.name]
        if not members:
            continue
        context = language.prepare(repo, members)
        for path, file_specs in members.items():
            targets = set(language.resolve(path, file_specs, context))
            targets.discard(path)
            fan_in.update(targets)
            edges += len(targets)
    return fan_in, edges

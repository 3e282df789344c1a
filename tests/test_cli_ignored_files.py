"""A memory on a file git ignores (a generated one) or does not track yet (a link added since
the last index): ``tether recall --file`` recalls it, and ``tether show`` and ``tether doctor``
take the file as there, as it is on disk, whenever the index last read the tree."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from conftest import CliResult, git

Cli = Callable[..., CliResult]


def _remember(cli: Cli, summary: str, path: str) -> str:
    done = cli("remember", summary, "-c", "gotcha", "-f", path, "--json")
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def _recalled(cli: Cli, path: str) -> list[str]:
    done = cli("recall", "-f", path, "--no-record", "--json")
    assert done.code in (0, 1), done.stderr
    return [hit["id"] for hit in done.json()["results"]]


def _files_now(cli: Cli, memory_id: str) -> dict[str, str]:
    shown = cli("show", memory_id, "--json")
    assert shown.code == 0, shown.stderr
    return dict(json.loads(shown.stdout)["files_now"])


def _doctor(cli: Cli) -> CliResult:
    done = cli("doctor")
    assert done.code == 0, done.stdout + done.stderr
    return done


def test_a_memory_on_an_ignored_file_is_recalled_and_its_file_is_not_gone(
    cli: Cli, repo: Path
) -> None:
    (repo / ".gitignore").write_text("build/\n", encoding="utf-8")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-qm", "ignore the build folder")
    (repo / "build").mkdir()
    (repo / "build" / "gen.py").write_text("generated = 1\n", encoding="utf-8")
    assert cli("index").code == 0  # the tree read with the file there, ignored
    memory_id = _remember(cli, "generated file: edit the template", "build/gen.py")

    assert _recalled(cli, "build/gen.py") == [memory_id]
    assert _files_now(cli, memory_id) == {}
    assert "No problems found." in _doctor(cli).stdout
    assert cli("list", "--file", "build/gen.py").stdout.startswith(memory_id)


def test_an_untracked_link_added_since_the_index_is_recalled_at_once(cli: Cli, repo: Path) -> None:
    assert cli("init").code == 0
    assert cli("index").code == 0
    os.symlink("src/app.py", repo / "link.py")  # newer than the index, its target older
    memory_id = _remember(cli, "the link is what the launcher imports", "link.py")

    assert _recalled(cli, "link.py") == [memory_id]
    assert _files_now(cli, memory_id) == {}
    assert "No problems found." in _doctor(cli).stdout

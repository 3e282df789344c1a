"""A cloned repository is untrusted input: its settings may lower ``distill_max`` (the most
memories one distill proposes) but not raise it above its default, as every proposal is a
pending memory someone must review. The user's own ``config.toml`` may set any valid value."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import CliResult

from recall.distill_words import MAX_PER_SESSION
from recall.settings import engine_settings, user_config_path

from .conftest import History
from .test_cli import write_config, write_user_config

Cli = Callable[..., CliResult]

RAISED = 1_000_000_000


def _refusal(path: Path, line: int, key: str = "distill_max") -> str:
    """The warning for a repository file raising ``distill_max`` to :data:`RAISED`."""
    return (
        f"{path}:{line}: {key} = {RAISED} not taken: a repository's settings may lower it but "
        f"not raise it above its default ({MAX_PER_SESSION}): raising it costs your machine or "
        f"your attention, which a cloned repository must not decide; to use {RAISED}, set "
        f"distill_max in your own {user_config_path()}"
    )


def _commit_gotchas(history: History, count: int) -> str:
    """``count`` commits that each carry a gotcha, in a file of their own; the commit before."""
    start = history.head()
    for number in range(count):
        history.commit(f"Never call flush{number}() from the signal handler", f"src/f{number}.py")
    return start


def test_a_repository_cannot_raise_the_cap_of_tether_distill(cli: Cli, history: History) -> None:
    write_config(history, f"auto_distill = true\ndistill_max = {RAISED}\n")
    start = _commit_gotchas(history, MAX_PER_SESSION + 2)
    result = cli("distill", "--since", start, "--json")
    assert result.code == 0, result
    report = result.json()
    assert len(report["written"]) == MAX_PER_SESSION
    assert [s["reason"] for s in report["skipped"]] == 2 * [
        f"over the cap of {MAX_PER_SESSION} memories per run (the distill_max setting)"
    ]
    config = history.root / ".tether" / "config.toml"
    assert result.stderr.splitlines() == [f"tether: {_refusal(config, 2)}"]


def test_the_users_own_file_may_raise_it(cli: Cli, history: History) -> None:
    write_user_config(f"distill_max = {MAX_PER_SESSION + 2}\n")
    start = _commit_gotchas(history, MAX_PER_SESSION + 2)
    result = cli("distill", "--since", start, "--json")
    assert result.code == 0, result
    assert len(result.json()["written"]) == MAX_PER_SESSION + 2
    assert result.stderr == ""


def test_a_session_start_keeps_the_cap_a_repository_tried_to_raise(
    cli: Cli, history: History
) -> None:
    assert cli("init").code == 0
    write_config(history, f"auto_distill = true\ndistill_max = {RAISED}\n")
    assert cli("session", "start", "--session", "first").code == 0
    _commit_gotchas(history, MAX_PER_SESSION + 2)
    result = cli("session", "start", "--session", "second", "--json")
    assert result.code == 0, result
    assert len(result.json()["distilled"]) == MAX_PER_SESSION
    assert "distill_max = 1000000000 not taken" in result.stderr


def test_either_file_of_a_repository_may_lower_it_and_neither_raise_it(tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(f"[tool.tether]\ndistill-max = {RAISED}\n", encoding="utf-8")
    warnings: list[str] = []
    assert engine_settings(tmp_path, warnings.append).distill_max == MAX_PER_SESSION
    assert warnings == [_refusal(pyproject, 2, "distill-max")]
    own = tmp_path / ".tether" / "config.toml"
    own.parent.mkdir()
    own.write_text("distill_max = 1\n", encoding="utf-8")
    pyproject.write_text("[tool.tether]\ndistill-max = 2\n", encoding="utf-8")
    assert engine_settings(tmp_path, print).distill_max == 1

"""Settings problems that used to pass in silence: one setting given twice in a table (two
spellings, a key and its alias), a ``tool.tether`` that is not a table, a file starting with a
byte-order mark, bad values of the language server's keys in a repository's files (which
``tether doctor`` now checks), and a problem said twice by one run of ``tether inject``."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import make_repo, run_tether

from recall.config_fields import apply
from recall.server_settings import LEVELS, ServerSettings
from recall.settings import EngineSettings, engine_settings


def _own(root: Path, text: str | bytes) -> Path:
    path = root / ".tether" / "config.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def test_two_spellings_of_one_key_are_said_with_the_file_and_both_keys(tmp_path: Path) -> None:
    path = _own(tmp_path, "distill-max = 1\ndistillMax = 2\n")
    warnings: list[str] = []
    assert engine_settings(tmp_path, warnings.append).distill_max == 2
    assert warnings == [
        f"{path}:2: distill-max and distillMax both set distill_max; the last one, distillMax, "
        "wins: remove the other"
    ]


def test_a_key_and_its_alias_are_one_setting_given_twice() -> None:
    warnings: list[str] = []
    values = {"categories": ["gotcha"], "diagnostic_categories": ["pref"]}
    settings = apply(ServerSettings(), "init", values, warnings.append)
    assert settings.categories == ("pref",)
    assert warnings == [
        "init: categories and diagnostic_categories both set categories; the last one, "
        "diagnostic_categories, wins: remove the other"
    ]


def test_one_spelling_in_each_file_is_no_problem(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.tether]\ndistill-max = 1\n", "utf-8")
    _own(tmp_path, "distillMax = 2\n")
    warnings: list[str] = []
    assert engine_settings(tmp_path, warnings.append).distill_max == 2  # the later file wins
    assert warnings == []


def test_a_tool_tether_that_is_not_a_table_is_said(tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[tool]\ntether = 5\n", encoding="utf-8")
    warnings: list[str] = []
    assert engine_settings(tmp_path, warnings.append) == EngineSettings()
    assert warnings == [
        f"{pyproject}:2: tool.tether ignored: it must be a table (a [tool.tether] section of "
        "key = value lines), not an integer (5)"
    ]


def test_a_byte_order_mark_at_the_start_of_a_settings_file_is_skipped(tmp_path: Path) -> None:
    _own(tmp_path, b"\xef\xbb\xbfdistill_max = 2\n")
    warnings: list[str] = []
    assert engine_settings(tmp_path, warnings.append).distill_max == 2
    assert warnings == []


def test_a_settings_file_not_in_utf8_is_said_not_read(tmp_path: Path) -> None:
    path = _own(tmp_path, b"distill_max = 7 # caf\xe9\n")
    warnings: list[str] = []
    assert engine_settings(tmp_path, warnings.append) == EngineSettings()
    assert warnings == [
        f"{path}:1: not read (not UTF-8 text: invalid continuation byte at byte 21); "
        "save it as UTF-8"
    ]


def test_doctor_checks_the_language_servers_values(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    path = _own(repo, 'severity = "bogus"\nmax_per_file = -3\n')
    done = run_tether("doctor", cwd=repo)
    assert done.code == 1
    assert done.stdout.splitlines() == [
        f"{path}:1: ignoring severity = 'bogus': use one of error, warning, information, info, "
        "hint, off",
        f"{path}:2: ignoring max_per_file = -3: give a whole number, 0 or more",
    ]


def test_doctor_says_one_setting_given_twice(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    path = _own(repo, "distill-max = 1\ndistillMax = 2\nmax-per-file = 1\nmaxPerFile = 2\n")
    done = run_tether("doctor", cwd=repo)
    assert done.code == 1
    assert f"{path}:2: distill-max and distillMax both set distill_max;" in done.stdout
    assert f"{path}:4: max-per-file and maxPerFile both set max_per_file;" in done.stdout


def test_doctor_says_a_limit_a_repository_raised(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    path = _own(repo, "warm_files = 5\nmax-document-chars = 1000000000000000\n")
    done = run_tether("doctor", cwd=repo)
    assert done.code == 1
    assert done.stdout.splitlines() == [
        f"{path}:2: max-document-chars = 1000000000000000 not taken: a repository's settings "
        "may lower it but not raise it above its default (2,000,000): raising it costs your "
        "machine or your attention, which a cloned repository must not decide; to use "
        "1000000000000000, set maxDocumentChars in your editor's settings"
    ]
    found = json.loads(run_tether("doctor", "--json", cwd=repo).stdout)
    assert found == [{"kind": "settings", "message": done.stdout.splitlines()[0]}]


def test_doctor_says_the_distill_cap_a_repository_raised(tmp_path: Path) -> None:
    from recall.distill_words import MAX_PER_SESSION
    from recall.settings import user_config_path

    repo = make_repo(tmp_path / "repo")
    path = _own(repo, "auto_distill = true\ndistill_max = 1000000000\n")
    done = run_tether("doctor", cwd=repo)
    assert done.code == 1
    assert done.stdout.splitlines() == [
        f"{path}:2: distill_max = 1000000000 not taken: a repository's settings may lower it "
        f"but not raise it above its default ({MAX_PER_SESSION}): raising it costs your machine "
        "or your attention, which a cloned repository must not decide; to use 1000000000, set "
        f"distill_max in your own {user_config_path()}"
    ]
    found = json.loads(run_tether("doctor", "--json", cwd=repo).stdout)
    assert found == [{"kind": "settings", "message": done.stdout.splitlines()[0]}]
    user_config_path().parent.mkdir(parents=True, exist_ok=True)
    user_config_path().write_text("distill_max = 1000000000\n", encoding="utf-8")
    own = run_tether("doctor", "--scope", "global", cwd=repo)  # the user's own to set
    assert "distill_max" not in own.stdout + own.stderr


def test_inject_says_a_settings_problem_once(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    remembered = run_tether(
        "remember", "close the pool", "-c", "gotcha", "-f", "README.md", cwd=repo
    )
    assert remembered.code == 0, remembered.stderr
    _own(repo, 'embedder = "some.module:Embedder"\n')
    done = run_tether("inject", "pool", "-f", "README.md", cwd=repo)
    assert done.code == 0, done.stderr
    assert done.stderr.count("embedder ignored: a repository cannot set it") == 1


def test_the_levels_are_the_servers_severities() -> None:
    from lsp_server.configuration import SEVERITIES

    assert set(LEVELS) == set(SEVERITIES)

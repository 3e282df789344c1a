"""Engine settings from ``[tool.tether]``, ``.tether/config.toml`` and the user's own
``config.toml``: defaults from the constants, any key spelling, the later file winning, bad
values and unknown keys reported and ignored, user-only keys refused from a repository."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from recall import lifecycle
from recall.config_fields import SUGGEST_CUTOFF, names, one_of, only_off_fields
from recall.settings import (
    ONLY_OFF,
    SERVER_KEYS,
    USER_ONLY,
    EngineSettings,
    closest_key,
    engine_keys,
    engine_settings,
    file_sources,
    fold_key,
    known_keys,
    merge,
    unknown_keys,
    user_config_path,
)


def write(root: Path, pyproject: str | None = None, own: str | None = None) -> Path:
    if pyproject is not None:
        (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    if own is not None:
        (root / ".tether").mkdir(exist_ok=True)
        (root / ".tether" / "config.toml").write_text(own, encoding="utf-8")
    return root


def test_defaults_are_the_lifecycle_constants() -> None:
    settings = EngineSettings()
    assert settings.archive_by_disuse is True
    assert settings.archive_min_surfacings == lifecycle.ARCHIVE_MIN_SURFACINGS == 6
    assert settings.archive_window_days == lifecycle.ARCHIVE_WINDOW_DAYS == 45
    assert settings.cleanup_min_sessions == lifecycle.CLEANUP_MIN_SESSIONS == 20
    assert settings.cleanup_min_active == lifecycle.CLEANUP_MIN_ACTIVE == 30
    assert settings.cleanup_min_stale == lifecycle.CLEANUP_MIN_STALE == 10


def test_no_repository_or_no_files_give_the_defaults(tmp_path: Path) -> None:
    warnings: list[str] = []
    assert engine_settings(None, warnings.append) == EngineSettings()
    assert engine_settings(tmp_path, warnings.append) == EngineSettings()
    assert warnings == []


def test_pyproject_then_own_file_in_any_spelling(tmp_path: Path) -> None:
    warnings: list[str] = []
    write(
        tmp_path,
        pyproject=(
            "[project]\nname = 'x'\n\n[tool.tether]\n"
            "archive-window-days = 60\ncleanupMinSessions = 5\nmax_per_file = 2\n"
        ),
        own="archive_window_days = 90\nARCHIVE_BY_DISUSE = false\n",
    )
    settings = engine_settings(tmp_path, warnings.append)
    assert settings.archive_window_days == 90  # .tether/config.toml comes last and wins
    assert settings.cleanup_min_sessions == 5
    assert settings.archive_by_disuse is False
    assert settings.cleanup_min_active == lifecycle.CLEANUP_MIN_ACTIVE
    assert warnings == []  # max_per_file is the server's key, not a mistake


@pytest.mark.parametrize(
    ("line", "key", "problem"),
    [
        ("archive_min_surfacings = 0", "archive_min_surfacings", "above 0"),
        ("archive-window-days = -1", "archive-window-days", "0 or more"),
        ("cleanupMinStale = 'ten'", "cleanupMinStale", "whole number"),
        ("cleanup_min_active = 2.5", "cleanup_min_active", "whole number"),
        ("cleanup_min_sessions = true", "cleanup_min_sessions", "whole number"),
        ("archive_by_disuse = 'no'", "archive_by_disuse", "true or false"),
    ],
)
def test_bad_values_are_reported_with_file_and_key_and_the_default_kept(
    tmp_path: Path, line: str, key: str, problem: str
) -> None:
    warnings: list[str] = []
    write(tmp_path, own=f"{line}\n")
    settings = engine_settings(tmp_path, warnings.append)
    assert settings == EngineSettings()
    assert len(warnings) == 1
    assert str(tmp_path / ".tether" / "config.toml") in warnings[0]
    assert f"ignoring {key} = " in warnings[0] and problem in warnings[0]


def test_a_bad_value_in_the_later_file_keeps_the_earlier_files_value(tmp_path: Path) -> None:
    warnings: list[str] = []
    write(
        tmp_path,
        pyproject="[tool.tether]\narchive_window_days = 60\n",
        own="archive_window_days = 'soon'\n",
    )
    assert engine_settings(tmp_path, warnings.append).archive_window_days == 60
    assert "config.toml:1: ignoring archive_window_days" in warnings[0]


def test_unreadable_toml_is_reported_and_skipped(tmp_path: Path) -> None:
    warnings: list[str] = []
    write(tmp_path, pyproject="[tool.tether\n", own="cleanup_min_active = 7\n")
    settings = engine_settings(tmp_path, warnings.append)
    assert settings.cleanup_min_active == 7
    assert len(warnings) == 1 and "pyproject.toml:1: not read" in warnings[0]


def test_file_sources_name_their_table(tmp_path: Path) -> None:
    write(tmp_path, pyproject="[tool.tether]\na = 1\n", own="b = 2\n")
    names_found = [name for name, _ in file_sources(tmp_path, lambda _m: None)]
    assert names_found[0].endswith("pyproject.toml [tool.tether]")
    assert names_found[1].endswith("config.toml")


def test_every_field_has_a_parser_and_its_own_key() -> None:
    keys = engine_keys()
    for item in fields(EngineSettings):
        assert keys[fold_key(item.name)][0] == item.name
    assert fold_key("archive-Window_days") == fold_key("archiveWindowDays") == "archivewindowdays"


def test_reusable_parsers() -> None:
    trust = one_of("all", "mine")
    assert trust("Mine") == "mine"
    with pytest.raises(ValueError, match="use one of all, mine"):
        trust("some")
    categories = names(("gotcha", "decision"))
    assert categories("gotcha") == ("gotcha",)
    assert categories(["decision", "gotcha", "decision"]) == ("decision", "gotcha")
    with pytest.raises(ValueError, match="unknown 'pref'"):
        categories(["pref"])
    with pytest.raises(ValueError, match="list of names"):
        categories(3)


# -- keys no reader knows --------------------------------------------------------------------


def test_a_misspelt_key_is_reported_with_its_file_and_the_closest_known_key(
    tmp_path: Path,
) -> None:
    warnings: list[str] = []
    write(
        tmp_path,
        pyproject="[tool.tether]\narchive-windw-days = 60\n",
        own="cleanupMinStal = 3\nmax_per_fiel = 2\ncolour = 'blue'\n",
    )
    settings = engine_settings(tmp_path, warnings.append)
    assert settings == EngineSettings()  # nothing a misspelling names is applied
    assert warnings == [
        f"{tmp_path / 'pyproject.toml'}:2: unknown key 'archive-windw-days' "
        "ignored; did you mean archive-window-days?",
        f"{tmp_path / '.tether' / 'config.toml'}:1: unknown key 'cleanupMinStal' ignored; "
        "did you mean cleanupMinStale?",
        f"{tmp_path / '.tether' / 'config.toml'}:2: unknown key 'max_per_fiel' ignored; "
        "did you mean max_per_file?",  # a key of the language server's
        f"{tmp_path / '.tether' / 'config.toml'}:3: unknown key 'colour' ignored; not a Tether "
        "setting (docs/lifecycle.md and docs/editors.md list them)",
    ]


def test_keys_of_either_reader_in_any_spelling_are_known(tmp_path: Path) -> None:
    warnings: list[str] = []
    write(
        tmp_path,
        pyproject=(
            "[tool.tether]\nindexOnStart = false\nmax-per-file = 2\n"
            "severity = { decision = 'hint' }\nclient_severity = { opencode = 'error' }\n"
        ),
        own="distill-categories = ['gotcha']\nInject_Others = false\ntrustedWorkspace = true\n",
    )
    engine_settings(tmp_path, warnings.append)
    assert warnings == []


def test_the_suggestion_cutoff_and_spelling() -> None:
    assert SUGGEST_CUTOFF == 0.6  # difflib's default; the cases below pin what it means
    assert closest_key("archive_days") == "archive_window_days"  # a word left out
    assert closest_key("hintBudget") == "hintSessionBudget"
    assert closest_key("auto-distil") == "auto-distill"
    assert closest_key("INDEX_ON_STARTUP") == "index_on_start"
    for unrelated in ("colour", "other", "name", "version"):
        assert closest_key(unrelated) is None
    assert unknown_keys("f.toml", {"maxPerFile": 1, "archive_window_days": 2}) == []


def test_the_engine_knows_every_key_of_the_language_server() -> None:
    from lsp_server.configuration import Settings
    from recall.config_fields import keys_of

    assert {fold_key(name) for name in SERVER_KEYS} == set(keys_of(Settings))
    assert set(known_keys()) == set(engine_keys()) | set(keys_of(Settings))


def test_the_cli_says_it_on_stderr_once(tmp_path: Path) -> None:
    from conftest import make_repo, run_tether

    repo = make_repo(tmp_path / "repo")
    write(repo, own="archive_window_dayz = 10\n")
    started = run_tether("session", "start", "--json", cwd=repo)
    assert started.code == 0
    assert started.stderr.count("unknown key 'archive_window_dayz'") == 1
    assert "did you mean archive_window_days?" in started.stderr
    assert started.json()["cleanup"]["thresholds"]["sessions"] == 20


# -- the user's own file ---------------------------------------------------------------------


def write_user(tether_home: Path, text: str) -> Path:
    tether_home.mkdir(parents=True, exist_ok=True)
    path = tether_home / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_users_file_is_in_the_tether_home_and_read_last(
    tmp_path: Path, tether_home: Path
) -> None:
    root = tmp_path / "repo"  # the user's home (tmp_path/tether-home) is outside it
    root.mkdir()
    assert user_config_path() == tether_home / "config.toml"
    warnings: list[str] = []
    write(root, own="archive_window_days = 90\ncleanup_min_active = 7\nauto_distill = true\n")
    write_user(tether_home, "archive-window-days = 30\nautoDistill = false\n")
    settings = engine_settings(root, warnings.append)
    assert settings.archive_window_days == 30  # the user's file wins a key both set
    assert settings.auto_distill is False  # so the user can always turn auto-distill off
    assert settings.cleanup_min_active == 7
    assert engine_settings(None, warnings.append).archive_window_days == 30  # no repository
    assert warnings == []


def test_user_only_keys_and_their_reasons() -> None:
    assert set(USER_ONLY) == {"distill_command", "embedder"}
    assert "auto_distill" not in USER_ONLY  # a repository may turn it on: see USER_ONLY's note
    engine_fields = {item.name for item in fields(EngineSettings)}
    for key, reason in USER_ONLY.items():
        assert key in engine_fields and len(reason) > 20


@pytest.mark.parametrize("spelling", ["distill_command", "distill-command", "distillCommand"])
def test_a_repository_cannot_set_a_user_only_key(
    tmp_path: Path, tether_home: Path, spelling: str
) -> None:
    root = tmp_path / "repo"  # the user's home (tmp_path/tether-home) is outside it
    root.mkdir()
    warnings: list[str] = []
    write(
        root,
        pyproject=f"[tool.tether]\n{spelling} = 'evil --now'\n",
        own=f"{spelling} = ['evil', '--later']\ndistill_max = 2\n",
    )
    settings = engine_settings(root, warnings.append)
    assert settings.distill_command == ()
    assert settings.distill_max == 2  # the file's other keys still apply
    assert len(warnings) == 2
    for warning, source in zip(
        warnings,
        (f"{root / 'pyproject.toml'}:2", f"{root / '.tether' / 'config.toml'}:1"),
        strict=True,
    ):
        assert warning.startswith(f"{source}: {spelling} ignored: a repository cannot set it")
        assert warning.endswith(f"put it in your own {tether_home / 'config.toml'}")
    # the tables handed to any reader (the language server's too) no longer hold it
    for _name, values in file_sources(root, lambda _m: None):
        assert spelling not in values

    write_user(tether_home, f"{spelling} = 'mine --json'\n")
    warnings.clear()
    assert engine_settings(root, warnings.append).distill_command == ("mine", "--json")
    assert len(warnings) == 2  # the repository's files are still named, every reading


def test_the_users_file_says_what_it_does_not_read(tmp_path: Path, tether_home: Path) -> None:
    warnings: list[str] = []
    path = write_user(tether_home, "max_per_file = 2\narchive_windw_days = 3\ncolour = 1\n")
    assert engine_settings(tmp_path, warnings.append) == EngineSettings()
    assert warnings == [
        f"{path}:1: max_per_file ignored: the language server reads it from a repository's files "
        "or the editor's settings, not from this file",
        f"{path}:2: unknown key 'archive_windw_days' ignored; did you mean archive_window_days?",
        f"{path}:3: unknown key 'colour' ignored; not a Tether setting "
        "(docs/lifecycle.md and docs/editors.md list them)",
    ]
    write_user(tether_home, "archive_window_days = 'soon'\n")
    warnings.clear()
    assert engine_settings(tmp_path, warnings.append) == EngineSettings()
    assert warnings == [
        f"{path}:1: ignoring archive_window_days = 'soon': give a whole number, 0 or more"
    ]
    write_user(tether_home, "[broken\n")
    warnings.clear()
    assert engine_settings(tmp_path, warnings.append) == EngineSettings()
    assert len(warnings) == 1 and warnings[0].startswith(f"{path}:1: not read")


def test_inject_others_once_turned_off_stays_off() -> None:
    """A repository's `inject_others = false` holds against a user's true, and the other way."""
    repo_says = [("repo", {"inject_others": False}), ("user", {"inject_others": True})]
    user_says = [("repo", {"inject_others": True}), ("user", {"inject_others": False})]
    warnings: list[str] = []
    assert merge(repo_says, warnings.append).inject_others is False
    assert merge(user_says, warnings.append).inject_others is False
    assert merge([("repo", {}), ("user", {})], warnings.append).inject_others is True
    assert set(ONLY_OFF) == only_off_fields(EngineSettings) == {"inject_others"}
    assert warnings == []

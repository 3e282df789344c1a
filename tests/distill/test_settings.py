"""The distill settings: defaults, spellings and refusals of bad values."""

from __future__ import annotations

import pytest

from recall.distill_words import DEFAULT_CATEGORIES, MAX_PER_SESSION
from recall.settings import EngineSettings, command_line, merge


def settings_from(values: dict[str, object]) -> tuple[EngineSettings, list[str]]:
    """Settings from one table, and the warnings it gave."""
    warnings: list[str] = []
    return merge([("config.toml", values)], warnings.append), warnings


def test_defaults_keep_distill_off() -> None:
    settings = EngineSettings()
    assert settings.auto_distill is False
    assert settings.distill_categories == DEFAULT_CATEGORIES
    assert settings.distill_max == MAX_PER_SESSION
    assert settings.distill_command == ()


def test_values_in_any_spelling() -> None:
    settings, warnings = settings_from(
        {
            "auto-distill": True,
            "distillCategories": ["pref", "gotcha"],
            "distill_max": 5,
            "distill-command": 'llm-distill --model "small one"',
        }
    )
    assert warnings == []
    assert settings.auto_distill is True
    assert settings.distill_categories == ("pref", "gotcha")
    assert settings.distill_max == 5
    assert settings.distill_command == ("llm-distill", "--model", "small one")


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("auto_distill", "yes", "give true or false"),
        ("distill_categories", ["gotcha", "lore"], "unknown 'lore'"),
        ("distill_max", 0, "above 0"),
        ("distill_command", 'llm "unclosed', "cannot split it into words"),
        ("distill_command", 42, "give a command line"),
    ],
)
def test_bad_values_are_reported_and_the_default_kept(key: str, value: object, said: str) -> None:
    settings, warnings = settings_from({key: value})
    assert settings == EngineSettings()
    (warning,) = warnings
    assert warning.startswith(f"config.toml: ignoring {key} = ") and said in warning


def test_command_line_forms() -> None:
    assert command_line(["python", "-m", "x"]) == ("python", "-m", "x")
    assert command_line("") == ()

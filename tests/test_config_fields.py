"""recall.config_fields: one way to declare and read settings, for the engine and the server."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pytest

from recall import config_fields
from recall.config_fields import (
    apply,
    count,
    flag,
    keys_of,
    only_lower_fields,
    only_off_fields,
    setting,
)


@dataclass(frozen=True)
class Example:
    limit: int = setting(3, count, "max")
    trusted: bool = setting(True, flag, only_off=True)
    levels: Mapping[str, str] = setting({"a": "x"}, dict, merge=True)


def test_keys_in_any_spelling_and_aliases() -> None:
    warnings: list[str] = []
    seen = apply(Example(), "f.toml", {"LIMIT": 5, "other_reader": 1}, warnings.append)
    assert seen.limit == 5 and warnings == []
    assert apply(Example(), "f.toml", {"max": 7}, warnings.append).limit == 7
    assert set(keys_of(Example)) == {"limit", "max", "trusted", "levels"}


def test_a_bad_value_is_said_and_the_value_before_it_kept() -> None:
    warnings: list[str] = []
    seen = apply(Example(limit=4), "f.toml", {"limit": -1}, warnings.append)
    assert seen.limit == 4
    assert warnings == ["f.toml: ignoring limit = -1: give a whole number, 0 or more"]


def test_only_off_stays_off_and_merged_tables_add_up() -> None:
    off = apply(Example(), "editor", {"trusted": False}, print)
    assert apply(off, "repository", {"trusted": True}, print).trusted is False
    assert only_off_fields(Example) == {"trusted"}
    more = apply(Example(), "a", {"levels": {"b": "y"}}, print)
    assert dict(apply(more, "b", {"levels": {"a": "z"}}, print).levels) == {"a": "z", "b": "y"}
    assert dict(Example().levels) == {"a": "x"}  # each object gets its own copy of the default


def test_one_setting_given_twice_the_last_valid_one_replaces_the_earlier() -> None:
    warnings: list[str] = []
    seen = apply(Example(limit=4), "f.toml", {"limit": 5, "max": 7}, warnings.append)
    assert seen.limit == 7
    assert warnings == [
        "f.toml: limit and max both set limit; the last one, max, wins: remove the other"
    ]


def test_a_merged_table_given_twice_is_the_last_one_alone() -> None:
    from recall.server_settings import DEFAULT_SEVERITY, ServerSettings

    warnings: list[str] = []
    values = {"severity": {"gotcha": "error"}, "Severity": {"decision": "hint"}}
    seen = apply(ServerSettings(), "editor", values, warnings.append)
    assert dict(seen.severity) == {**DEFAULT_SEVERITY, "decision": "hint"}
    assert warnings == [
        "editor: severity and Severity both set severity; the last one, "
        "Severity, wins: remove the other"
    ]


def test_an_only_off_flag_turned_off_by_one_spelling_stays_off() -> None:
    from recall.server_settings import ServerSettings

    warnings: list[str] = []
    values = {"trustedWorkspace": False, "trusted_workspace": True}
    assert apply(ServerSettings(), "editor", values, warnings.append).trusted_workspace is False
    assert warnings == [
        "editor: trustedWorkspace and trusted_workspace both set trusted_workspace, which is "
        "only ever turned off here: it is off if either is false; remove the other"
    ]


def test_an_invalid_last_spelling_keeps_the_earlier_one_and_says_so() -> None:
    warnings: list[str] = []
    seen = apply(Example(limit=4), "f.toml", {"limit": 5, "max": -1}, warnings.append)
    assert seen.limit == 5
    assert warnings == [
        "f.toml: ignoring max = -1: give a whole number, 0 or more; limit, which also sets "
        "limit, is kept: remove one"
    ]


def test_a_whole_number_past_sqlites_largest_integer_is_said_and_refused() -> None:
    from recall.config_fields import LARGEST_WHOLE

    assert LARGEST_WHOLE == 9_223_372_036_854_775_807  # SQLite's largest INTEGER
    warnings: list[str] = []
    assert apply(Example(), "f.toml", {"limit": LARGEST_WHOLE}, warnings.append).limit == (
        LARGEST_WHOLE
    )
    seen = apply(Example(limit=4), "f.toml", {"limit": LARGEST_WHOLE + 1}, warnings.append)
    assert seen.limit == 4
    assert warnings == [
        "f.toml: ignoring limit = 9223372036854775808: "
        "give a whole number of at most 9,223,372,036,854,775,807"
    ]


@pytest.mark.parametrize("value", [-1, 0, "soon", 1.5, True])
def test_a_setting_that_must_be_above_zero_says_so_whatever_is_wrong(value: object) -> None:
    with pytest.raises(ValueError, match=r"^give a whole number above 0$"):
        config_fields.positive(value)


@dataclass(frozen=True)
class Limited:
    cap: int = setting(5, count, only_lower=True)


def test_a_repository_may_lower_a_limit_but_not_raise_it() -> None:
    assert only_lower_fields(Limited) == {"cap": 5}
    warnings: list[str] = []
    lowered = apply(Limited(), "f.toml", {"cap": 2}, warnings.append, from_repository=True)
    assert lowered.cap == 2 and warnings == []
    assert apply(lowered, "g.toml", {"cap": 5}, print, from_repository=True).cap == 5
    raised = apply(lowered, "g.toml", {"cap": 6}, warnings.append, from_repository=True)
    assert raised.cap == 2  # the value before it is kept, as for a bad value
    assert warnings == [
        "g.toml: cap = 6 not taken: a repository's settings may lower it but not raise it above "
        "its default (5): raising it costs your machine or your attention, which a cloned "
        "repository must not decide; to use 6, set cap in your editor's settings"
    ]
    assert apply(lowered, "editor", {"cap": 6}, print).cap == 6  # the user's own settings


def test_the_limits_a_repository_may_only_lower() -> None:
    from lsp_server.configuration import WARM_FILES, merge
    from recall.policy.hints import SESSION_BUDGET
    from recall.server_settings import MAX_DOCUMENT_CHARS, MAX_PER_FILE, ServerSettings

    assert only_lower_fields(ServerSettings) == {
        "max_per_file": MAX_PER_FILE,
        "hint_session_budget": SESSION_BUDGET,
        "max_document_chars": MAX_DOCUMENT_CHARS,
        "warm_files": WARM_FILES,
    }
    warnings: list[str] = []
    repository = [("config.toml", {"warmFiles": 100, "maxPerFile": 1})]
    settings = merge([], warnings.append, repository=repository)
    assert (settings.warm_files, settings.max_per_file) == (WARM_FILES, 1)
    assert [w.partition(" not taken")[0] for w in warnings] == ["config.toml: warmFiles = 100"]
    editor = [("initializationOptions", {"warmFiles": 100, "maxPerFile": 7})]
    settings = merge(editor, print, repository=repository)
    assert (settings.warm_files, settings.max_per_file) == (100, 7)


def test_the_engine_limits_a_repository_may_only_lower() -> None:
    from recall.distill_words import MAX_PER_SESSION
    from recall.settings import EngineSettings, merge, user_config_path

    assert only_lower_fields(EngineSettings) == {"distill_max": MAX_PER_SESSION}
    warnings: list[str] = []
    repository = [("config.toml", {"distillMax": 50, "archive_window_days": 400})]
    settings = merge([], warnings.append, repository=repository)
    assert (settings.distill_max, settings.archive_window_days) == (MAX_PER_SESSION, 400)
    assert [w.partition(" not taken")[0] for w in warnings] == ["config.toml: distillMax = 50"]
    assert warnings[0].endswith(f"to use 50, set distill_max in your own {user_config_path()}")
    own = [("own config.toml", {"distill_max": 50})]
    assert merge(own, print, repository=repository).distill_max == 50

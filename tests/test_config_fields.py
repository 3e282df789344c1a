"""recall.config_fields: one way to declare and read settings, for the engine and the server."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from recall.config_fields import apply, count, flag, keys_of, only_off_fields, setting


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

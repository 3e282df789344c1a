"""A camelCase word of a prompt is also asked for by its parts, which the word index holds
apart when the same code is written about in snake_case."""

from __future__ import annotations

import pytest

from recall.ranking import weights as W
from recall.ranking.query_words import prompt_words

from .world import World, hit_of, ids


def test_camel_case_words_add_their_parts_and_capitalised_names_do_not() -> None:
    words = prompt_words("Fix NMDeviceWifi scan, safeRename of IPv6 and IPsec in HTTPServer")

    assert words[:9] == [
        "fix", "nmdevicewifi", "scan", "saferename", "of", "ipv6", "and", "ipsec", "in"
    ]  # fmt: skip
    assert words[9:] == ["httpserver", "nm", "device", "wifi", "safe", "rename"]


def test_parts_are_not_split_when_the_setting_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(W, "SPLIT_CAMEL_CASE", False)

    assert prompt_words("NMDeviceWifi a") == ["nmdevicewifi"]
    assert W.MIN_WORD_CHARS == 2  # "a" is left out either way


def test_a_camel_case_prompt_finds_the_memory_written_in_snake_case(world: World) -> None:
    world.history([["src/wifi.c", "src/other.c"]])
    wanted = world.remember("nm_device_wifi_scan drops hidden networks", "src/wifi.c")
    world.remember("queue flush ordering", "src/other.c")

    result = world.recall(prompt="NMDeviceWifi regression")

    assert ids(result)[0] == wanted
    assert hit_of(result, wanted).signals.get("words", 0.0) > 0
    assert W.SPLIT_CAMEL_CASE is True


def test_unsplit_the_camel_case_prompt_matches_no_word(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    world.history([["src/wifi.c"]])
    wanted = world.remember("nm_device_wifi_scan drops hidden networks", "src/wifi.c")
    monkeypatch.setattr(W, "SPLIT_CAMEL_CASE", False)

    result = world.recall(prompt="NMDeviceWifi regression")

    # only the similarity channel, which splits identifiers itself, still sees it
    assert "words" not in hit_of(result, wanted).signals

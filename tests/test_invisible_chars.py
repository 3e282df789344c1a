"""Characters that draw nothing but are not controls, format characters or separators (the
variation selectors, the Hangul fillers, the combining grapheme joiner, the braille blank)
are unseen as those are: a person is shown their escapes and an agent is given the text
without them, so a run of them cannot smuggle words past a reader. A variation selector right
after the character it varies (an emoji's presentation, a CJK variant) is part of the text."""

from __future__ import annotations

import unicodedata

import pytest

from recall.display import _JOINERS, INVISIBLE_RANGES, UNSEEN_CATEGORIES, is_unseen, visible
from recall.policy.inject import clean_line

DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point property (DerivedCoreProperties.txt): the characters
a renderer draws nothing for."""

SMUGGLED = "".join(chr(0xFE00 + byte % 16) for byte in range(15))


def code_points(ranges: tuple[tuple[int, ...], ...]) -> set[int]:
    """Every code point of ``ranges`` (each a low and high bound, then anything)."""
    return {code for low, high, *_rest in ranges for code in range(low, high + 1)}


def test_the_invisible_ranges_are_the_default_ignorables_the_categories_miss() -> None:
    by_category = {
        code
        for code in code_points(DEFAULT_IGNORABLE)
        if unicodedata.category(chr(code)) in UNSEEN_CATEGORIES or chr(code) in _JOINERS
    }
    assert code_points(INVISIBLE_RANGES) == code_points(DEFAULT_IGNORABLE) - by_category | {0x2800}
    lows = [low for low, _high, _why in INVISIBLE_RANGES]
    assert lows == sorted(lows)
    for low, high, why in INVISIBLE_RANGES:
        assert low <= high and why and "\n" not in why, hex(low)


@pytest.mark.parametrize(
    "ch",
    [
        "\u034f",  # combining grapheme joiner
        "\u115f",  # Hangul choseong filler
        "\u1160",  # Hangul jungseong filler
        "\u3164",  # Hangul filler
        "\uffa0",  # halfwidth Hangul filler
        "\u17b4",  # Khmer inherent vowels
        "\u17b5",
        "\u180b",  # Mongolian free variation selectors
        "\u180c",
        "\u180d",
        "\u180f",
        "\u2800",  # braille pattern blank
        "\ufe00",  # variation selectors, here after ASCII
        "\ufe0f",
        "\U000e0100",
        "\U000e01ef",
        "\u2065",  # reserved default ignorables
        "\ufff0",
        "\U000e0000",
        "\U000e0080",
        "\U000e0fff",
    ],
)
def test_each_invisible_character_is_escaped_for_a_person_and_dropped_for_an_agent(
    ch: str,
) -> None:
    text = f"save{ch} here"
    assert text.isprintable() or unicodedata.category(ch) == "Cn"  # the fast path's trap
    escape = ch.encode("unicode_escape").decode("ascii")
    assert visible(text) == f"save{escape} here"
    assert clean_line(text) == "save here"


@pytest.mark.parametrize(
    "text",
    [
        "\u2764\ufe0f heart",  # an emoji's presentation
        "\U0001f468\u200d\U0001f4bb and \U0001f469\u200d\u2764\ufe0f\u200d\U0001f468",
        "\u8fbb\U000e0100 and \U0002000b\U000e0101",  # ideographic variation sequences
        "\u8fbb\ufe00 a CJK variant",
        "\u00a9\ufe0e as text",
        "step 1\ufe0f\u20e3 and #\ufe0f\u20e3",  # keycaps
        "Mehr\u200cdad",  # a zero-width non-joiner shapes the letters
    ],
)
def test_a_variation_selector_after_what_it_varies_and_the_joiners_are_kept(text: str) -> None:
    assert visible(text) == text
    assert clean_line(text) == text


@pytest.mark.parametrize(
    ("text", "shown", "for_agent"),
    [
        ("\ufe0fstart", "\\ufe0fstart", "start"),
        ("ascii a\ufe0f", "ascii a\\ufe0f", "ascii a"),
        ("two \u2764\ufe0f\ufe0f", "two \u2764\ufe0f\\ufe0f", "two \u2764\ufe0f"),
        ("ivs \u2764\U000e0100", "ivs \u2764\\U000e0100", "ivs \u2764"),
        ("joiner \u200d\ufe0f", "joiner \u200d\\ufe0f", "joiner \u200d"),
        ("hidden \u200b\ufe0f", "hidden \\u200b\\ufe0f", "hidden"),
        ("filler \u3164\ufe0f", "filler \\u3164\\ufe0f", "filler"),
        ("no keycap 1\ufe0f", "no keycap 1\\ufe0f", "no keycap 1"),
        (
            "cjk \u8fbb\U000e0100\U000e0100",
            "cjk \u8fbb\U000e0100\\U000e0100",
            "cjk \u8fbb\U000e0100",
        ),
    ],
)
def test_a_selector_that_varies_nothing_is_unseen(text: str, shown: str, for_agent: str) -> None:
    assert visible(text) == shown
    assert clean_line(text) == for_agent


def test_a_run_of_selectors_after_an_emoji_shows_all_but_the_first() -> None:
    text = f"save through safeRename \U0001f512{SMUGGLED}"
    assert text.isprintable()
    shown = visible(text)
    assert shown.startswith("save through safeRename \U0001f512\ufe00\\ufe01\\ufe02")
    assert shown.count("\\ufe0") == 14
    assert clean_line(text) == "save through safeRename \U0001f512\ufe00"


def test_a_lone_character_is_judged_at_the_start_of_a_text() -> None:
    assert is_unseen("\ufe0f") and not is_unseen("\ufe0f", "\u2764")
    assert is_unseen("\U000e0100", "\u2764") and not is_unseen("\U000e0100", "\u8fbb")
    assert not is_unseen("a") and not is_unseen("\u200d") and is_unseen("\u202e")

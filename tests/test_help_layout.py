"""The help layout measures the terminal as argparse would, so ``--help`` reads the same."""

from __future__ import annotations

import argparse

import pytest

from recall.cli.parser import FALLBACK_COLUMNS, HELP_MARGIN, HelpLayout, build_parser

LONG_HELP = "a help text long enough to wrap at every width tried here, " * 4


def laid_out(formatter: type[argparse.HelpFormatter]) -> str:
    """The help of a small parser whose options wrap, laid out by ``formatter``."""
    parser = argparse.ArgumentParser(prog="tether", formatter_class=formatter)
    parser.add_argument("--limit", type=int, help=LONG_HELP)
    parser.add_argument("prompt", help=LONG_HELP)
    return parser.format_help()


@pytest.mark.parametrize("columns", [None, "57", "140", "0", "-3", "wide"])
def test_help_is_laid_out_as_argparse_lays_it_out(
    monkeypatch: pytest.MonkeyPatch, columns: str | None
) -> None:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert laid_out(HelpLayout) == laid_out(argparse.HelpFormatter)


def test_the_parsers_lay_out_help_with_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "61")
    parser = build_parser("inject")
    assert isinstance(parser._get_formatter(), HelpLayout)
    assert max(len(line) for line in parser.format_help().splitlines()) <= 61 - HELP_MARGIN


def test_the_fallback_width_and_margin_are_argparse_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pinned: a width of 80 and a right margin of 2, where no terminal says otherwise."""
    monkeypatch.delenv("COLUMNS", raising=False)
    assert (FALLBACK_COLUMNS, HELP_MARGIN) == (80, 2)
    assert HelpLayout("tether")._width == argparse.HelpFormatter("tether")._width

"""Symbol anchors as people write them: by hand in front matter (plain path::name or a mapping
with keys Tether does not know), beside the older single ``anchor``; bad shapes are refused
with the file and line, and nothing written is dropped when Tether rewrites the file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, make_repo

from recall import frontmatter
from recall.anchors.symbols import (
    SymbolAnchor,
    anchors_from_field,
    looks_like_symbol_anchor,
    split_anchor_options,
)
from recall.errors import BadInput, MalformedMemory
from recall.records import memory_from_parsed, render_memory

HAND_WRITTEN = """---
id: 1234abcd
category: decision
files: [src/util.py]
anchor: helper
anchors:
  - src/util.py::helper
  - symbol: src/app.py::main
    body: 0123456789ab
    reviewer: dana   # a key Tether does not know
---
helper is the one place that reads the clock
"""


def parse(text: str):
    return memory_from_parsed(frontmatter.parse(text, "m.md"), "m.md", fallback_created="")


def test_hand_written_anchors_are_read_beside_the_legacy_anchor() -> None:
    memory = parse(HAND_WRITTEN)
    assert memory.anchor == "helper"
    assert memory.anchors == (
        SymbolAnchor("src/util.py", "helper"),
        SymbolAnchor("src/app.py", "main", "0123456789ab"),
    )
    assert memory.anchors[1].extra == {"reviewer": "dana"}
    again = parse(render_memory(memory))
    assert again.anchors == memory.anchors and again.anchors[1].extra == {"reviewer": "dana"}
    assert again.anchor == "helper"


def test_a_bad_anchors_value_names_the_file_and_line() -> None:
    text = HAND_WRITTEN.replace("  - src/util.py::helper\n", "  - just-a-name\n")
    with pytest.raises(MalformedMemory) as caught:
        parse(text)
    assert "m.md:6" in str(caught.value) and "path::name" in str(caught.value)
    with pytest.raises(BadInput):
        anchors_from_field([{"body": "no symbol"}])
    with pytest.raises(BadInput, match="relative to the repository root"):
        anchors_from_field(["/etc/passwd::x"])


def test_symbol_anchors_are_told_from_legacy_ones() -> None:
    assert looks_like_symbol_anchor("ip/iproute.c::iproute_modify")
    assert looks_like_symbol_anchor("store.py::Store.save")
    assert not looks_like_symbol_anchor("Store::save")  # C++ inside the memory's file
    assert not looks_like_symbol_anchor("L10-20")
    legacy, symbols = split_anchor_options(["a/b.c::f", "L3-9", "c.py::K.m"])
    assert legacy == "L3-9" and symbols == [("a/b.c", "f"), ("c.py", "K.m")]
    with pytest.raises(BadInput, match="only one --anchor"):
        split_anchor_options(["f", "g"])


def test_odd_symbol_names_are_kept_as_written(repo: Path, cli: Callable[..., CliResult]) -> None:
    done = cli(
        "remember",
        "operator overloads are hot",
        "-c",
        "context",
        "--json",
        "--anchor",
        "src/app.py::operator<=>",
        "--anchor",
        "src/app.py::caf\u00e9",
    )
    assert done.code == 0, done.stderr
    assert done.stderr.count("kept without a body hash") == 2
    text = (repo / ".tether" / "memories" / f"{done.json()['id']}.md").read_text()
    memory = parse(text)
    assert [a.name for a in memory.anchors] == ["operator<=>", "caf\u00e9"]


def test_confirm_keeps_hand_written_keys_and_the_legacy_anchor(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memories = repo / ".tether" / "memories"
    assert cli("init").code == 0
    (memories / "1234abcd.md").write_text(
        HAND_WRITTEN.replace("src/app.py::main", "src/util.py::helper2")
    )
    assert cli("index").code == 0
    assert cli("confirm", "1234abcd").code == 0
    memory = parse((memories / "1234abcd.md").read_text())
    assert memory.anchor == "helper"
    helper, helper2 = memory.anchors
    assert helper.body is not None  # found now: its body recorded
    assert (helper2.name, helper2.body, helper2.extra) == (
        "helper2",
        "0123456789ab",
        {"reviewer": "dana"},
    )


def test_export_then_import_keeps_the_anchors(
    repo: Path, tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    memories = repo / ".tether" / "memories"
    assert cli("init").code == 0
    (memories / "1234abcd.md").write_text(HAND_WRITTEN)
    exported = cli("export")
    assert exported.code == 0, exported.stderr
    other = make_repo(tmp_path / "other")
    done = cli("import", "-", cwd=other, stdin=exported.stdout)
    assert done.code == 0, done.stderr
    [name] = [p.name for p in (other / ".tether" / "memories").glob("*.md")]
    again = parse((other / ".tether" / "memories" / name).read_text())
    assert again.anchors == parse(HAND_WRITTEN).anchors
    assert again.anchors[1].extra == {"reviewer": "dana"}
    refused = cli(
        "import",
        "-",
        cwd=other,
        stdin='{"summary": "s", "category": "gotcha", "anchors": ["no-path"]}\n',
    )
    assert "is not a symbol anchor" in refused.stdout + refused.stderr


def test_hand_written_anchor_paths_are_normalised_and_kept_inside_the_repository() -> None:
    anchors = anchors_from_field(["./src/a.py::f", "src//a.py::g", {"symbol": "src/x/../a.py::h"}])
    assert [anchor.path for anchor in anchors] == ["src/a.py", "src/a.py", "src/a.py"]
    for outside in ["a/../../x.py::f", "../x.py::f", "/etc/x.py::f", "src/..::f"]:
        with pytest.raises(BadInput, match="relative to the repository root"):
            anchors_from_field([outside])


@pytest.mark.parametrize(
    ("anchor", "said"),
    [
        ("src/app.py", "the memory names no file: give the file with --file PATH"),
        ("Pool::get", "the memory names no file: give the file with --file PATH"),
        ("src/app.py::", "'src/app.py::' is not a symbol anchor; write it as path::name"),
        ("::get", "'::get' is not a symbol anchor; write it as path::name"),
    ],
)
def test_an_anchor_that_can_tie_the_memory_to_nothing_is_refused(
    cli: Callable[..., CliResult], repo: Path, anchor: str, said: str
) -> None:
    """A name inside a file with no file to be inside, or a path::name with a half missing,
    would write a memory that names no file and that no recall ever finds."""
    assert cli("init").code == 0
    refused = cli("remember", "pool gets are cheap", "-c", "gotcha", "--anchor", anchor)
    assert refused.code == 2
    assert said in refused.stderr
    assert not list((repo / ".tether" / "memories").glob("*.md"))
    kept = cli(
        "remember",
        "pool gets are cheap",
        "-c",
        "gotcha",
        "-f",
        "src/app.py",
        "--anchor",
        "Pool::get",
    )
    assert kept.code == 0, kept.stderr

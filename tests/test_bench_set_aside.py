"""The import benchmark deletes nothing between its timed steps and probes file creates."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.floors import create_probe
from bench.real_bench import set_aside


def test_set_aside_moves_a_store_into_the_trash_whole(tmp_path: Path) -> None:
    store = tmp_path / "repo" / ".tether"
    (store / "memories").mkdir(parents=True)
    (store / "memories" / "0001a2fd.md").write_text("kept\n")
    trash = tmp_path / "set-aside"

    set_aside(store, trash)

    assert not store.exists()
    [moved] = list(trash.iterdir())
    assert moved.name.startswith(".tether-")
    assert (moved / "memories" / "0001a2fd.md").read_text() == "kept\n"


def test_set_aside_keeps_every_copy_of_the_same_name(tmp_path: Path) -> None:
    trash = tmp_path / "set-aside"
    for text in ("first", "second"):
        store = tmp_path / ".tether"
        store.mkdir()
        (store / "note").write_text(text)
        set_aside(store, trash)
    assert sorted((p / "note").read_text() for p in trash.iterdir()) == ["first", "second"]


def test_set_aside_of_nothing_does_nothing(tmp_path: Path) -> None:
    set_aside(tmp_path / "absent", tmp_path / "set-aside")
    assert not (tmp_path / "set-aside").exists()


def test_create_probe_leaves_its_files_and_gives_a_cost_per_file(tmp_path: Path) -> None:
    cost = create_probe(tmp_path / "probe", count=50)
    assert cost > 0
    assert len(list((tmp_path / "probe").iterdir())) == 50


def test_create_probe_wants_a_new_folder(tmp_path: Path) -> None:
    (tmp_path / "probe").mkdir()
    with pytest.raises(FileExistsError):
        create_probe(tmp_path / "probe", count=5)


def test_the_foundation_import_is_the_median_of_three() -> None:
    from bench.foundation_bench import IMPORT_RUNS

    assert IMPORT_RUNS == 3


def test_the_probe_makes_two_thousand_files() -> None:
    from bench.floors import PROBE_FILES

    assert PROBE_FILES == 2000

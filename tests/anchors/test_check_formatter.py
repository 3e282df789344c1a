"""A formatter run over guarded code is no edit of it: spaces around operators, lines split or
joined inside brackets, a trailing comma and (in Python) the quote style are layout, in `tether
check` and in an anchor's state. An anchor recorded by an earlier version, with either older
hash form, still reads as current while its code is unchanged."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, make_repo

from recall.genome.symbols.model import indented_hash
from tests.anchors.test_check_indentation import guarded, record, state_of
from tests.anchors.test_check_indentation import run as run  # the fixture, on this repo

PY = (
    "def route(table, key, default=None):\n"
    "    found = table.get(key,default)\n"
    "    if found is None and key!='lo':\n"
    "        return {'key': key, 'via': default}\n"
    "    return found\n"
)
PY_FORMATTED = (
    "def route(\n"
    "    table,\n"
    "    key,\n"
    "    default=None,\n"
    "):\n"
    "    found = table.get(key, default)\n"
    '    if found is None and key != "lo":\n'
    '        return {"key": key, "via": default}\n'
    "    return found\n"
)
C = "int route_add(int a,int b){\n  if(a>b) return a-b;\n  return b*2;\n}\n"
C_FORMATTED = (
    "int route_add(int a, int b)\n{\n\tif (a > b)\n\t\treturn a - b;\n\treturn b * 2;\n}\n"
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "fmt-repo", {"src/route.py": PY, "src/route.c": C})


@pytest.mark.parametrize(
    ("anchor", "path", "formatted", "edited"),
    [
        (
            "src/route.py::route",
            "src/route.py",
            PY_FORMATTED,
            PY_FORMATTED.replace("return found", "return default"),
        ),
        (
            "src/route.c::route_add",
            "src/route.c",
            C_FORMATTED,
            C_FORMATTED.replace("b * 2", "b * 3"),
        ),
    ],
)
def test_a_formatted_guarded_function_is_no_edit_but_a_changed_one_is(
    repo: Path, run: Callable[..., CliResult], anchor: str, path: str, formatted: str, edited: str
) -> None:
    memory_id = guarded(run, repo, anchor)
    (repo / path).write_text(formatted)
    done = run("check", "--json")
    assert done.code == 0, done.stdout
    assert memory_id not in {f["id"] for f in done.json()["review"]}
    assert state_of(run, memory_id) == "current"
    (repo / path).write_text(edited)
    done = run("check", "--json")
    assert done.code == 1, done.stdout
    [failure] = done.json()["failures"]
    assert failure["id"] == memory_id and "the change edits route" in failure["reason"]
    assert state_of(run, memory_id) == "changed"


def test_an_anchor_recorded_with_the_indentation_form_stays_current_and_sees_an_edit(
    repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = guarded(run, repo, "src/route.py::route")
    record(repo, memory_id, indented_hash(PY.rstrip("\n").encode()))
    assert state_of(run, memory_id) == "current"
    assert run("check").code == 0
    (repo / "src/route.py").write_text(PY.replace("return found", "return default"))
    assert run("check").code == 1
    assert state_of(run, memory_id) == "changed"

"""A problem in a settings file names the line of the key (``FILE:LINE: ...``), so an editor
can jump there: in ``[tool.tether]`` of ``pyproject.toml``, in ``.tether/config.toml`` and in
the user's own ``config.toml``, for the engine's reading and the language server's, with the
key written bare, quoted or dotted, and never the line of a like-named key in another table."""

from __future__ import annotations

import tomllib
from pathlib import Path

from conftest import make_repo, run_tether

from lsp_server.configuration import file_sources
from lsp_server.configuration import merge as server_merge
from recall.settings import EngineSettings, engine_settings
from recall.toml_lines import FileTable, key_lines


def _own(root: Path, text: str) -> Path:
    path = root / ".tether" / "config.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _pyproject(root: Path, text: str) -> Path:
    path = root / "pyproject.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_bad_value_in_pyproject_names_its_line(tmp_path: Path) -> None:
    path = _pyproject(
        tmp_path, '[project]\nname = "app"\n\n[tool.tether]\n# how long\narchiveWindowDays = -4\n'
    )
    warnings: list[str] = []
    assert engine_settings(tmp_path, warnings.append) == EngineSettings()
    assert warnings == [
        f"{path}:6: ignoring archiveWindowDays = -4: give a whole number, 0 or more"
    ]


def test_a_like_named_key_in_an_earlier_table_is_not_the_line_named(tmp_path: Path) -> None:
    path = _pyproject(
        tmp_path,
        "[tool.other]\ndistill_max = 0\n[tool.tether.severity]\ngotcha = 'hint'\n"
        "[tool.tether]\ndistill_max = 0\n",
    )
    warnings: list[str] = []
    engine_settings(tmp_path, warnings.append)
    assert warnings == [f"{path}:6: ignoring distill_max = 0: give a whole number above 0"]


def test_arrays_of_tables_elsewhere_in_pyproject_leave_the_lines_found(tmp_path: Path) -> None:
    path = _pyproject(
        tmp_path,
        "[[tool.mypy.overrides]]\nmodule = 'a'\n[tool.mypy.overrides.extra]\nx = 1\n"
        "[[tool.mypy.overrides]]\nmodule = 'b'\n[tool.tether]\nauto_distill = 1\n",
    )
    warnings: list[str] = []
    engine_settings(tmp_path, warnings.append)
    assert warnings == [f"{path}:8: ignoring auto_distill = 1: give true or false"]


def test_an_unknown_key_in_the_repositorys_own_file_names_its_line(tmp_path: Path) -> None:
    path = _own(
        tmp_path,
        'note = """\narchive_window_days = 1\n[tool]\n"""\nlist = [\n  1, # x = 2\n  2,\n]\n'
        "cleanup-min-activ = 3\n",
    )
    warnings: list[str] = []
    engine_settings(tmp_path, warnings.append)
    assert (
        f"{path}:9: unknown key 'cleanup-min-activ' ignored; did you mean cleanup-min-active?"
        in (warnings)
    )


def test_a_user_only_key_set_by_a_repository_names_its_line(
    tmp_path: Path, tether_home: Path
) -> None:
    path = _own(tmp_path, "distill_max = 2\n\n'distill-command' = 'evil --now'\n")
    warnings: list[str] = []
    assert engine_settings(tmp_path, warnings.append).distill_command == ()
    assert [w.partition(" ignored")[0] for w in warnings] == [f"{path}:3: distill-command"]


def test_dotted_and_quoted_keys_name_their_line(tmp_path: Path) -> None:
    path = _pyproject(tmp_path, '[tool]\nruff.line-length = 100\ntether."distill-max" = 0\n')
    warnings: list[str] = []
    engine_settings(tmp_path, warnings.append)
    assert warnings == [f"{path}:3: ignoring distill-max = 0: give a whole number above 0"]

    path = _pyproject(tmp_path, 'tool.ruff.x = 1\ntool . tether . "auto_distill" = "yes"\n')
    warnings.clear()
    engine_settings(tmp_path, warnings.append)
    assert warnings == [f"{path}:2: ignoring auto_distill = 'yes': give true or false"]


def test_the_users_own_file_names_the_line(tmp_path: Path, tether_home: Path) -> None:
    tether_home.mkdir(parents=True, exist_ok=True)
    path = tether_home / "config.toml"
    path.write_text("# mine\nembedder = 'hash'\nwarmFiles = 3\n", encoding="utf-8")
    warnings: list[str] = []
    engine_settings(tmp_path, warnings.append)
    assert warnings == [
        f"{path}:3: warmFiles ignored: the language server reads it from a repository's files "
        "or the editor's settings, not from this file"
    ]


def test_a_file_that_is_not_toml_names_the_line_and_says_what_to_do(tmp_path: Path) -> None:
    path = _own(tmp_path, "distill_max = 2\n\nauto_distill = tru\n")
    warnings: list[str] = []
    assert engine_settings(tmp_path, warnings.append) == EngineSettings()
    [warning] = warnings
    assert warning.startswith(f"{path}:3: not read (")
    assert warning.endswith(
        "(at line 3, column 16)); fix the TOML there: until then none of its settings apply"
    )
    _own(tmp_path, "distill_max = 2\n\ndistill_categories = [\n\n")  # tomllib: end of document
    warnings.clear()
    engine_settings(tmp_path, warnings.append)
    assert [w.partition(" (")[0] for w in warnings] == [f"{path}:3: not read"]


def test_text_not_in_utf8_names_the_line_of_the_byte(tmp_path: Path) -> None:
    path = tmp_path / ".tether" / "config.toml"
    path.parent.mkdir()
    path.write_bytes(b"distill_max = 2\n# caf\xe9\n")
    warnings: list[str] = []
    engine_settings(tmp_path, warnings.append)
    assert [w.partition(" (")[0] for w in warnings] == [f"{path}:2: not read"]


def test_the_language_servers_reading_names_the_line(tmp_path: Path) -> None:
    path = _pyproject(
        tmp_path,
        "[tool.tether]\nmax_per_file = 2\n\n[tool.tether.severity]\ngotcha = 'loud'\n",
    )
    warnings: list[str] = []
    settings = server_merge(file_sources(tmp_path, warnings.append), warnings.append)
    assert settings.max_per_file == 2
    assert [w.partition(" = ")[0] for w in warnings] == [f"{path}:4: ignoring severity"]


def test_doctor_names_the_line(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    path = _own(repo, "[severity]\ngotcha = 'hint'\n\n[client_severity]\nnvim = 'loud'\n")
    done = run_tether("doctor", cwd=repo)
    assert done.code == 1
    assert f"{path}:4: ignoring client_severity = " in done.stdout


def test_the_scan_finds_keys_past_strings_arrays_and_comments() -> None:
    text = (
        "a = 'x # [t]'  # b = 1\n"
        'b = "q\\"c = 2"\n'
        "c = '''\n[t]\nd = 1'''\n"
        'd = """x\\"""\ne = 1"""\n'
        "e = [\n  { f = 1 },\n  [ 'g = 2' ],\n]\n"
        "[t]\n f = { g = 1, h = [1, 2] }\n"
        "[[arr]]\nk = 1\n"
    )
    lines = key_lines(text, tomllib.loads(text))
    wanted = {("a",): 1, ("b",): 2, ("c",): 3, ("d",): 6, ("e",): 8, ("t",): 12}
    assert {path: lines[path] for path in wanted} == wanted
    assert lines[("t", "f")] == 13
    assert ("arr", "k") not in lines  # a table of an array has no settings: no line at all


def test_a_scan_that_disagrees_with_the_file_names_the_file_alone() -> None:
    text = "a = 1\n"
    assert key_lines(text, {"b": 1}) == {}
    table = FileTable("f.toml [x]", Path("f.toml"), (), text, {"b": 1})
    assert table.place("a") == "f.toml [x]"
    assert FileTable("f.toml", Path("f.toml"), (), text, {"a": 1}).place("a") == "f.toml:1"


def test_keys_inside_values_spanning_lines_are_not_found() -> None:
    text = 's = """\nb = 1\n[c]\n"""\na = [\n  { c = 1 },\n  { b = 2 },\n]\nb = 3\n[c]\nd = 4\n'
    lines = key_lines(text, tomllib.loads(text))
    assert lines == {("s",): 1, ("a",): 5, ("b",): 9, ("c",): 10, ("c", "d"): 11}


def test_keys_of_an_inline_table_name_its_line(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    path = _pyproject(
        repo, '[project]\nname = "x"\n\n[tool]\ntether = { distill_max = 10, maxPerFle = 2 }\n'
    )
    done = run_tether("doctor", cwd=repo)
    assert f"{path}:5: unknown key 'maxPerFle' ignored; did you mean maxPerFile?" in done.stdout
    assert f"{path}:5: distill_max = 10 not taken: " in done.stdout
    assert "[tool.tether]" not in done.stdout


def test_keys_of_nested_inline_tables_name_their_line(tmp_path: Path, tether_home: Path) -> None:
    root = tmp_path / "repo"  # the user's home (tmp_path/tether-home) is outside it
    root.mkdir()
    path = _pyproject(
        root, "# top\n\ntool = { tether = { auto_distill = 1 } }\n[project]\nname = 'x'\n"
    )
    warnings: list[str] = []
    engine_settings(root, warnings.append)
    assert warnings == [f"{path}:3: ignoring auto_distill = 1: give true or false"]

    path = _pyproject(root, "[tool]\n\ntether = { max_per_file = 2, severity = { a = 1 } }\n")
    warnings.clear()
    server_merge(file_sources(root, warnings.append), warnings.append)
    assert [w.partition(" = ")[0] for w in warnings] == [f"{path}:3: ignoring severity"]

    own = _own(root, "# own\ntether = { distill_max = 2 }\n")
    tether_home.mkdir(parents=True, exist_ok=True)
    mine = tether_home / "config.toml"
    mine.write_text("\nlsp = { warmFiles = 3 }\n", encoding="utf-8")
    warnings.clear()
    engine_settings(root, warnings.append)
    assert [w.partition(" ignored")[0] for w in warnings if "unknown key" in w] == [
        f"{own}:2: unknown key 'tether'",
        f"{mine}:2: unknown key 'lsp'",
    ]


def test_the_scan_finds_the_keys_of_inline_tables_at_every_depth() -> None:
    text = "[t]\na = { b = { c = 1 }, d.e = 2, 'f g' = 3 }\nh = [{ i = 1 }]\n"
    lines = key_lines(text, tomllib.loads(text))
    assert lines == {
        ("t",): 1,
        ("t", "a"): 2,
        ("t", "a", "b"): 2,
        ("t", "a", "b", "c"): 2,
        ("t", "a", "d"): 2,
        ("t", "a", "d", "e"): 2,
        ("t", "a", "f g"): 2,
        ("t", "h"): 3,
    }

"""A path holding a line break (git allows one in a file name, any folder may hold one) never
forges an output line of ``doctor``, ``stats``, ``cleanup``, ``repoint``, ``session``,
``distill``, ``fanin`` or ``neighbours`` (nor is a ``[name]`` in it read as markup): their
human output shows it as ``\\n``, and ``--json`` keeps it exact."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import CliResult, git, make_repo, run_tether

Cli = Callable[..., CliResult]

FORGED = "FORGED"
"""What follows the line break in each name: a line starting with it was forged."""
ODD = f"src/a\n{FORGED}.py"
SHOWN = f"src/a\\n{FORGED}.py"


def assert_not_forged(text: str) -> None:
    """No line of ``text`` starts with what followed a line break in a name."""
    assert not [line for line in text.splitlines() if line.startswith(FORGED)], text


def _commit(repo: Path, files: dict[str, str], message: str) -> None:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def _remember(cli: Cli, summary: str, *args: str) -> str:
    done = cli("remember", summary, "-c", "gotcha", *args, "--json")
    assert done.code == 0, done
    return str(done.json()["id"])


def test_doctor_shows_each_problem_on_its_own_line(cli: Cli, repo: Path) -> None:
    _commit(repo, {ODD: "x = 1\n"}, "an odd name")
    memory = _remember(cli, "the odd file is generated", "-f", ODD)
    git(repo, "rm", "-q", ODD)
    git(repo, "commit", "-q", "-m", "gone")
    broken = repo / ".tether" / "memories" / f"0badf11e\n{FORGED}.md"
    broken.write_text("---\ncategory: nope\n---\nx\n", encoding="utf-8")
    done = cli("doctor")
    assert done.code == 1, done
    assert_not_forged(done.stdout)
    assert f"{memory}: every file it names is gone ({SHOWN})" in done.stdout
    assert f"0badf11e\\n{FORGED}.md:2: unknown category 'nope'" in done.stdout
    found = cli("doctor", "--json").json()
    assert len(done.stdout.splitlines()) == len(found)  # one line a problem
    [dead] = [entry for entry in found if entry.get("kind") == "dead-reference"]
    assert dead["files"] == [ODD]
    assert str(broken) in [entry.get("path") for entry in found]


def test_stats_names_the_hub_file_on_one_line(cli: Cli, repo: Path) -> None:
    _commit(repo, {ODD: "x = 1\n"}, "an odd name")
    _remember(cli, "the odd file is generated", "-f", ODD)
    _remember(cli, "the odd file must stay small", "-f", ODD)
    done = cli("stats")
    assert done.code == 0, done
    assert_not_forged(done.stdout)
    [hub] = [line for line in done.stdout.splitlines() if line.rstrip().endswith(SHOWN)]
    assert "2  " in hub
    assert cli("stats", "--json").json()["hub_files"] == [{"path": ODD, "memories": 2}]


def test_cleanup_shows_where_a_symbol_went_on_one_line(cli: Cli, repo: Path) -> None:
    moved_to = f"src/b\n{FORGED}.py"
    _commit(repo, {"src/a.py": "def helper():\n    return 1\n"}, "helper")
    env = {"TETHER_NOW": "2026-01-01T00:00:00+00:00"}
    done = cli(
        "remember", "helper stays pure", "-c", "gotcha", "--anchor", "src/a.py::helper", env=env
    )
    assert done.code == 0, done
    _commit(repo, {"src/a.py": "VALUE = 1\n", moved_to: "def helper():\n    return 1\n"}, "move")
    later = {"TETHER_NOW": "2028-01-01T00:00:00+00:00"}
    done = cli("cleanup", "--interactive", stdin="q\n", env=later)
    assert done.code == 0, done
    assert_not_forged(done.stdout)
    assert f"symbol src/a.py::helper: relocated to src/b\\n{FORGED}.py:1-2" in done.stdout
    [candidate] = cli("cleanup", "--json", env=later).json()["candidates"]
    assert candidate["symbols"] == [f"src/a.py::helper: relocated to {moved_to}:1-2"]


def _odd_folder(tmp_path: Path) -> Path:
    """A repository in a folder whose name holds a line break, set up, whose settings file
    has a key Tether does not know (so a notice names that file)."""
    root = make_repo(tmp_path / f"re\n{FORGED}")
    assert run_tether("init", cwd=root).code == 0
    (root / ".tether" / "config.toml").write_text("bogus_key = 1\n", encoding="utf-8")
    return root


def test_repoint_shows_each_rename_on_one_line(cli: Cli, repo: Path) -> None:
    _commit(repo, {ODD: "x = 1\n"}, "an odd name")
    memory = _remember(cli, "the odd file is generated", "-f", ODD)
    moved = f"src/b\n{FORGED}.py"
    git(repo, "mv", ODD, moved)
    git(repo, "commit", "-q", "-m", "moved")
    done = cli("repoint", memory)
    assert done.code == 0, done
    assert_not_forged(done.stdout)
    assert f"{SHOWN} -> src/b\\n{FORGED}.py" in done.stdout
    assert cli("repoint", memory, "--json").json()["renamed"] == {ODD: moved}


def test_session_start_output_is_not_forged(tmp_path: Path) -> None:
    root = _odd_folder(tmp_path)
    done = run_tether("session", "start", "--session", f"s1\n{FORGED}", cwd=root)
    assert done.code == 0, done
    assert_not_forged(done.stdout)
    assert_not_forged(done.stderr)
    assert f"Started session s1\\n{FORGED}" in done.stdout.splitlines()
    assert f"re\\n{FORGED}/.tether/config.toml:1: unknown key 'bogus_key'" in done.stderr
    data = run_tether("session", "start", "--session", f"s1\n{FORGED}", "--json", cwd=root)
    assert data.json()["session"] == f"s1\n{FORGED}"


def test_distill_output_is_not_forged(tmp_path: Path) -> None:
    root = _odd_folder(tmp_path)
    session = f"s1\n{FORGED}"
    assert run_tether("session", "start", "--session", session, cwd=root).code == 0
    done = run_tether("distill", "--session", session, cwd=root)
    assert done.code == 1, done  # nothing to propose
    assert_not_forged(done.stdout)
    assert_not_forged(done.stderr)
    assert f"(commits of session s1\\n{FORGED})" in done.stdout
    assert f"re\\n{FORGED}/.tether/config.toml:1: unknown key 'bogus_key'" in done.stderr
    data = run_tether("distill", "--session", session, "--json", cwd=root).json()
    assert data["source"] == f"commits of session {session}"


IN_FOLDER = f"src/x\n{FORGED}/tool.py"
"""A file whose folder holds a line break: offered for a typo of its name in another folder."""


def test_remember_offers_a_close_name_on_one_line(cli: Cli, repo: Path) -> None:
    _commit(repo, {IN_FOLDER: "x = 1\n"}, "an odd folder")
    done = cli("remember", "the tool is generated", "-c", "gotcha", "-f", "lib/tool.py")
    assert done.code == 2, done
    assert_not_forged(done.stderr)
    assert f"did you mean src/x\\n{FORGED}/tool.py?" in done.stderr
    assert not list((repo / ".tether" / "memories").glob("*.md"))


def test_list_notes_a_missing_file_and_its_close_name_on_one_line(cli: Cli, repo: Path) -> None:
    _commit(repo, {IN_FOLDER: "x = 1\n"}, "an odd folder")
    _remember(cli, "the tool is generated", "-f", IN_FOLDER)
    typo = f"lib\n{FORGED}/tool.py"
    done = cli("list", "--file", typo)
    assert done.code == 1, done  # nothing listed
    assert_not_forged(done.stdout + done.stderr)
    assert f"lib\\n{FORGED}/tool.py is not a file of this repository" in done.stderr
    assert f"did you mean src/x\\n{FORGED}/tool.py?" in done.stderr


def test_fanin_and_neighbours_show_a_line_break_as_an_escape(cli: Cli, repo: Path) -> None:
    _commit(repo, {ODD: "x = 1\n", "src/[b].py": "y = 2\n"}, "an odd name")
    _commit(repo, {ODD: "x = 2\n", "src/[b].py": "y = 3\n"}, "both again")
    assert cli("index").code == 0
    fanin = cli("fanin", ODD)
    assert fanin.code == 0, fanin
    assert fanin.stdout.strip() == f"0 files import {SHOWN}"
    neighbours = cli("neighbours", ODD)
    assert neighbours.code == 0, neighbours
    assert_not_forged(neighbours.stdout)
    assert neighbours.stdout.splitlines() == ["src/[b].py\t2\t2\t1.00"]  # piped: one line
    missing = cli("fanin", f"src/gone\n{FORGED}.py")
    assert missing.code == 1, missing
    assert missing.stdout == ""  # piped: the rows are data, the sentence is not
    said = missing.stderr.strip()
    assert said.startswith(f"src/gone\\n{FORGED}.py is not a file of this repository; did you")
    assert "\n" not in said
    bracket = cli("neighbours", "src/[b].py")
    assert bracket.stdout.splitlines() == [f"{SHOWN}\t2\t2\t1.00"]
    none = cli("neighbours", "src/[c].py")
    assert none.stdout == ""
    said = "src/[c].py is not a file of this repository; did you mean src/[b].py?"
    assert none.stderr.strip() == said

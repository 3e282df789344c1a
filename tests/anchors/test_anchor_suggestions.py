"""An anchor naming a symbol its file does not define is kept, as before, and the write names
the symbols the file does define spelt closest to it, qualified as an anchor takes them: in
the note on stderr and in ``anchor_suggestions`` for ``--json`` (``remember``, ``supersede``,
``confirm``), for a file read by a grammar (Python, Go) or by the fallback reader (Ruby); and
a name renamed where it is is said with the closest names by ``check``, ``repoint``, ``show``
and ``doctor`` (``anchor_suggestions`` in ``--json`` too)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo

CORE_PY = (
    "class Store:\n"
    "    def save(self, item):\n"
    "        return item\n\n"
    "    def load(self):\n"
    "        return None\n\n\n"
    "def load_session(path):\n"
    "    return path\n"
)
UTIL_GO = (
    "package util\n\n"
    "type Store struct{}\n\n"
    "func (s *Store) Save(x int) int {\n\treturn x\n}\n\n"
    "func LoadSession(p string) string {\n\treturn p\n}\n"
)
STORE_RB = "class Store\n  def save(x)\n    x\n  end\nend\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "repo",
        {"src/core.py": CORE_PY, "src/util.go": UTIL_GO, "lib/store.rb": STORE_RB},
    )


def remember(cli: Callable[..., CliResult], *args: str) -> CliResult:
    done = cli("remember", "anchored knowledge", "-c", "gotcha", "--json", *args)
    assert done.code == 0, done.stderr  # kept: a symbol may be still to come
    return done


@pytest.mark.parametrize(
    ("anchor", "closest"),
    [
        ("src/core.py::Store.sve", "Store.save"),
        ("src/core.py::load_sesion", "load_session"),
        ("src/core.py::sve", "Store.save"),
        ("src/util.go::Store.Sve", "Store.Save"),
        ("src/util.go::LoadSesion", "LoadSession"),
        ("lib/store.rb::Store.sve", "save"),  # the fallback reader knows no containers
    ],
)
def test_a_mistyped_symbol_is_kept_and_the_closest_ones_named(
    cli: Callable[..., CliResult], anchor: str, closest: str
) -> None:
    done = remember(cli, "--anchor", anchor)
    path, _, name = anchor.partition("::")
    assert f"{path} defines no {name}; did you mean {closest}" in done.stderr
    suggested = done.json()["anchor_suggestions"]
    assert list(suggested) == [anchor] and suggested[anchor][0] == closest
    [note] = done.json()["anchor_notes"]  # the note as it was, the names beside it
    assert note in done.stderr and f"did you mean {closest}" in note
    [kept] = cli("show", done.json()["id"], "--json").json()["anchors"]
    assert (kept["symbol"], kept["body"]) == (anchor, None)


def test_a_member_is_offered_members_not_its_class(cli: Callable[..., CliResult]) -> None:
    done = remember(cli, "--anchor", "src/core.py::Store.sve")
    assert done.json()["anchor_suggestions"] == {
        "src/core.py::Store.sve": ["Store.save", "Store.load"]
    }
    assert "did you mean Store.save or Store.load?" in done.stderr
    typo = remember(cli, "--anchor", "src/core.py::Stor.sve")  # a member, not the class
    assert typo.json()["anchor_suggestions"] == {"src/core.py::Stor.sve": ["Store.save"]}


def test_a_name_nothing_is_close_to_has_no_suggestions(cli: Callable[..., CliResult]) -> None:
    done = remember(cli, "--anchor", "src/core.py::nosuch")
    assert "src/core.py defines no nosuch)" in done.stderr
    assert "anchor_suggestions" not in done.json()
    assert len(done.json()["anchor_notes"]) == 1


def test_a_bare_name_with_one_file_names_the_closest_ones(cli: Callable[..., CliResult]) -> None:
    done = remember(cli, "-f", "src/core.py", "--anchor", "load_sesion")
    assert "did you mean load_session?" in done.stderr
    assert done.json()["anchor_suggestions"] == {"src/core.py::load_sesion": ["load_session"]}


def test_supersede_and_confirm_give_the_same_names(cli: Callable[..., CliResult]) -> None:
    old = remember(cli, "-f", "src/core.py")
    done = cli(
        "supersede",
        old.json()["id"],
        "new knowledge",
        "--anchor",
        "src/util.go::LoadSesion",
        "--json",
    )
    assert done.code == 0, done.stderr
    assert done.json()["anchor_suggestions"] == {"src/util.go::LoadSesion": ["LoadSession"]}
    confirmed = cli("confirm", done.json()["id"], "--json")
    assert confirmed.code == 0, confirmed.stderr
    assert confirmed.json()["not_confirmed"] == ["src/util.go::LoadSesion"]
    assert confirmed.json()["anchor_suggestions"] == {"src/util.go::LoadSesion": ["LoadSession"]}
    assert "did you mean LoadSession?" in " ".join(confirmed.json()["notes"])


@pytest.mark.parametrize(
    ("path", "old", "new", "text"),
    [
        (
            "src/core.py",
            "load_session",
            "load_sessions",
            ("def load_session(", "def load_sessions("),
        ),
        ("src/util.go", "Store.Save", "Store.SaveAll", ("Save(x int)", "SaveAll(x int)")),
    ],
)
def test_check_and_repoint_name_what_a_symbol_renamed_in_place_is_now(
    repo: Path,
    cli: Callable[..., CliResult],
    path: str,
    old: str,
    new: str,
    text: tuple[str, str],
) -> None:
    memory_id = remember(cli, "--anchor", f"{path}::{old}", "--pin").json()["id"]
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a pinned memory")
    (repo / path).write_text((repo / path).read_text().replace(*text))
    checked = cli("check", "--json")
    assert checked.code == 1, checked.stdout + checked.stderr
    [failure] = checked.json()["failures"]
    assert (
        f"the change deletes symbol {old}, anchored at {path}; {path} now defines {new}, the "
        "closest name; the memory is pinned"
    ) in failure["reason"]
    assert failure["anchor_suggestions"] == {f"{path}::{old}": [new]}  # the names said, as JSON
    git(repo, "commit", "-q", "-am", "renamed where it is")
    repointed = cli("repoint", memory_id)
    assert repointed.code == 1  # nothing to follow: the name is new in its own file
    said = " ".join(repointed.stderr.split())
    assert f"the working tree defines no {old} in {path}; did you mean {new}?" in said
    assert f"`tether supersede {memory_id} SUMMARY --anchor {path}::NAME`" in said


def test_check_offers_nothing_for_a_symbol_deleted_outright(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    remember(cli, "--anchor", "src/core.py::load_session", "--pin")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a pinned memory")
    core = repo / "src/core.py"
    core.write_text(core.read_text().replace("def load_session(path):\n    return path\n", ""))
    [failure] = cli("check", "--json").json()["failures"]
    assert "anchored at src/core.py; the memory is pinned" in failure["reason"]
    assert "anchor_suggestions" not in failure


def test_a_review_of_a_symbol_renamed_in_place_gives_the_names_in_json(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    remember(cli, "--anchor", "src/core.py::load_session")  # neither pinned nor guarded
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a memory")
    core = repo / "src/core.py"
    core.write_text(core.read_text().replace("def load_session(", "def load_sessions("))
    checked = cli("check", "--json")
    assert checked.code == 0, checked.stdout + checked.stderr
    [review] = checked.json()["review"]
    assert "src/core.py now defines load_sessions, the closest name" in review["reason"]
    assert review["anchor_suggestions"] == {"src/core.py::load_session": ["load_sessions"]}


def renamed_in_place(repo: Path, cli: Callable[..., CliResult]) -> str:
    """A memory anchored to load_session, which a commit then renames to load_sessions in its
    own file, indexed; beside it one anchored to a name still there. The first one's id."""
    memory_id = remember(cli, "--anchor", "src/core.py::load_session").json()["id"]
    other = cli(
        "remember", "saves are atomic", "-c", "gotcha", "--anchor", "src/core.py::Store.save"
    )
    assert other.code == 0, other.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "two memories")
    core = repo / "src/core.py"
    core.write_text(core.read_text().replace("def load_session(", "def load_sessions("))
    git(repo, "commit", "-q", "-am", "renamed where it is")
    assert cli("index").code == 0
    return memory_id


GONE_SAID = "symbol src/core.py::load_session: gone; did you mean load_sessions?"


def renamed_fix(memory_id: str) -> str:
    """What each surface says ties the memory to the new name (as ``repoint`` says it)."""
    return (
        f"`tether supersede {memory_id} SUMMARY --anchor src/core.py::NAME` ties the memory to it"
    )


def test_doctor_names_what_a_symbol_renamed_in_place_is_now(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory_id = renamed_in_place(repo, cli)
    doctor = cli("doctor", "--json")
    assert doctor.code == 1, doctor.stderr
    [entry] = [e for e in doctor.json() if e["kind"] == "anchor"]  # the other is current
    assert (entry["id"], entry["state"]) == (memory_id, "gone")
    assert entry["anchor_suggestions"] == {"src/core.py::load_session": ["load_sessions"]}
    assert GONE_SAID in entry["message"] and renamed_fix(memory_id) in entry["message"]
    assert f"if it holds no more, `tether archive {memory_id}`" in entry["message"]
    assert GONE_SAID in cli("doctor").stdout


def test_show_names_what_a_symbol_renamed_in_place_is_now(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory_id = renamed_in_place(repo, cli)
    shown = cli("show", memory_id, "--json").json()
    assert shown["anchor_suggestions"] == {"src/core.py::load_session": ["load_sessions"]}
    assert [s["state"] for s in shown["anchor_states"]] == ["gone"]
    card = " ".join(cli("show", memory_id).stdout.split())
    assert GONE_SAID in card and renamed_fix(memory_id) in card


def test_doctor_offers_nothing_for_a_symbol_whose_file_is_deleted(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory_id = remember(cli, "--anchor", "src/core.py::load_session").json()["id"]
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a memory")
    git(repo, "rm", "-q", "src/core.py")
    git(repo, "commit", "-q", "-m", "no more core")
    assert cli("index").code == 0
    [entry] = [e for e in cli("doctor", "--json").json() if e["kind"] == "anchor"]
    assert (entry["id"], entry["state"]) == (memory_id, "gone")
    assert "anchor_suggestions" not in entry and "did you mean" not in entry["message"]
    assert "`tether supersede" in entry["message"]  # the advice as before: tie it elsewhere

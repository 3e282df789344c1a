"""A new user's first hour with the real ``tether`` CLI in a real git repository: typed paths
that name nothing, commands run before ``init``, short id prefixes, listings and help."""

from __future__ import annotations

import argparse
import itertools
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

from conftest import CliResult, git, make_repo, run_on_pty, run_tether

from recall import closest_names, known_paths
from recall.cli.context import SKIPPED_NAMED
from recall.cli.main import build_parser
from recall.cli.render import NARROW_COLUMNS
from recall.model import MIN_ID_PREFIX

Cli = Callable[..., CliResult]


def ok(result: CliResult) -> CliResult:
    """Assert a run succeeded (showing its stderr if not)."""
    assert result.code == 0, result
    return result


def memory_files(repo: Path) -> list[Path]:
    """The memory files of the project store."""
    folder = repo / ".tether" / "memories"
    return sorted(folder.glob("*.md")) if folder.is_dir() else []


# -- 1. typos ------------------------------------------------------------------------------------


def test_remember_refuses_a_path_the_repository_never_had(cli: Cli, repo: Path) -> None:
    result = cli("remember", "Flush before exit", "-c", "gotcha", "-f", "src/ap.py")
    assert result.code == 2, result
    assert result.stdout == ""
    assert "'src/ap.py' is not in the repository's files" in result.stderr
    assert "did you mean src/app.py" in result.stderr
    assert "--allow-missing" in result.stderr
    assert memory_files(repo) == []


def test_remember_names_every_missing_path_and_suggests_the_same_name_elsewhere(
    cli: Cli, repo: Path
) -> None:
    result = cli("remember", "Two typos", "-c", "gotcha", "-f", "util.py", "-f", "nowhere.zz")
    assert result.code == 2, result
    assert "'util.py' is not in the repository's files" in result.stderr
    assert "did you mean src/util.py" in result.stderr
    assert "'nowhere.zz'" in result.stderr
    assert memory_files(repo) == []


def test_a_path_typed_from_a_subfolder_is_suggested_as_typed_there(cli: Cli, repo: Path) -> None:
    # read from the folder it was typed in, the path names src/src/app.py: said both ways,
    # and the file meant offered as it is typed there (from the root it would fail again)
    result = cli("remember", "Relative typo", "-c", "gotcha", "-f", "src/app.py", cwd=repo / "src")
    assert result.code == 2, result
    assert "--file 'src/app.py' (src/src/app.py in the repository)" in result.stderr
    assert "did you mean app.py?" in result.stderr
    ok(cli("remember", "Relative typo", "-c", "gotcha", "-f", "app.py", cwd=repo / "src"))


def test_remember_accepts_a_deleted_file_from_history_and_an_untracked_one(
    cli: Cli, repo: Path
) -> None:
    git(repo, "rm", "-q", "docs/guide.md")
    git(repo, "commit", "-q", "-m", "drop the guide")
    (repo / "new.py").write_text("x = 1\n", encoding="utf-8")
    ok(cli("remember", "The guide had the setup steps", "-c", "context", "-f", "docs/guide.md"))
    ok(cli("remember", "New module", "-c", "context", "-f", "new.py"))
    assert len(memory_files(repo)) == 2


def test_allow_missing_writes_a_file_to_come(cli: Cli, repo: Path) -> None:
    args = ("-c", "decision", "-f", "src/later.py", "--allow-missing", "--json")
    out = ok(cli("remember", "Planned", *args)).json()
    text = (repo / ".tether" / "memories" / f"{out['id']}.md").read_text(encoding="utf-8")
    assert "src/later.py" in text


def test_supersede_checks_the_new_paths_too(cli: Cli, repo: Path) -> None:
    old = ok(cli("remember", "Old", "-c", "gotcha", "-f", "src/app.py", "--json")).json()["id"]
    result = cli("supersede", old, "New", "-c", "gotcha", "-f", "src/utill.py")
    assert result.code == 2, result
    assert "did you mean src/util.py" in result.stderr


def test_hand_written_memory_with_a_missing_path_still_loads_and_doctor_reports_it(
    cli: Cli, repo: Path
) -> None:
    ok(cli("init"))
    (repo / ".tether" / "memories" / "abcd1234.md").write_text(
        "---\nid: abcd1234\ncategory: gotcha\nfiles: [src/gone.py]\n---\nWritten by hand\n",
        encoding="utf-8",
    )
    listed = ok(cli("list", "--json")).json()
    assert [m["id"] for m in listed] == ["abcd1234"]
    doctor = cli("doctor")
    assert doctor.code == 1, doctor
    assert "abcd1234: every file it names is gone (src/gone.py)" in doctor.stdout
    (repo / ".tether" / "memories" / "abcd5678.md").write_text(
        "---\nid: abcd5678\ncategory: gotcha\nfiles: [src/utill.py]\n---\nA typo by hand\n",
        encoding="utf-8",
    )
    doctor = cli("doctor")
    assert "abcd5678: every file it names is gone (src/utill.py); did you mean src/util.py?" in (
        doctor.stdout
    )


def test_recall_of_a_path_missing_from_the_tree_says_so(cli: Cli, repo: Path) -> None:
    result = cli("recall", "-f", "src/app.py", cwd=repo / "src")
    assert result.code == 1, result
    # said as typed in src/ (the repository's src/src/app.py), the file meant offered as typed there
    assert "src/app.py is not a file of this repository; did you mean app.py?" in result.stderr
    quiet = cli("recall", "-f", "app.py", cwd=repo / "src")
    assert "not a file" not in quiet.stderr, quiet


def test_neighbours_and_fanin_of_a_mistyped_path_say_so_as_recall_does(
    cli: Cli, repo: Path
) -> None:
    said = "src/ap.py is not a file of this repository; did you mean src/app.py?"
    assert said in cli("recall", "-f", "src/ap.py").stderr
    for command in ("neighbours", "fanin"):
        typo = cli(command, "src/ap.py")
        assert typo.code == 1, typo
        assert typo.stdout == "" and typo.stderr.strip() == said  # piped: on stderr
        assert cli(command, "src/ap.py", "--json").json()["notes"] == [said]
        folder = cli(command, "src")
        assert folder.code == 1, folder
        assert f"PATH 'src' is a folder; `tether {command}` takes one of its files" in (
            folder.stderr
        )
    (repo / "alone.py").write_text("x = 1\n", encoding="utf-8")  # never committed with any
    alone = cli("neighbours", "alone.py")
    assert alone.stderr.strip() == "no co-change neighbours recorded for alone.py"
    assert "notes" not in cli("fanin", "src/app.py", "--json").json()


def test_suggestions_prefer_the_same_name_then_close_spellings() -> None:
    tree = ["ip/iproute.c", "ip/ipaddress.c", "lib/libnetlink.c", "tc/iproute.c"]
    assert closest_names.suggestions("ip/iproutee.c", tree)[0] == "ip/iproute.c"
    assert closest_names.suggestions("iproute.c", tree)[:2] == ["ip/iproute.c", "tc/iproute.c"]
    assert closest_names.suggestions("zzz/qqq.h", tree) == []
    # a shared folder and extension do not make names alike
    assert closest_names.suggestions("src/gone.py", ["src/app.py", "src/util.py"]) == []
    assert closest_names.suggestions("src/ap.py", ["src/app.py", "src/util.py"]) == ["src/app.py"]
    assert len(closest_names.suggestions("ip/iproute.c", tree * 3)) <= closest_names.SUGGESTIONS


def test_the_judgement_constants_are_pinned() -> None:
    from recall.cli import command_table, context
    from recall.lifecycle import stats

    assert closest_names.SIMILARITY_CUTOFF == 0.6
    assert closest_names.SUGGESTIONS == 3
    assert known_paths.WALK_LIMIT == 50_000
    assert known_paths.GIT_TIMEOUT_S == 30
    assert command_table.COMMAND_SUGGESTIONS == 3
    assert context.MIN_PREFIX == 4
    assert stats.HUB_FILES == 8


def test_tree_paths_leave_out_tethers_own_files(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    ok(run_tether("remember", "A", "-c", "gotcha", "-f", "src/app.py", cwd=repo))
    paths = known_paths.tree_paths(repo)
    assert "src/app.py" in paths
    assert not any(p.startswith(".tether/") for p in paths)
    assert json.dumps(paths)  # plain strings


def test_a_folder_given_for_a_file_is_refused_by_remember_and_named_by_recall(
    cli: Cli, repo: Path
) -> None:
    """A memory is about files: one naming a folder would match no file anyone touches."""
    result = cli("remember", "Close every cursor", "-c", "gotcha", "-f", "src")
    assert result.code == 2, result
    assert "--file 'src' is a folder; name the files it is about (src/app.py, src/util.py)" in (
        result.stderr
    )
    assert memory_files(repo) == []
    recalled = cli("recall", "-f", "src/")
    assert "path 'src' is a folder; recall takes the files touched (src/app.py" in recalled.stderr


def test_remember_refuses_gits_own_files(cli: Cli, repo: Path) -> None:
    result = cli("remember", "The remote is the mirror", "-c", "context", "-f", ".git/config")
    assert result.code == 2, result
    assert "--file '.git/config' is one of git's own files" in result.stderr
    assert memory_files(repo) == []


def test_an_anchors_file_is_checked_and_named_as_the_anchor(cli: Cli, repo: Path) -> None:
    """The file of ``--anchor PATH::NAME`` is checked as a ``--file`` is, and a refusal names
    the option the user wrote."""
    result = cli("remember", "Pool closes", "-c", "gotcha", "--anchor", "src/ap.py::Pool.close")
    assert result.code == 2, result
    assert "--anchor 'src/ap.py' is not in the repository's files" in result.stderr
    assert "did you mean src/app.py?" in result.stderr
    assert memory_files(repo) == []


def test_an_import_of_nothing_says_so_and_exits_1(cli: Cli, repo: Path) -> None:
    empty = repo.parent / "empty.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    result = cli("import", str(empty))
    assert result.code == 1, result
    assert f"{empty}: nothing to import, the input holds no line" in result.stderr
    assert cli("import", "-", stdin="").code == 1


def test_doctor_reports_a_settings_file_it_cannot_read_or_a_key_it_does_not_know(
    cli: Cli, repo: Path
) -> None:
    ok(cli("init"))
    config = repo / ".tether" / "config.toml"
    config.write_text("[recall\n", encoding="utf-8")
    broken = cli("doctor")
    assert broken.code == 1, broken
    assert f"{config}:1: not read (" in broken.stdout
    config.write_text("recency_maxx = 1\n", encoding="utf-8")
    unknown = cli("doctor", "--json")
    assert unknown.code == 1, unknown
    [entry] = unknown.json()
    assert entry["kind"] == "settings"
    assert entry["message"].startswith(f"{config}:1: unknown key 'recency_maxx' ignored")
    config.write_text(
        'auto_distill = "yes"\ndistill_max = -5\narchive_window_days = 30\n', encoding="utf-8"
    )
    ignored = cli("doctor", "--json")  # known keys whose values the engine would ignore
    assert ignored.code == 1, ignored
    assert [e["message"] for e in ignored.json()] == [
        f"{config}:1: ignoring auto_distill = 'yes': give true or false",
        f"{config}:2: ignoring distill_max = -5: give a whole number above 0",
    ]
    config.unlink()
    assert ok(cli("doctor")).stdout.strip() == "No problems found."


def test_remember_says_when_a_file_it_names_was_renamed(cli: Cli, repo: Path) -> None:
    git(repo, "mv", "src/util.py", "src/helpers.py")
    git(repo, "commit", "-q", "-m", "util is helpers now")
    ok(cli("init"))
    ok(cli("index"))  # the renames as the index knows them
    done = ok(cli("remember", "Helpers stay pure", "-c", "decision", "-f", "src/util.py"))
    assert "--file 'src/util.py' was renamed to src/helpers.py; the memory names src/util.py" in (
        done.stderr
    )
    quiet = ok(cli("remember", "Helpers are tested", "-c", "decision", "-f", "src/helpers.py"))
    assert "renamed" not in quiet.stderr


def test_remember_says_when_the_file_a_rename_made_was_deleted(cli: Cli, repo: Path) -> None:
    git(repo, "mv", "src/util.py", "src/helpers.py")
    git(repo, "commit", "-q", "-m", "util is helpers now")
    git(repo, "rm", "-q", "src/helpers.py")
    git(repo, "commit", "-q", "-m", "helpers are gone")
    ok(cli("init"))
    ok(cli("index"))
    done = ok(cli("remember", "Helpers stay pure", "-c", "decision", "-f", "src/util.py"))
    assert (
        "--file 'src/util.py' was renamed to src/helpers.py, which was later deleted; the "
        "memory names src/util.py, a file the repository no longer has"
    ) in done.stderr
    assert "recall follows the rename" not in done.stderr


# -- 3. recall with nothing to go on ---------------------------------------------------------------


def test_recall_with_neither_prompt_nor_file_says_what_to_give(cli: Cli) -> None:
    for args in (("recall",), ("recall", "--json"), ("recall", "   ")):
        result = cli(*args)
        assert result.code == 2, result
        assert result.stdout == ""
        assert "give a prompt, --file PATH or --open PATH (one or more of them)" in result.stderr
        assert "both" not in result.stderr


# -- 2. before init --------------------------------------------------------------------------------


def test_list_before_init_says_to_run_init(cli: Cli, repo: Path) -> None:
    result = cli("list")
    assert result.code == 1, result
    assert "no .tether/ in" in result.stderr and "`tether init`" in result.stderr
    as_json = cli("list", "--json")
    assert as_json.code == 1 and as_json.json() == []
    assert "`tether init`" in as_json.stderr
    search = cli("search", "anything")
    assert "`tether init`" in search.stderr
    ok(cli("init"))
    assert "tether init" not in cli("list").stderr


def test_recall_and_doctor_before_init_say_to_run_init(cli: Cli, repo: Path) -> None:
    said = f"no .tether/ in {repo} yet: `tether init` sets this repository up"
    recalled = cli("recall", "hello")
    assert recalled.code == 1, recalled
    assert said in recalled.stderr
    assert said in cli("recall", "-f", "src/app.py", "--json").stderr
    doctor = cli("doctor")
    assert doctor.code == 0, doctor
    assert doctor.stderr.count(said) == 1
    assert cli("doctor", "--json").stderr.count(said) == 1
    ok(cli("init"))
    assert "tether init" not in cli("recall", "hello").stderr
    assert "tether init" not in ok(cli("doctor")).stderr


def test_check_and_pending_before_init_say_to_run_init(cli: Cli, repo: Path) -> None:
    """An empty answer before `tether init` says why, as recall and doctor do; the exit codes
    and the --json output stay as they were."""
    said = f"no .tether/ in {repo} yet: `tether init` sets this repository up"
    checked = cli("check")
    assert checked.code == 0, checked
    assert checked.stderr.count(said) == 1
    as_json = cli("check", "--json")
    assert as_json.code == 0 and as_json.json()["review"] == []
    assert said in as_json.stderr
    assert said in cli("check", "--format", "github").stderr
    listed = cli("pending")
    assert listed.code == 1 and "No memories are pending review." in listed.stdout
    assert listed.stderr.count(said) == 1
    pending_json = cli("pending", "--json")
    assert pending_json.code == 1 and pending_json.json() == []
    assert said in pending_json.stderr
    ok(cli("init"))
    assert "tether init" not in ok(cli("check")).stderr
    assert "tether init" not in cli("pending").stderr


def test_reindex_before_init_says_it_set_the_repository_up(cli: Cli, repo: Path) -> None:
    said = f"created {repo / '.tether'} for this repository's memories, as `tether init` does"
    first = ok(cli("reindex"))
    assert "Reindexed 0 memories" in first.stdout
    assert first.stderr.count(said) == 1
    assert (repo / ".tether" / "memories").is_dir()
    assert said not in ok(cli("reindex")).stderr


def test_check_of_a_change_that_deletes_the_store_does_not_say_to_run_init(
    cli: Cli, repo: Path
) -> None:
    ok(cli("remember", "app.py is touchy", "-c", "gotcha", "-f", "src/app.py"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "memories")
    shutil.rmtree(repo / ".tether")
    checked = cli("check")
    assert checked.code == 0, checked
    assert "tether init" not in checked.stderr


def test_list_outside_any_repository_with_no_global_memory_says_why_it_is_empty(
    cli: Cli, tmp_path: Path
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    for args in (("list",), ("search", "anything"), ("list", "--json")):
        result = cli(*args, cwd=plain)
        assert result.code == 1, result
        assert f"{plain} is not inside a git repository" in result.stderr
        assert "`tether remember --global`" in result.stderr
    assert cli("list", "--json", cwd=plain).json() == []
    ok(cli("remember", "Prefer tabs", "-c", "pref", "--global", cwd=plain))
    listed = ok(cli("list", cwd=plain))
    assert "Prefer tabs" in listed.stdout
    assert "not inside a git repository" not in listed.stderr


def test_remember_before_init_creates_the_store_and_says_so(cli: Cli, repo: Path) -> None:
    first = ok(cli("remember", "First", "-c", "gotcha", "-f", "src/app.py"))
    assert f"created {repo / '.tether'}" in first.stderr
    assert "as `tether init` does" in first.stderr
    second = ok(cli("remember", "Second", "-c", "gotcha", "-f", "src/app.py"))
    assert "created" not in second.stderr
    assert len(memory_files(repo)) == 2


def test_dash_c_names_a_missing_folder(cli: Cli, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    for args in (("list",), ("remember", "x", "-c", "gotcha")):
        result = cli("-C", str(missing), *args)
        assert result.code == 2, result
        assert result.stdout == ""
        assert f"-C {missing}: does not exist" in result.stderr
    as_json = cli("-C", str(missing), "--json", "list")
    assert json.loads(as_json.stderr) == {
        "error": f"-C {missing}: does not exist",
        "exit_code": 2,
    }
    a_file = tmp_path / "file.txt"
    a_file.write_text("x", encoding="utf-8")
    assert "is not a folder" in cli("-C", str(a_file), "list").stderr


def test_init_outside_git_says_what_is_missing(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    result = ok(run_tether("init", cwd=plain))
    assert "is not in a git repository" in result.stderr
    assert "git init" in result.stderr
    inside = ok(run_tether("init", cwd=make_repo(tmp_path / "r")))
    assert "git" not in inside.stderr


# -- 4. short id prefixes --------------------------------------------------------------------------


def test_a_prefix_shorter_than_four_characters_says_prefixes_need_four(cli: Cli) -> None:
    memory_id = ok(cli("remember", "Short", "-c", "gotcha", "-f", "src/app.py", "--json")).json()[
        "id"
    ]
    short = cli("show", memory_id[:3])
    assert short.code == 2, short
    assert short.stdout == ""
    assert "an id prefix needs at least 4 characters" in short.stderr
    assert MIN_ID_PREFIX == 4  # pinned: the store, the CLI and the MCP tools share it
    assert ok(cli("show", memory_id[:4], "--json")).json()["id"] == memory_id
    unknown = cli("show", "ffff0000")
    assert unknown.code == 1 and "at least 4" not in unknown.stderr


def test_an_ambiguous_prefix_names_the_memories_it_matches(cli: Cli) -> None:
    lines = "".join(
        json.dumps({"id": f"06cf000{n}", "summary": f"note {n}", "category": "context"}) + "\n"
        for n in range(1, 8)
    )
    ok(cli("import", "-", stdin=lines))
    refused = cli("show", "06cf")
    assert refused.code == 2, refused
    assert refused.stderr.count("\n") == 1  # one line however many match
    assert "matches several memories (06cf0001, 06cf0002, 06cf0003, 06cf0004, 06cf0005, ...)" in (
        refused.stderr
    )
    assert ok(cli("show", "06cf0007", "--json")).json()["summary"] == "note 7"


# -- 5. listings -----------------------------------------------------------------------------------


def run_on_terminal(*args: str, cwd: Path, columns: int = 200) -> str:
    """Run the CLI with stdout on a pseudo-terminal; return what it printed there."""
    return run_on_pty(*args, cwd=cwd, env={"COLUMNS": str(columns), "NO_COLOR": "1"})


LONG_PATH = "lib/" + "a" * 70 + "/libnetlink.c"


def seed_three(cli: Cli, repo: Path) -> list[str]:
    """Three memories, the last one on a path longer than a terminal line; ids oldest first."""
    target = repo / LONG_PATH
    target.parent.mkdir(parents=True)
    target.write_text("int x;\n", encoding="utf-8")
    ids = []
    for summary, path in (("One", "src/app.py"), ("Two", "src/util.py"), ("Three", LONG_PATH)):
        out = ok(cli("remember", summary, "-c", "gotcha", "-f", path, "--json")).json()
        ids.append(out["id"])
    return ids


def test_piped_list_prints_one_record_per_line(cli: Cli, repo: Path) -> None:
    ids = seed_three(cli, repo)
    lines = ok(cli("list", env={"COLUMNS": "80"})).stdout.splitlines()
    assert len(lines) == 3
    assert {line.split("\t")[0] for line in lines} == set(ids)
    three = next(line for line in lines if line.startswith(ids[2]))
    assert three.split("\t") == [ids[2], "gotcha", "Three", LONG_PATH, "project", ""]


def test_list_on_a_terminal_is_a_table_with_a_title(cli: Cli, repo: Path) -> None:
    seed_three(cli, repo)
    shown = run_on_terminal("list", cwd=repo)
    assert "3 memories (active)" in shown
    assert "┏" in shown and "┃" in shown  # the table's frame
    assert "\t" not in shown


def test_a_narrow_terminal_gets_each_memory_as_a_block(cli: Cli, repo: Path) -> None:
    assert NARROW_COLUMNS == 80  # a standard terminal still gets the table
    ids = seed_three(cli, repo)
    ok(cli("pin", ids[0]))
    shown = run_on_terminal("list", cwd=repo, columns=NARROW_COLUMNS - 1)
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line).rstrip() for line in shown.splitlines()]
    assert "┏" not in shown and "│" not in shown
    assert lines[0] == "3 memories (active)"
    at = lines.index(f"{ids[0]}  gotcha  project  (pinned)")
    assert lines[at + 1 : at + 3] == ["  One", "  files: src/app.py"]
    three = lines.index(f"{ids[2]}  gotcha  project")
    block = itertools.takewhile(lambda line: line.startswith("  "), lines[three + 2 :])
    assert "".join(line.strip() for line in block) == f"files:{LONG_PATH}"  # folded, not cut
    assert max(len(line) for line in lines) <= NARROW_COLUMNS - 1
    wide = run_on_terminal("list", cwd=repo, columns=NARROW_COLUMNS)
    assert "┏" in wide


def test_an_empty_list_on_a_terminal_is_its_title_alone(cli: Cli, repo: Path) -> None:
    ok(cli("init"))
    shown = run_on_terminal("list", cwd=repo)
    assert "0 memories (active)" in shown
    assert "┏" not in shown


def test_search_limit_says_when_more_match(cli: Cli, repo: Path) -> None:
    for n in range(3):
        ok(cli("remember", f"cache note {n} on the pool", "-c", "context", "-f", "src/app.py"))
    assert len(ok(cli("search", "cache", "--limit", "2", "--json")).json()) == 2
    shown = run_on_terminal("search", "cache", "--limit", "2", cwd=repo)
    assert "2 matches for 'cache' (more beyond --limit 2)" in shown
    shown = run_on_terminal("search", "cache", "--limit", "3", cwd=repo)
    assert "3 matches for 'cache'" in shown and "more beyond" not in shown


def test_list_refuses_an_empty_file_instead_of_listing_everything(cli: Cli, repo: Path) -> None:
    ok(cli("remember", "Pool closes", "-c", "gotcha", "-f", "src/app.py"))
    result = cli("list", "--file", "")
    assert result.code == 2, result
    assert result.stdout == ""
    assert "--file is empty; give a file path inside the repository" in result.stderr


def test_list_by_a_mistyped_file_says_so_and_a_deleted_one_still_lists(
    cli: Cli, repo: Path
) -> None:
    ok(cli("remember", "Pool closes", "-c", "gotcha", "-f", "src/app.py"))
    typo = cli("list", "--file", "src/ap.py")
    assert typo.code == 1, typo
    assert "src/ap.py is not a file of this repository; did you mean src/app.py?" in typo.stderr
    (repo / "src" / "app.py").unlink()
    gone = cli("list", "--file", "src/app.py", "--json")
    assert gone.code == 0, gone
    assert [m["summary"] for m in gone.json()] == ["Pool closes"]
    assert "not a file" not in gone.stderr


def test_list_limit(cli: Cli, repo: Path) -> None:
    ids = seed_three(cli, repo)
    assert len(ok(cli("list", "--limit", "2")).stdout.splitlines()) == 2
    assert len(ok(cli("list", "--limit", "2", "--json")).json()) == 2
    assert len(ok(cli("list", "--limit", "9", "--json")).json()) == 3
    shown = run_on_terminal("list", "--limit", "2", cwd=repo)
    assert "2 of 3 memories (active); --limit 2" in shown
    assert set(ids) >= {m["id"] for m in ok(cli("list", "--limit", "1", "--json")).json()}
    for bad in ("0", "-1", "x"):
        result = cli("list", "--limit", bad)
        assert result.code == 2, result
        assert "--limit" in result.stderr


def test_piped_search_prints_one_record_per_line(cli: Cli, repo: Path) -> None:
    seed_three(cli, repo)
    lines = ok(cli("search", "Three")).stdout.splitlines()
    assert len(lines) == 1 and lines[0].split("\t")[2] == "Three"


def test_piped_recall_prints_one_hit_per_line(cli: Cli, repo: Path) -> None:
    ids = seed_three(cli, repo)
    lines = ok(cli("recall", "-f", LONG_PATH, "--no-record", env={"COLUMNS": "40"})).stdout
    first = lines.splitlines()[0].split("\t")
    assert first[:4] == ["1", ids[2], "gotcha", "Three"]
    assert first[4].startswith("via file") and float(first[5]) > 0
    explained = ok(cli("recall", "-f", LONG_PATH, "--no-record", "--explain")).stdout
    assert "file +" in explained.splitlines()[0].split("\t")[6]
    assert ok(cli("recall", "-f", LONG_PATH, "--no-record", "--explain")).stderr.startswith(
        "time: "
    )
    missing = cli("recall", "nothing like it at all", "--no-record")
    assert missing.code == 1 and missing.stdout == ""
    assert "No memory matches" in missing.stderr


def test_recall_on_a_terminal_is_a_table(cli: Cli, repo: Path) -> None:
    seed_three(cli, repo)
    shown = run_on_terminal("recall", "-f", "src/app.py", "--no-record", cwd=repo)
    assert "┏" in shown and "via file" in shown and "\t" not in shown


def _break(path: Path) -> None:
    """A hand edit that leaves the front matter unreadable (an unclosed list)."""
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("category: gotcha", "category: [gotcha", 1), encoding="utf-8")


def test_a_memory_file_broken_by_hand_is_named_by_every_reading_command(
    cli: Cli, repo: Path
) -> None:
    memory_id = ok(
        cli("remember", "app.py must stay importable", "-c", "gotcha", "-f", "src/app.py", "--json")
    ).json()["id"]
    ok(cli("remember", "util.py is pure", "-c", "gotcha", "-f", "src/util.py"))
    broken = repo / ".tether" / "memories" / f"{memory_id}.md"
    _break(broken)
    said = f"skipped {broken}:4: bad YAML"
    listed = cli("list")
    assert "util.py is pure" in listed.stdout and said in listed.stderr
    assert said in cli("search", "importable").stderr
    recalled = cli("recall", "-f", "src/app.py")
    assert said in recalled.stderr
    shown = cli("show", memory_id[:6])
    assert shown.code == 1
    assert f"memory '{memory_id[:6]}' cannot be loaded: {broken}:4: bad YAML" in shown.stderr
    assert broken.read_text(encoding="utf-8").count("[gotcha") == 1  # left as written


def test_many_broken_memory_files_are_counted_past_the_first_few(cli: Cli, repo: Path) -> None:
    assert SKIPPED_NAMED == 3  # pinned: named before they are only counted
    for n in range(SKIPPED_NAMED + 2):
        ok(cli("remember", f"note {n} on the app", "-c", "gotcha", "-f", "src/app.py"))
    for path in memory_files(repo):
        _break(path)
    said = cli("list").stderr
    assert said.count("tether: skipped /") == SKIPPED_NAMED
    assert "skipped 2 more memory files that cannot be loaded: `tether doctor`" in said


# -- 6. help ---------------------------------------------------------------------------------------

README = Path(__file__).resolve().parent.parent / "README.md"


def subcommands() -> dict[str, argparse.ArgumentParser]:
    """Every subcommand's parser, by name."""
    parser = build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def test_every_subcommand_has_a_description_and_every_option_a_help_text() -> None:
    gaps = []
    for name, parser in subcommands().items():
        if not parser.description:
            gaps.append(f"{name}: no description")
        for action in parser._actions:
            if not action.help:
                gaps.append(f"{name} {'/'.join(action.option_strings) or action.dest}: no help")
    assert gaps == []


def test_list_help_explains_its_options(cli: Cli) -> None:
    shown = ok(cli("list", "--help")).stdout
    assert "list memories, newest first" in shown
    for words in ("only memories naming this file", "only memories of this category", "at most N"):
        assert words in shown


def test_export_status_takes_the_same_values_as_list(cli: Cli) -> None:
    for command in ("list", "export"):
        result = cli(command, "--status", "bogus")
        assert result.code == 2, result
        assert "invalid choice: 'bogus'" in result.stderr


def test_an_unknown_word_after_a_command_shows_that_commands_usage(cli: Cli) -> None:
    """As a bad value of one of its options does: the command's usage, exit 2; a word before
    the command is the top-level parser's."""
    for args, extra in (
        (("remember", "x y", "-c", "gotcha", "--bogus"), "--bogus"),
        (("recall", "a.py", "b.py"), "b.py"),
        (("remember", "x y", "-c", "gotch"), None),
    ):
        result = cli(*args)
        assert result.code == 2, result
        assert result.stdout == ""
        assert result.stderr.startswith(f"usage: tether {args[0]} "), result.stderr
        if extra is not None:
            assert f"tether: error: unrecognized arguments: {extra}\n" in result.stderr
    as_json = cli("--json", "recall", "a.py", "b.py")
    assert as_json.code == 2
    assert json.loads(as_json.stderr)["error"] == (
        "unrecognized arguments: b.py (`tether recall --help` lists what it takes)"
    )
    before = cli("--bogus", "list")
    assert before.code == 2
    assert before.stderr.startswith("usage: tether [-h]"), before.stderr


def test_lsp_and_mcp_refuse_json(cli: Cli) -> None:
    for args in (("lsp", "--json"), ("mcp", "--json")):
        result = cli(*args)
        assert result.code == 2, result
        assert "--json" in result.stderr
    for args in (("--json", "lsp"), ("--json", "mcp")):
        result = cli(*args)
        assert result.code == 2, result
        assert "JSON-RPC on stdio; --json does not apply" in result.stderr


def test_a_mistyped_command_gets_a_did_you_mean(cli: Cli) -> None:
    result = cli("remeber", "x")
    assert result.code == 2, result
    assert "unknown command 'remeber'; did you mean remember?" in result.stderr
    assert "'init', 'remember', 'show'" not in result.stderr  # not all 34 commands
    far = cli("zzzzzz")
    assert far.code == 2 and "did you mean" not in far.stderr and "tether --help" in far.stderr


def readme_rows() -> dict[str, str]:
    """The README's CLI table: each command named in a row's first cell, with the row."""
    text = README.read_text(encoding="utf-8")
    table = text[text.index("| command | what it does |") :]
    table = table[: table.index("\n\n")]
    rows: dict[str, str] = {}
    for line in table.splitlines()[2:]:
        first = line.split(" | ")[0]
        for snippet in re.findall(r"`([^`]+)`", first):
            rows[snippet.split()[0]] = line
    return rows


COMMON_OPTIONS = ("-h", "--help", "--json", "--wait")
"""Options every command takes: said once, above the table, not in each row."""


def test_the_options_every_command_takes_are_said_above_the_table() -> None:
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    intro = text.split("## CLI usage", 1)[1].split("|", 1)[0]
    assert "`--json`" in intro and "`--wait SECONDS`" in intro
    for action in build_parser()._actions:  # the options before the command name, too
        names = [o for o in action.option_strings if o not in ("-h", "--help")]
        assert not names or any(
            re.search(rf"`[^`]*(?<![\w-]){o}(?![\w-])", intro) for o in names
        ), names


def test_the_readme_cli_table_names_every_command_and_option() -> None:
    rows = readme_rows()
    gaps = []
    for name, parser in subcommands().items():
        if name not in rows:
            gaps.append(f"{name}: no row")
            continue
        row = rows[name]
        inherited = re.search(r"every option of `(\w+)`", row)
        if inherited:
            row += rows[inherited.group(1)]
        for action in parser._actions:
            names = [o for o in action.option_strings if o not in COMMON_OPTIONS]
            if names and not any(re.search(rf"(?<![\w-]){o}(?![\w-])", row) for o in names):
                gaps.append(f"{name} {names[-1]}: not in the README")
    assert gaps == []


# -- 7. dedupe edges -------------------------------------------------------------------------------


def test_the_same_summary_with_another_category_or_details_is_not_a_second_memory(
    cli: Cli, repo: Path
) -> None:
    first = ok(cli("remember", "Close the pool", "-c", "gotcha", "-f", "src/app.py", "--json"))
    memory_id = first.json()["id"]
    for extra, reason in (
        (("-c", "decision"), "its category is gotcha, not decision"),
        (("-c", "gotcha", "--details", "It leaks otherwise."), "it has no details"),
    ):
        result = cli("remember", "close the  pool", *extra, "-f", "src/app.py")
        assert result.code == 1, result
        assert result.stdout == ""
        assert f"{memory_id} already has this summary, but {reason}" in result.stderr
        assert f"tether supersede {memory_id}" in result.stderr
    assert len(memory_files(repo)) == 1
    as_json = cli("remember", "Close the pool", "-c", "pref", "-f", "src/app.py", "--json")
    assert as_json.code == 1 and json.loads(as_json.stderr)["exit_code"] == 1
    exact = ok(cli("remember", "Close the pool", "-c", "gotcha", "-f", "src/app.py", "--json"))
    assert exact.json()["duplicate_of"] == memory_id  # unchanged for exact duplicates


def test_supersede_is_the_way_to_change_details_under_the_same_summary(
    cli: Cli, repo: Path
) -> None:
    old = ok(cli("remember", "Close the pool", "-c", "gotcha", "-f", "src/app.py", "--json"))
    args = ("-c", "gotcha", "-f", "src/app.py", "--details", "It leaks otherwise.", "--json")
    new = ok(cli("supersede", old.json()["id"], "Close the pool", *args)).json()
    assert new["supersedes"] == old.json()["id"]


def test_supersede_says_the_old_details_are_not_carried_over(cli: Cli, repo: Path) -> None:
    """The new text stands on its own, so the old one's details stay with it; dropping them
    without a word would read as losing what the person wrote."""
    args = ("-c", "gotcha", "-f", "src/app.py", "--json")
    old = ok(cli("remember", "Close the pool", *args, "--details", "It leaks otherwise."))
    old_id = old.json()["id"]
    new = ok(cli("supersede", old_id, "Close the pool before exit", *args))
    assert f"the details of {old_id} are not carried over" in new.stderr
    assert f"`tether show {old_id}` keeps them" in new.stderr
    shown = ok(cli("show", old_id, "--json")).json()
    assert shown["details"] == "It leaks otherwise."
    bare = ok(cli("remember", "Log the pool size", *args)).json()["id"]
    quiet = ok(cli("supersede", bare, "Log the pool size at start", *args))
    assert "not carried over" not in quiet.stderr  # nothing to carry: nothing said


def test_a_refused_supersede_says_nothing_of_what_it_would_have_carried(
    cli: Cli, repo: Path
) -> None:
    args = ("-c", "gotcha", "-f", "src/app.py", "--json")
    old = ok(cli("remember", "Close the pool", *args, "--details", "It leaks otherwise."))
    old_id = old.json()["id"]
    ok(cli("archive", old_id))
    refused = cli("supersede", old_id, "Close the pool before exit", *args)
    assert refused.code == 2, refused
    assert "only active memories can be superseded" in refused.stderr
    assert "not carried over" not in refused.stderr  # nothing was written: nothing to say


def test_re_remembering_a_superseded_memory_says_how_to_bring_it_back(cli: Cli, repo: Path) -> None:
    old = ok(cli("remember", "Use npm", "-c", "pref", "-f", "src/app.py", "--json")).json()["id"]
    new = ok(cli("supersede", old, "Use pnpm", "-c", "pref", "-f", "src/app.py", "--json"))
    again = ok(cli("remember", "Use npm", "-c", "pref", "-f", "src/app.py"))
    assert f"Already known as {old} (superseded); nothing written." in again.stdout
    assert f"replaced by {new.json()['id']}" in again.stdout
    assert f"`tether restore {old}` brings it back" in again.stdout
    as_json = ok(cli("remember", "Use npm", "-c", "pref", "-f", "src/app.py", "--json")).json()
    assert as_json["duplicate_of"] == old and as_json["duplicate_status"] == "superseded"


# -- 9. the small ones -----------------------------------------------------------------------------


def test_index_does_not_count_tethers_own_memory_files(cli: Cli, repo: Path) -> None:
    before = ok(cli("index", "--json")).json()["files_tracked"]
    ok(cli("remember", "A", "-c", "gotcha", "-f", "src/app.py"))
    ok(cli("remember", "B", "-c", "gotcha", "-f", "src/util.py"))
    after = ok(cli("index", "--full", "--json")).json()["files_tracked"]
    assert after == before == 4


def test_session_start_says_what_a_cleanup_needs_in_words(cli: Cli, repo: Path) -> None:
    ok(cli("remember", "A", "-c", "gotcha", "-f", "src/app.py"))
    started = ok(cli("session", "start")).stdout
    assert "Cleanup not due; it needs 20 sessions (1 so far) since the last pass" in started
    assert "30 active memories (1 so far)" in started
    assert "/30" not in started and "/20" not in started


def test_purge_lists_and_needs_yes_without_a_terminal(cli: Cli, repo: Path) -> None:
    memory_id = ok(cli("remember", "A", "-c", "gotcha", "-f", "src/app.py", "--json")).json()["id"]
    ok(cli("delete", memory_id))
    refused = cli("purge")
    assert refused.code == 2, refused
    assert f"1 deleted memory would be removed for good ({memory_id}); pass --yes" in (
        refused.stderr
    )
    assert cli("purge", "--json").code == 2
    assert len(memory_files(repo)) == 1
    done = ok(cli("purge", "--yes"))
    assert done.stdout.strip() == "Purged 1 memory"
    assert memory_files(repo) == []
    assert cli("purge", "--json").json() == {
        "purged": [],
        "kept_superseded": [],
    }  # nothing to ask about


def test_import_says_one_memory(cli: Cli, repo: Path, tmp_path: Path) -> None:
    lines = tmp_path / "one.jsonl"
    record = {"summary": "Imported once", "category": "gotcha", "files": ["src/app.py"]}
    lines.write_text(json.dumps(record) + "\n", encoding="utf-8")
    result = ok(cli("import", str(lines)))
    assert "Imported 1 memory, 0 already known, 0 rejected" in result.stdout


def test_fanin_of_a_path_outside_the_repository_says_what_the_index_knows(cli: Cli) -> None:
    for command in ("fanin", "neighbours"):
        result = cli(command, "/etc/passwd")
        assert result.code == 2, result
        assert "'/etc/passwd' is outside the repository" in result.stderr
        assert "the index knows only the repository's own files" in result.stderr
        assert "memories can only name" not in result.stderr


def test_recall_batch_exits_2_when_a_line_fails(cli: Cli, repo: Path, tmp_path: Path) -> None:
    batch = tmp_path / "queries.jsonl"
    batch.write_text('{"prompt": "flush"}\nnot json\n{"files": ["src/app.py"]}\n', "utf-8")
    result = cli("recall", "--batch", str(batch))
    assert result.code == 2, result
    answers = result.json_lines()
    assert len(answers) == 3 and answers[1]["line"] == 2 and "bad JSON" in answers[1]["error"]
    batch.write_text('{"prompt": "flush"}\n', "utf-8")
    assert cli("recall", "--batch", str(batch)).code == 0


def test_make_demo_says_what_it_installs_before_installing(tmp_path: Path) -> None:
    import shutil
    import subprocess

    if shutil.which("make") is None:
        return
    root = README.parent
    # PYTHON=false stops the install at its first step, after the announcement
    done = subprocess.run(
        ["make", "-s", "demo", "PYTHON=false", f"VENV={tmp_path / 'venv'}"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert "installing Tether and its dependencies into" in done.stdout
    assert str(tmp_path / "venv") in done.stdout


# -- 10. a chart where people would rather look than read ----------------------------------------


def test_stats_charts_the_files_most_memories_name(cli: Cli, repo: Path) -> None:
    for number in range(3):
        ok(cli("remember", f"App {number}", "-c", "gotcha", "-f", "src/app.py"))
    ok(cli("remember", "Util and app", "-c", "gotcha", "-f", "src/util.py", "-f", "src/app.py"))
    gone = ok(cli("remember", "Util", "-c", "gotcha", "-f", "src/util.py", "--json")).json()["id"]
    ok(cli("archive", gone))  # only what recall can show is counted
    data = ok(cli("stats", "--json")).json()
    assert data["hub_files"] == [
        {"path": "src/app.py", "memories": 4},
        {"path": "src/util.py", "memories": 1},
    ]
    shown = ok(cli("stats")).stdout
    chart = shown[shown.index("Files most memories name:") :].splitlines()[1:]
    assert chart[0].endswith("4  src/app.py") and chart[0].count("█") == 12
    assert chart[1].endswith("1  src/util.py") and chart[1].count("█") == 3


def test_stats_charts_the_files_when_each_has_one_memory_as_json_lists_them(
    cli: Cli, repo: Path
) -> None:
    ok(cli("remember", "Pool must be closed", "-c", "gotcha", "-f", "src/app.py"))
    ok(cli("remember", "Generated, do not edit", "-c", "gotcha", "-f", "src/util.py"))
    listed = [
        (hub["path"], hub["memories"]) for hub in ok(cli("stats", "--json")).json()["hub_files"]
    ]
    assert listed == [("src/app.py", 1), ("src/util.py", 1)]
    shown = ok(cli("stats")).stdout
    chart = shown[shown.index("Files most memories name:") :].splitlines()[1:]
    assert [line.split()[-2:] for line in chart] == [[str(n), path] for path, n in listed]


def test_stats_draws_no_file_chart_when_no_memory_names_a_file(cli: Cli, repo: Path) -> None:
    ok(cli("remember", "Releases go out on Tuesdays", "-c", "context"))
    assert ok(cli("stats", "--json")).json()["hub_files"] == []
    assert "Files most memories name" not in ok(cli("stats")).stdout


def test_doctor_reports_a_misspelt_front_matter_key_and_not_a_key_of_ones_own(
    cli: Cli, repo: Path
) -> None:
    ok(cli("init"))
    folder = repo / ".tether" / "memories"
    (folder / "abcd1234.md").write_text(
        "---\nid: abcd1234\ncategory: gotcha\nfiles: [src/util.py]\nticket: ENG-12\n"
        "pined: true\n---\nPinned, or so its writer thought\n",
        encoding="utf-8",
    )
    (folder / "abcd5678.md").write_text(
        "---\nid: abcd5678\ncategory: context\nfiles: [src/util.py]\nowner: ops\n---\nFine\n",
        encoding="utf-8",
    )
    doctor = cli("doctor")
    assert doctor.code == 1, doctor
    said = [line for line in doctor.stdout.splitlines() if "front-matter key" in line]
    assert said == [
        f"{folder / 'abcd1234.md'}:6: abcd1234: front-matter key 'pined' is not a key Tether "
        "reads, so it does nothing: did you mean 'pinned'? (rename it; a key of your own is "
        "kept as written)"
    ]
    found = [e for e in cli("doctor", "--json").json() if e["kind"] == "misspelt-key"]
    assert [(e["id"], e["line"], e["key"], e["meant"]) for e in found] == [
        ("abcd1234", 6, "pined", "pinned")
    ]
    text = (folder / "abcd1234.md").read_text(encoding="utf-8")
    (folder / "abcd1234.md").write_text(text.replace("pined:", "pinned:"), encoding="utf-8")
    assert ok(cli("doctor")).stdout.strip() == "No problems found."


def test_remember_without_a_file_says_how_the_memory_is_recalled(cli: Cli, repo: Path) -> None:
    made = ok(cli("remember", "Builds need the vendored zlib", "-c", "gotcha", "--json"))
    memory_id = made.json()["id"]
    assert f"{memory_id} names no file" in made.stderr
    assert str(repo / ".tether" / "memories" / f"{memory_id}.md") in made.stderr
    assert "-f PATH" in made.stderr
    tied = ok(cli("remember", "Flush the app before exit", "-c", "gotcha", "-f", "src/app.py"))
    assert "names no file" not in tied.stderr
    again = cli("remember", "Builds need the vendored zlib", "-c", "gotcha")
    assert "names no file" not in again.stderr  # nothing written: nothing to say about it

"""Guarded memories: an agent's edit under one asks the person (Claude Code's
``permissionDecision: "ask"`` with the memory as the reason) once per session, memory and file,
never blocks silently; the
guard is written by ``remember --guard`` and by hand, and fits decisions and gotchas only."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import CliResult, make_repo
from test_hooks import edit_input, hook

from recall import frontmatter


def remember_guarded(cli: Callable[..., CliResult], *extra: str) -> str:
    done = cli(
        "remember",
        "app start order is fixed: config, then db",
        "-c",
        "decision",
        "--guard",
        "--json",
        *extra,
    )
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def test_an_edit_under_a_guarded_memory_asks_the_person(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory_id = remember_guarded(cli, "-f", "src/app.py")
    text = (repo / ".tether" / "memories" / f"{memory_id}.md").read_text()
    assert frontmatter.parse(text, "m.md").fields["guard"] is True
    out = json.loads(hook("pre-edit", edit_input(repo, "src/app.py")))
    decision = out["hookSpecificOutput"]
    assert decision["hookEventName"] == "PreToolUse"
    assert decision["permissionDecision"] == "ask"
    reason = decision["permissionDecisionReason"]
    assert f'guarded decision "app start order is fixed: config, then db" [{memory_id}]' in reason
    assert "covers src/app.py" in reason
    # refused: no PostToolUse follows, so the next try asks again
    again = json.loads(hook("pre-edit", edit_input(repo, "src/app.py")))
    assert again["hookSpecificOutput"]["permissionDecision"] == "ask"
    # allowed: the edit ran and PostToolUse says so; this session is not asked again
    after = hook("post-edit", edit_input(repo, "src/app.py", event="PostToolUse"))
    assert "permissionDecision" not in after
    assert hook("pre-edit", edit_input(repo, "src/app.py")) == ""
    other = "0b9a7f1e-2c3d-4e5f-8a9b-1c2d3e4f5a6b"
    asked = json.loads(hook("pre-edit", edit_input(repo, "src/app.py", session=other)))
    assert asked["hookSpecificOutput"]["permissionDecision"] == "ask"
    assert hook("pre-edit", edit_input(repo, "src/util.py")) == ""


def test_a_guarded_file_is_asked_about_and_its_gotchas_warned_of_in_one_answer(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory_id = remember_guarded(cli, "-f", "src/app.py")
    gotcha = cli("remember", "never log the token", "-c", "gotcha", "-f", "src/app.py", "--json")
    specific = json.loads(hook("pre-edit", edit_input(repo, "src/app.py")))["hookSpecificOutput"]
    assert specific["permissionDecision"] == "ask"
    assert f"[{memory_id}] covers src/app.py" in specific["permissionDecisionReason"]
    gotcha_id = gotcha.json()["id"]
    assert specific["additionalContext"] == (
        f'· gotcha "never log the token" [{gotcha_id}] — review before editing'
    )


def test_the_reason_names_the_anchored_symbol(repo: Path, cli: Callable[..., CliResult]) -> None:
    memory_id = remember_guarded(cli, "--anchor", "src/util.py::helper")
    out = json.loads(hook("pre-edit", edit_input(repo, "src/util.py")))
    reason = out["hookSpecificOutput"]["permissionDecisionReason"]
    assert f"[{memory_id}] covers src/util.py (symbol helper)" in reason


def test_a_guard_fits_decisions_and_gotchas_only(repo: Path, cli: Callable[..., CliResult]) -> None:
    done = cli("remember", "tabs here", "-c", "pref", "--guard", "-f", "src/app.py")
    assert done.code == 2
    assert "a guard protects a decision or gotcha, not a pref; drop --guard" in done.stderr
    kept = cli("remember", "tabs here", "-c", "pref", "-f", "src/app.py", "--json")
    pref = kept.json()["id"]
    refused = cli("guard", pref)  # no --guard was given: how to guard it is said instead
    assert refused.code == 2
    assert f"not a pref; to guard it, supersede {pref} with one (`tether supersede {pref}" in (
        refused.stderr
    )
    assert cli("init").code == 0
    bad = repo / ".tether" / "memories" / "0badc0de.md"
    bad.write_text("---\ncategory: gotcha\nguard: yes please\n---\nsummary\n")
    doctor = cli("doctor")
    assert "guard must be true or false" in doctor.stdout + doctor.stderr


def test_guard_and_unguard_from_the_cli(repo: Path, cli: Callable[..., CliResult]) -> None:
    done = cli("remember", "pool size is 8", "-c", "decision", "-f", "src/app.py", "--json")
    memory_id = done.json()["id"]
    assert cli("guard", memory_id).stdout.strip() == f"Guarded {memory_id}"
    assert cli("show", memory_id, "--json").json()["guard"] is True
    assert f"{memory_id} (guarded)" in cli("show", memory_id).stdout
    again = cli("guard", memory_id)
    assert again.code == 1 and "already guarded" in again.stderr
    assert cli("unguard", memory_id).code == 0
    assert cli("show", memory_id, "--json").json()["guard"] is False
    pref = cli("remember", "tabs", "-c", "pref", "-f", "src/app.py", "--json").json()["id"]
    refused = cli("guard", pref)
    assert refused.code == 2 and "not a pref" in refused.stderr


def test_supersede_keeps_the_guard_files_and_anchors(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    old = remember_guarded(cli, "-f", "src/app.py", "--anchor", "src/util.py::helper")
    done = cli("supersede", old, "start order: config, db, cache", "-c", "decision", "--json")
    assert done.code == 0, done.stderr
    new = cli("show", done.json()["id"], "--json").json()
    assert new["guard"] is True  # superseding does not lift a guard; unguard does
    assert new["files"] == ["src/app.py", "src/util.py"]
    assert [a["symbol"] for a in new["anchors"]] == ["src/util.py::helper"]
    as_pref = cli("supersede", new["id"], "we like config first", "-c", "pref", "--json")
    assert as_pref.code == 0, as_pref.stderr
    assert f"{new['id']} was guarded, but a pref takes no guard" in as_pref.stderr
    assert cli("show", as_pref.json()["id"], "--json").json()["guard"] is False


def test_supersede_keeps_the_pin_and_drops_what_it_is_told_to(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    old = remember_guarded(cli, "--pin", "--anchor", "src/util.py::helper")
    kept = cli("supersede", old, "start order: config, db, cache", "-c", "decision", "--json")
    assert kept.code == 0, kept.stderr
    new = cli("show", kept.json()["id"], "--json").json()
    assert (new["pinned"], new["guard"]) == (True, True)
    assert [a["symbol"] for a in new["anchors"]] == ["src/util.py::helper"]
    dropped = cli(
        "supersede",
        new["id"],
        "start order: config first",
        "-c",
        "decision",
        "--no-pin",
        "--no-guard",
        "--no-anchors",
        "--json",
    )
    assert dropped.code == 0, dropped.stderr
    last = cli("show", dropped.json()["id"], "--json").json()
    assert (last["pinned"], last["guard"], last["anchors"]) == (False, False, [])
    assert last["files"] == ["src/util.py"]  # the files stay: --file gives new ones
    both = cli("supersede", last["id"], "x y z", "-c", "decision", "--pin", "--no-pin")
    assert both.code == 2 and "--pin and --no-pin contradict each other" in both.stderr
    anchors = ("--anchor", "src/util.py::helper", "--no-anchors")
    both = cli("supersede", last["id"], "x y z", "-c", "decision", *anchors)
    assert both.code == 2 and "--anchor PATH::NAME and --no-anchors contradict" in both.stderr
    helptext = cli("supersede", "--help").stdout
    assert "--no-pin" in helptext and "keeps" in helptext


def test_export_then_import_keeps_the_guard(
    repo: Path, tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    remember_guarded(cli, "--anchor", "src/util.py::helper")
    exported = cli("export")
    assert exported.code == 0, exported.stderr
    other = make_repo(tmp_path / "other")
    done = cli("import", "-", "--json", cwd=other, stdin=exported.stdout)
    assert done.code == 0, done.stderr
    [path] = (other / ".tether" / "memories").glob("*.md")
    fields = frontmatter.parse(path.read_text(), "m.md").fields
    assert fields["guard"] is True
    assert fields["anchors"][0]["symbol"] == "src/util.py::helper"
    bad = (
        '{"summary": "tabs", "category": "pref", "guard": true}\n'
        '{"summary": "pool of 8", "category": "decision", "guard": "yes"}\n'
    )
    refused = cli("import", "-", cwd=other, stdin=bad)
    said = refused.stdout + refused.stderr
    assert "a guard protects a decision or gotcha, not a pref; drop 'guard'" in said
    assert "'guard' must be true or false" in said


def test_supersede_with_new_files_keeps_the_files_of_the_carried_anchors(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    old = remember_guarded(cli, "--anchor", "src/util.py::helper")
    done = cli(
        "supersede", old, "start order: config, db", "-c", "decision", "-f", "src/app.py", "--json"
    )
    assert done.code == 0, done.stderr
    new = cli("show", done.json()["id"], "--json").json()
    assert new["files"] == ["src/app.py", "src/util.py"]
    assert [a["symbol"] for a in new["anchors"]] == ["src/util.py::helper"]
    out = json.loads(hook("pre-edit", edit_input(repo, "src/util.py")))
    assert out["hookSpecificOutput"]["permissionDecision"] == "ask"


def test_an_anchor_written_by_hand_outside_the_files_is_guarded(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    assert cli("init").code == 0
    hand = repo / ".tether" / "memories" / "0a1b2c3d.md"
    hand.write_text(
        "---\nid: 0a1b2c3d\ncategory: decision\nguard: true\nfiles: [src/app.py]\n"
        "anchors: [src/util.py::helper]\n---\nhelper returns one, always\n"
    )
    out = json.loads(hook("pre-edit", edit_input(repo, "src/util.py")))
    assert out["hookSpecificOutput"]["permissionDecision"] == "ask"
    assert (
        "[0a1b2c3d] covers src/util.py (symbol helper"
        in (out["hookSpecificOutput"]["permissionDecisionReason"])
    )


def test_an_edit_of_a_guarded_memorys_own_file_asks_the_person(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    """``guard: false`` written into the file would lift the guard with no one asked: a guard
    is the person's to lift (``tether unguard``), so an edit of its file asks, as an edit of
    the code under it does; the file of a memory with no guard asks nothing."""
    memory_id = remember_guarded(cli, "-f", "src/app.py")
    own = f".tether/memories/{memory_id}.md"
    out = json.loads(hook("pre-edit", edit_input(repo, own)))
    decision = out["hookSpecificOutput"]
    assert decision["permissionDecision"] == "ask"
    reason = decision["permissionDecisionReason"]
    assert f"{own} is the file of guarded decision" in reason and f"[{memory_id}]" in reason
    assert f"`tether unguard {memory_id}` lifts a guard" in reason
    # allowed once by the person: the session is not asked again for that file
    hook("post-edit", edit_input(repo, own, event="PostToolUse"))
    assert hook("pre-edit", edit_input(repo, own)) == ""
    plain = cli("remember", "start-up logs go to stderr", "-c", "context", "--json")
    assert plain.code == 0, plain.stderr
    plain_file = f".tether/memories/{plain.json()['id']}.md"
    assert hook("pre-edit", edit_input(repo, plain_file)) == ""


def test_a_memory_file_written_to_supersede_a_guarded_one_asks_the_person(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    """A new memory file saying ``supersedes: ID`` takes the guarded memory out of recall with
    no one asked: a Write of such a file asks, as an edit of the guarded memory's file does,
    and so does an Edit adding that line to another memory; a link to an unguarded memory or
    ``superseded_by:`` (which retires the file's own memory) asks nothing."""
    memory_id = remember_guarded(cli, "-f", "src/app.py")
    plain = cli("remember", "start-up logs go to stderr", "-c", "context", "--json").json()["id"]
    new_file = ".tether/memories/feedbeef.md"
    text = (
        f"---\nid: feedbeef\ncategory: decision\nfiles: [src/app.py]\n"
        f"supersedes: {memory_id}\n---\nretries may go to five\n"
    )
    write = edit_input(repo, new_file, tool="Write")
    write["tool_input"] = {"file_path": str(repo / new_file), "content": text}
    decision = json.loads(hook("pre-edit", write))["hookSpecificOutput"]
    assert decision["permissionDecision"] == "ask"
    reason = decision["permissionDecisionReason"]
    assert f"this edit of {new_file} marks guarded decision" in reason
    assert f"[{memory_id}] as superseded" in reason
    edit = edit_input(repo, f".tether/memories/{plain}.md")
    edit["tool_input"].update(old_string="category: context\n", new_string=(
        f"category: context\nsupersedes: '{memory_id}'  # replaced\n"
    ))  # fmt: skip
    assert (
        "marks guarded decision"
        in json.loads(hook("pre-edit", edit))["hookSpecificOutput"]["permissionDecisionReason"]
    )
    for harmless in (f"supersedes: {plain}\n", f"superseded_by: {memory_id}\n"):
        write["tool_input"]["content"] = text.replace(f"supersedes: {memory_id}\n", harmless)
        assert hook("pre-edit", write) == ""
    # however YAML spells the key or the value, it is what the front matter reads that counts
    for spelled in (f"supersedes: !!str {memory_id}\n", f'"supersedes": {memory_id}\n'):
        write["tool_input"]["content"] = text.replace(f"supersedes: {memory_id}\n", spelled)
        assert (
            "marks guarded decision"
            in json.loads(hook("pre-edit", write))["hookSpecificOutput"]["permissionDecisionReason"]
        )
    # an Edit that writes only the id into a link the file already has
    linked = repo / ".tether" / "memories" / "0badf00d.md"
    linked.write_text(text.replace(f"supersedes: {memory_id}", "supersedes: 0badf00d0"))
    swap = edit_input(repo, ".tether/memories/0badf00d.md")
    swap["tool_input"].update(old_string="0badf00d0", new_string=memory_id)
    assert (
        "marks guarded decision"
        in json.loads(hook("pre-edit", swap))["hookSpecificOutput"]["permissionDecisionReason"]
    )
    # a file that already names it (the person's own supersede) is edited as any other
    linked.write_text(text)
    body = edit_input(repo, ".tether/memories/0badf00d.md")
    body["tool_input"].update(old_string="retries may go to five", new_string="retries: five")
    assert hook("pre-edit", body) == ""


def test_a_guard_that_would_cover_nothing_is_refused(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    """An edit asks only under a guard's files and symbols: a guarded memory naming none
    would protect nothing while it reads as protecting the whole repository."""
    refused = cli("remember", "never touch anything", "-c", "decision", "--guard")
    assert refused.code == 2 and refused.stdout == ""
    assert "names none, so no edit would ever be asked about" in refused.stderr
    assert "drop --guard" in refused.stderr
    assert not list((repo / ".tether" / "memories").glob("*.md"))
    plain = cli("remember", "the whole repository uses tabs", "-c", "decision", "--json")
    assert plain.code == 0, plain.stderr
    memory_id = plain.json()["id"]
    later = cli("guard", memory_id)
    assert later.code == 2
    assert f"memory {memory_id} names no file or symbol" in later.stderr
    source = repo.parent / "guards.jsonl"
    line = {"summary": "guarded, of nothing", "category": "gotcha", "guard": True}
    source.write_text(json.dumps(line) + "\n", encoding="utf-8")
    imported = cli("import", str(source))
    assert imported.code == 2 and "drop 'guard'" in imported.stderr


def test_a_guard_asks_when_the_agent_runs_from_the_clones_git_folder(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    """A command refuses to run in ``.git``; an agent's hook there still answers from the work
    tree's store, whose guards must ask before the edit."""
    remember_guarded(cli, "-f", "src/app.py")
    payload = edit_input(repo, "src/app.py")
    payload["cwd"] = str(repo / ".git")
    decision = json.loads(hook("pre-edit", payload))["hookSpecificOutput"]
    assert decision["permissionDecision"] == "ask"

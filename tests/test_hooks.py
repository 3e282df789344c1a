"""Agent hooks: recorded-shape Claude Code inputs in, the documented hook JSON (or nothing) out."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import make_repo, remember, run_tether

from recall import hooks
from recall.hooks import events as hook_events
from recall.policy.hints import SESSION_BUDGET
from recall.policy.inject import FENCE_CLOSE, FENCE_OPEN, FOOTER, HEADER
from recall.policy.sessions import count_turn
from recall.policy.usage import counters
from recall.ranking.weights import EDIT_WARNINGS_MAX
from recall.store import MemoryStore

SESSION = "5f3c1e2a-9b7d-4c1e-8a2f-0d6b4e9c7a11"
GOTCHA = "login KeyError user_id: sessions from the old SSO lack user_id, fall back to sub"

# A Claude Code UserPromptSubmit input as the hooks reference documents it, with a pasted
# traceback and the question on the last line.
TRACE_PROMPT = (
    "Traceback (most recent call last):\n"
    '  File "{root}/src/app.py", line 1, in <module>\n'
    "    login(user)\n"
    '  File "{root}/src/app.py", line 9, in login\n'
    '    return user["user_id"]\n'
    "KeyError: 'user_id'\n"
    "\n"
    "Why does login raise a KeyError for user_id?"
)


def prompt_input(root: Path, prompt: str, session: str = SESSION) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": f"/home/dev/.claude/projects/demo/{session}.jsonl",
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }


def edit_input(
    root: Path, path: str, *, event: str = "PreToolUse", tool: str = "Edit", session: str = SESSION
) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": f"/home/dev/.claude/projects/demo/{session}.jsonl",
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": {
            "file_path": str(root / path),
            "old_string": "print('app')",
            "new_string": "print('app!')",
        },
    }


def hook(event: str, payload: Any) -> str:
    raw = payload if isinstance(payload, str) else json.dumps(payload)
    return hooks.run(event, raw)


def context_of(out: str, event_name: str) -> str:
    data = json.loads(out)
    assert list(data) == ["hookSpecificOutput"]
    assert list(data["hookSpecificOutput"]) == ["hookEventName", "additionalContext"]
    assert data["hookSpecificOutput"]["hookEventName"] == event_name
    return data["hookSpecificOutput"]["additionalContext"]


def warning(memory_id: str, summary: str = GOTCHA, *, after: bool = False) -> str:
    advice = "review this edit" if after else "review before editing"
    return f'· gotcha "{summary}" [{memory_id}] — {advice}'


def expected_edit_output(event_name: str, *lines: str) -> str:
    payload = {
        "hookSpecificOutput": {"hookEventName": event_name, "additionalContext": "\n".join(lines)}
    }
    return json.dumps(payload, ensure_ascii=False) + "\n"


def test_prompt_with_pasted_stack_trace_injects_the_memory(repo: Path, store: MemoryStore) -> None:
    memory_id = remember(store, GOTCHA, files=["src/app.py"])
    remember(store, "docs are built with mkdocs", category="decision", files=["docs/guide.md"])
    out = hook("prompt", prompt_input(repo, TRACE_PROMPT.format(root=repo)))
    lines = context_of(out, "UserPromptSubmit").splitlines()
    assert lines[0] == HEADER
    assert lines[1] == FENCE_OPEN
    assert lines[-2] == FENCE_CLOSE
    assert lines[-1] == FOOTER
    assert len(lines) == 5
    assert lines[2].startswith(f"[gotcha] {memory_id} — {GOTCHA} · via ")
    turns = store.conn.execute(
        "SELECT turns, origin FROM sessions WHERE id = ?", (SESSION,)
    ).fetchone()
    assert tuple(turns) == (1, "hook")


def test_prompt_with_nothing_relevant_prints_nothing(repo: Path, store: MemoryStore) -> None:
    remember(store, GOTCHA, files=["src/app.py"])
    assert hook("prompt", prompt_input(repo, "Rename the CSS colour variables")) == ""


def test_prompt_gets_the_files_the_session_edited(repo: Path, store: MemoryStore) -> None:
    memory_id = remember(
        store, "util.helper must stay pure", category="pref", files=["src/util.py"]
    )
    assert hook("post-edit", edit_input(repo, "src/util.py", event="PostToolUse")) == ""
    out = hook("prompt", prompt_input(repo, "now add the tests"))
    lines = context_of(out, "UserPromptSubmit").splitlines()
    assert lines[2].startswith(f"[pref] {memory_id} — util.helper must stay pure · via ")
    assert hooks.recent_touches(store.conn, SESSION, 1) == ["src/util.py"]


def test_edit_on_a_file_with_a_gotcha_warns(repo: Path, store: MemoryStore) -> None:
    memory_id = remember(store, GOTCHA, files=["src/app.py"])
    remember(store, "app prints on import", category="decision", files=["src/app.py"])
    out = hook("pre-edit", edit_input(repo, "src/app.py"))
    assert out == expected_edit_output("PreToolUse", warning(memory_id))


def test_an_edit_shows_a_few_warnings_and_counts_the_rest_for_the_next_edit(
    repo: Path, store: MemoryStore
) -> None:
    """A file with many gotchas (a hostile clone can write hundreds) gives one edit call as
    many warning lines as a prompt injects, pinned first, then the newest, and a count of the
    rest, which the next edit of the file shows."""
    plain = [
        remember(store, f"app gotcha number {n}", files=["src/app.py"], created=f"2026-11-0{n + 1}")
        for n in range(5)
    ]
    pinned = remember(store, "the pinned app gotcha", files=["src/app.py"], pinned=True)
    plain.reverse()  # the newest first, whatever their ids
    first = context_of(hook("pre-edit", edit_input(repo, "src/app.py")), "PreToolUse")
    assert first.splitlines() == [
        warning(pinned, "the pinned app gotcha"),
        *[warning(i, s) for i, s in _summaries(store, plain[:2])],
        "· 3 more on src/app.py: `tether list --file src/app.py`",
    ]
    assert EDIT_WARNINGS_MAX == 3
    second = context_of(hook("pre-edit", edit_input(repo, "src/app.py")), "PreToolUse")
    assert second.splitlines() == [warning(i, s) for i, s in _summaries(store, plain[2:])]
    assert hook("pre-edit", edit_input(repo, "src/app.py")) == ""


def _summaries(store: MemoryStore, ids: list[str]) -> list[tuple[str, str]]:
    return [(i, store.get(i).summary) for i in ids]  # type: ignore[union-attr]


def test_post_edit_and_the_other_edit_tools(repo: Path, store: MemoryStore) -> None:
    memory_id = remember(store, GOTCHA, files=["src/app.py"])
    out = hook("post-edit", edit_input(repo, "src/app.py", event="PostToolUse", tool="Write"))
    # the edit has happened: the warning asks for a look at it, not before it
    assert out == expected_edit_output("PostToolUse", warning(memory_id, after=True))
    # Same turn, same file: the agent has been told, so the next edit is silent.
    assert hook("pre-edit", edit_input(repo, "src/app.py", tool="MultiEdit")) == ""


def test_edit_on_a_file_without_memories_prints_nothing(repo: Path, store: MemoryStore) -> None:
    remember(store, GOTCHA, files=["src/app.py"])
    assert hook("pre-edit", edit_input(repo, "src/util.py")) == ""
    assert hook("pre-edit", edit_input(repo, "src/app.py", tool="Read")) == ""


@pytest.mark.parametrize(
    "payload",
    [
        "{not json",
        "",
        "[1, 2]",
        '"just a string"',
        {"cwd": "/tmp"},
        {"session_id": SESSION},
        {"session_id": "", "cwd": "/tmp"},
        {"session_id": 7, "cwd": "/tmp", "prompt": "hi"},
        {"session_id": SESSION, "cwd": "/tmp", "tool_name": "Edit", "tool_input": "x"},
        {"session_id": SESSION, "cwd": "/tmp", "tool_name": "Edit", "tool_input": {}},
    ],
)
@pytest.mark.parametrize("event", hooks.EVENTS)
def test_malformed_or_incomplete_input_prints_nothing(
    repo: Path, store: MemoryStore, payload: Any, event: str
) -> None:
    remember(store, GOTCHA, files=["src/app.py"])
    if isinstance(payload, dict) and payload.get("cwd") == "/tmp":
        payload = {**payload, "cwd": str(repo)}
    assert hook(event, payload) == ""


def test_cwd_outside_any_repository_prints_nothing(tmp_path: Path) -> None:
    outside = tmp_path / "plain"
    outside.mkdir()
    assert hook("prompt", prompt_input(outside, "Why does login fail?")) == ""
    assert hook("pre-edit", edit_input(outside, "a.py")) == ""
    assert hook("session-start", {"session_id": SESSION, "cwd": str(outside)}) == ""


def test_file_outside_the_repository_prints_nothing(repo: Path, store: MemoryStore) -> None:
    remember(store, GOTCHA, files=["src/app.py"])
    payload = edit_input(repo, "src/app.py")
    payload["tool_input"]["file_path"] = "/etc/passwd"
    assert hook("pre-edit", payload) == ""


def test_internal_error_is_logged_not_printed(
    repo: Path, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    remember(store, GOTCHA, files=["src/app.py"])

    def broken(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(hook_events, "record_touch", broken)
    monkeypatch.setattr(hooks.log, "handlers", [])
    assert hook("pre-edit", edit_input(repo, "src/app.py")) == ""
    log = (store.location.base / hooks.LOG_NAME).read_text(encoding="utf-8")
    assert "the edit hook's notes on src/app.py failed" in log
    assert "disk I/O error" in log
    for handler in hooks.log.handlers:
        handler.close()


def test_session_start_starts_the_session_quietly(repo: Path, store: MemoryStore) -> None:
    remember(store, GOTCHA, files=["src/app.py"])
    payload = {
        "session_id": SESSION,
        "cwd": str(repo),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    assert hook("session-start", payload) == ""
    row = store.conn.execute("SELECT turns FROM sessions WHERE id = ?", (SESSION,)).fetchone()
    assert row[0] == 0
    assert hook("session-start", payload) == ""  # a resume is not a second start


def test_hint_policy_across_twelve_turns(repo: Path, store: MemoryStore) -> None:
    """Shown in turn 1, quiet through turn 11, back in turn 12; pinned pierce a spent budget."""
    app = remember(store, GOTCHA, files=["src/app.py"])
    pinned = remember(
        store,
        "util.helper is called from C; keep its signature",
        files=["src/util.py"],
        pinned=True,
    )
    plain = remember(store, "README badges are generated", files=["README.md"])
    conn = store.conn
    seen: dict[int, str] = {}
    for turn in range(1, 13):
        assert count_turn(conn, SESSION, origin="hook") == turn
        seen[turn] = hook("pre-edit", edit_input(repo, "src/app.py"))
    assert seen[1] == expected_edit_output("PreToolUse", warning(app))
    assert all(seen[turn] == "" for turn in range(2, 12))
    assert seen[12] == expected_edit_output("PreToolUse", warning(app))

    conn.execute("UPDATE hint_sessions SET spent = ? WHERE session = ?", (SESSION_BUDGET, SESSION))
    conn.commit()
    assert hook("pre-edit", edit_input(repo, "README.md")) == ""  # budget spent
    out = hook("pre-edit", edit_input(repo, "src/util.py"))
    assert out == expected_edit_output(
        "PreToolUse", warning(pinned, "util.helper is called from C; keep its signature")
    )
    assert plain not in out


@pytest.mark.parametrize(
    ("command", "silences"),
    [
        ("cd src && tether recall --file src/app.py", True),
        ("/home/dev/shop/.venv/bin/tether recall -f src/app.py", True),  # by its full path
        ("FOO=1 env -i tether --json show 1a2b3c4d", True),
        ("git status; python3 -m recall search login", True),
        ("make test | tether -C src list", True),
        ("echo tether show", False),  # a word, not a program run
        ('grep -r "tether list" docs', False),
        ("tether pin 1a2b3c4d", False),  # a reaction to what was shown
        ('echo "unclosed', False),
    ],
)
def test_a_tether_command_is_told_from_a_mention_of_it(
    repo: Path, store: MemoryStore, command: str, silences: bool
) -> None:
    remember(store, GOTCHA, files=["src/app.py"])
    count_turn(store.conn, SESSION, origin="hook")
    bash = {
        "session_id": SESSION,
        "cwd": str(repo),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }
    assert hook("post-edit", bash) == ""
    assert (hook("pre-edit", edit_input(repo, "src/app.py")) == "") is silences


@pytest.mark.parametrize(
    ("tool", "silences"),
    [
        ("mcp__tether__memory_recall", True),
        ("mcp__plugin_tether_tether__memory_get", True),
        ("mcp__tether__memory_pin", False),  # a reaction to what was shown, not self-serve
        ("mcp__other__memory_recall", False),  # someone else's memory server
    ],
)
def test_tether_mcp_tools_used_by_the_agent_silence_hints(
    repo: Path, store: MemoryStore, tool: str, silences: bool
) -> None:
    memory_id = remember(store, GOTCHA, files=["src/app.py"])
    count_turn(store.conn, SESSION, origin="hook")
    call = {
        "session_id": SESSION,
        "cwd": str(repo),
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_input": {"prompt": "why does save fail?"},
    }
    assert hook("post-edit", call) == ""
    out = hook("pre-edit", edit_input(repo, "src/app.py"))
    assert out == ("" if silences else expected_edit_output("PreToolUse", warning(memory_id)))


def test_an_edit_warning_counts_one_surfacing_per_turn(repo: Path, store: MemoryStore) -> None:
    memory_id = remember(store, GOTCHA, files=["src/app.py"])
    count_turn(store.conn, SESSION, origin="hook")
    assert hook("pre-edit", edit_input(repo, "src/app.py")) != ""
    assert hook("post-edit", edit_input(repo, "src/app.py", event="PostToolUse")) == ""
    assert counters(store.conn, memory_id)["surfaced"] == 1
    assert counters(store.conn, memory_id)["acted"] == 0  # shown is never acted


def test_whole_process_hook_run(repo: Path, store: MemoryStore) -> None:
    memory_id = remember(store, GOTCHA, files=["src/app.py"])
    done = run_tether(
        "hook",
        "prompt",
        cwd=repo,
        stdin=json.dumps(prompt_input(repo, TRACE_PROMPT.format(root=repo))),
    )
    assert done.code == 0 and done.stderr == ""
    assert f"[gotcha] {memory_id} — " in context_of(done.stdout, "UserPromptSubmit")
    edit = json.dumps(edit_input(repo, "src/app.py", session="other-session"))
    done = run_tether("hook", "pre-edit", cwd=repo, stdin=edit)
    assert done == (0, expected_edit_output("PreToolUse", warning(memory_id)), "")


@pytest.mark.parametrize("stdin", ["{broken", "", '{"session_id": "x"}'])
def test_whole_process_bad_input_exits_zero_silently(
    repo: Path, store: MemoryStore, stdin: str
) -> None:
    remember(store, GOTCHA, files=["src/app.py"])
    assert run_tether("hook", "pre-edit", cwd=repo, stdin=stdin) == (0, "", "")


def test_whole_process_outside_a_repository(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    payload = json.dumps(prompt_input(plain, "Why?"))
    assert run_tether("hook", "prompt", cwd=plain, stdin=payload) == (0, "", "")


def test_other_repository_without_a_store_prints_nothing(tmp_path: Path) -> None:
    other = make_repo(tmp_path / "other")
    assert hook("pre-edit", edit_input(other, "src/app.py")) == ""
    assert not (other / ".tether").exists()


def test_agent_config_claude_code_writes_the_plugin_folder(repo: Path, tmp_path: Path) -> None:
    folder = tmp_path / "plugin"
    given = ["--command", "tether", "--allow-missing"]  # tether need not be on PATH here
    done = run_tether("agent-config", "claude-code", "--dir", str(folder), *given, cwd=repo)
    assert done.code == 0, done.stderr
    names = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    assert names == [
        ".claude-plugin/icon.png",
        ".claude-plugin/plugin.json",
        ".lsp.json",
        ".tether-written.json",
        "README.md",
        "hooks/hooks.json",
    ]
    config = json.loads((folder / "hooks/hooks.json").read_text(encoding="utf-8"))["hooks"]
    commands = {
        event: [(group.get("matcher"), h["command"]) for group in groups for h in group["hooks"]]
        for event, groups in config.items()
    }
    assert commands == {
        "SessionStart": [(None, "tether hook session-start")],
        "UserPromptSubmit": [(None, "tether hook prompt")],
        "PreToolUse": [("Edit|Write|MultiEdit|NotebookEdit", "tether hook pre-edit")],
        "PostToolUse": [
            (
                "Edit|Write|MultiEdit|NotebookEdit|Bash|mcp__.*tether__memory_.*",
                "tether hook post-edit",
            )
        ],
    }
    lsp = json.loads((folder / ".lsp.json").read_text(encoding="utf-8"))["tether"]
    assert (lsp["command"], lsp["args"]) == ("tether", ["lsp"])
    assert lsp["extensionToLanguage"][".py"] == "python"
    manifest = json.loads((folder / ".claude-plugin/plugin.json").read_text(encoding="utf-8"))
    assert manifest["name"] == "tether"
    assert manifest["mcpServers"] == {"tether": {"command": "tether", "args": ["mcp"]}}
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "tether mcp" in readme and "memory_recall" in readme


def test_agent_config_claude_code_runs_the_given_command(repo: Path, tmp_path: Path) -> None:
    folder = tmp_path / "plugin"
    python = tmp_path / "my venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\n", encoding="utf-8")
    python.chmod(0o755)
    command = f"'{python}' -m recall"  # as a shell would quote it
    done = run_tether(
        "agent-config", "claude-code", "--dir", str(folder), "--command", command, cwd=repo
    )
    assert done.code == 0, done.stderr
    manifest = json.loads((folder / ".claude-plugin/plugin.json").read_text(encoding="utf-8"))
    assert manifest["mcpServers"]["tether"] == {
        "command": str(python),
        "args": ["-m", "recall", "mcp"],
    }
    hooks_json = json.loads((folder / "hooks/hooks.json").read_text(encoding="utf-8"))
    prompt = hooks_json["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert prompt == f"'{python}' -m recall hook prompt"


def test_agent_config_opencode_prints_its_lsp_and_mcp_entries(repo: Path) -> None:
    given = ["--command", "/opt/venv/bin/tether", "--allow-missing"]
    done = run_tether("agent-config", "opencode", *given, cwd=repo)
    assert done.code == 0, done.stderr
    config = json.loads(done.stdout)
    assert config["lsp"]["tether"]["command"] == ["/opt/venv/bin/tether", "lsp"]
    assert config["mcp"] == {
        "tether": {"type": "local", "command": ["/opt/venv/bin/tether", "mcp"], "enabled": True}
    }
    given = ["--command", "tether", "--allow-missing"]
    as_json = run_tether("agent-config", "opencode", "--json", *given, cwd=repo)
    assert json.loads(as_json.json()["config"]) == {
        **config,
        "lsp": {"tether": {**config["lsp"]["tether"], "command": ["tether", "lsp"]}},
        "mcp": {"tether": {**config["mcp"]["tether"], "command": ["tether", "mcp"]}},
    }


def test_a_hook_process_loads_its_own_command_only(repo: Path) -> None:
    """`tether hook` is parsed without the other commands' modules (and their numpy)."""
    probe = (
        "import io, sys; sys.stdin = io.TextIOWrapper(io.BytesIO(b'{}')); "
        "from recall.cli.main import main; code = main(['hook', 'pre-edit']); "
        "print(code, sorted(m for m in ('numpy', 'recall.cli.cmd_maint', 'recall.cli.cmd_memory', "
        "'recall.ranking.engine') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=repo, capture_output=True, text=True, check=True
    )
    assert done.stdout.split(maxsplit=1) == ["0", "[]\n"]


def test_inject_loads_the_ranking_but_no_other_command(repo: Path) -> None:
    """`tether inject`, which agents run per prompt, skips the curation commands' modules."""
    probe = (
        "import sys; from recall.cli.main import main; "
        "code = main(['inject', 'why', '--no-record']); "
        "print(code, sorted(m for m in ('recall.cli.cmd_maint', 'recall.cli.cmd_memory', "
        "'recall.cli.cmd_cleanup', 'recall.cli.cmd_browse', 'recall.cli.cmd_distill') "
        "if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=repo, capture_output=True, text=True, check=True
    )
    assert done.stdout.split()[-1] == "[]", done.stdout


def test_a_hooks_notices_go_to_the_hooks_log_not_the_agent(repo: Path, store: MemoryStore) -> None:
    remember(store, GOTCHA, files=["src/app.py"])
    (repo / ".tether" / "config.toml").write_text("max_per_fiel = 2\n")  # misspelt key
    payload = json.dumps({"session_id": "s-notice", "cwd": str(repo)})
    done = run_tether("hook", "session-start", cwd=repo, stdin=payload)
    assert done.code == 0 and done.stderr == ""
    assert "max_per_fiel" not in done.stdout
    logged = (repo / ".tether" / "hooks.log").read_text(encoding="utf-8")
    assert "max_per_fiel" in logged and "max_per_file" in logged  # named, closest key offered


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["hook", "stop"], "unknown event 'stop'; a hook runs as `tether hook EVENT`"),
        (["hook", "pre-edit", "--bogus"], "unrecognized arguments: --bogus"),
        (["hook", "--bogus", "pre-edit"], "unrecognized arguments: --bogus"),
        (["hook"], "no event given"),
        (["hook", "pre-edit", "--wait", "0"], "--wait: `tether hook` keeps the waits"),
        (["--wait", "5", "hook", "prompt"], "--wait: `tether hook` keeps the waits"),
        (["-C", "/no/such/folder", "hook", "pre-edit"], "-C /no/such/folder: does not exist"),
        (["--bogus", "hook", "prompt"], "unrecognized arguments: --bogus"),
        (["--json", "--bogus", "hook", "prompt"], "unrecognized arguments: --bogus"),
    ],
)
def test_a_hook_command_line_the_parser_rejects_never_blocks_the_agent(
    repo: Path, argv: list[str], reason: str
) -> None:
    """Claude Code takes exit code 2 as "block this action": a hook's own mistake exits 0."""
    payload = json.dumps(edit_input(repo, "src/app.py"))
    done = run_tether(*argv, cwd=repo, stdin=payload)
    assert (done.code, done.stdout) == (0, "")
    assert reason in done.stderr
    assert "exit 0 so the agent is not blocked" in done.stderr


@pytest.mark.parametrize(
    ("argv", "usage", "reason"),
    [
        (["hook", "pre-edit", "extra"], "usage: tether hook ", "unrecognized arguments: extra"),
        (["hook", "prompt", "--bogus"], "usage: tether hook ", "unrecognized arguments: --bogus"),
        (["hook", "prmpt"], "usage: tether hook ", "unknown event 'prmpt' (did you mean prompt?)"),
        (["hook", "stop"], "usage: tether hook ", "unknown event 'stop'; a hook runs as"),
        (["hook"], "usage: tether hook ", "no event given"),
        (["--bogus", "hook", "prompt"], "usage: tether [-h]", "unrecognized arguments: --bogus"),
    ],
)
def test_a_refused_hook_command_line_shows_its_usage_and_what_to_do(
    repo: Path, argv: list[str], usage: str, reason: str
) -> None:
    """As every command refuses a word it does not know: the usage of the parser that refuses
    it and the way a hook is run, but exit 0, which never blocks the agent."""
    done = run_tether(*argv, cwd=repo, stdin=json.dumps(edit_input(repo, "src/app.py")))
    assert (done.code, done.stdout) == (0, "")
    assert done.stderr.startswith(usage), done.stderr
    (said,) = [line for line in done.stderr.splitlines() if line.startswith("tether hook: ")]
    assert reason in said
    assert "a hook runs as `tether hook EVENT`, EVENT one of prompt, pre-edit, post-edit" in said
    assert "correct the command in the agent's hook settings" in said


def test_a_refused_hook_word_is_said_in_one_line_with_a_secret_masked(repo: Path) -> None:
    token = "ghp_" + "a1B2c3D4e5" * 4
    done = run_tether("hook", "prompt", "two\nlines", token, cwd=repo, stdin="{}")
    assert done.code == 0 and token not in done.stderr
    (said,) = [line for line in done.stderr.splitlines() if line.startswith("tether hook: ")]
    assert "unrecognized arguments: two\\nlines ghp_" in said


def test_post_edit_words_a_rejected_approach_for_an_edit_already_made(
    repo: Path, store: MemoryStore
) -> None:
    memory_id = remember(store, "caching the pool", category="rejected", files=["src/app.py"])
    before = context_of(hook("pre-edit", edit_input(repo, "src/app.py")), "PreToolUse")
    assert before.endswith("read why before trying it")
    store_id = remember(store, "also rejected", category="rejected", files=["src/util.py"])
    after = hook("post-edit", edit_input(repo, "src/util.py", event="PostToolUse"))
    text = context_of(after, "PostToolUse")
    assert f"[{store_id}]" in text and f"[{memory_id}]" not in text
    assert text.endswith("read why, and check this edit does not repeat it")

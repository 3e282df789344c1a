"""Agent harnesses, run for real: OpenCode's own LSP client publishes Tether's gotcha with the
``opencode.json`` that ``tether agent-config opencode`` prints, and Claude Code's plugin
validator accepts the folder ``tether agent-config claude-code`` writes, with no problem and no
warning (the plugin directory's checks included).

Both come from tests/agents/package-lock.json (``make agent-clients``, which ``make test``
runs when npm is there). Neither needs a model, an account or the network.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.editors.clients import agent_program
from tests.lsp.workspace import GOTCHA, build

QUIET_OPENCODE = {
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "true",
    "OPENCODE_DISABLE_MODELS_FETCH": "true",
    "OPENCODE_DISABLE_AUTOUPDATE": "true",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "true",
}
"""No downloads of other language servers, no model list, no update check, no plugins: only
the servers of the project's opencode.json start."""


def isolated_home(tmp_path: Path) -> dict[str, str]:
    """A home of the test's own, so nothing of the user's configuration is read or written."""
    home = tmp_path / "home"
    home.mkdir()
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local/state"),
    }


def tether(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The CLI as a user runs it (no --command: the generated command is the default one)."""
    return subprocess.run(
        [sys.executable, "-m", "recall", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


def test_opencode_publishes_the_gotcha_with_the_generated_config(tmp_path: Path) -> None:
    opencode = agent_program("opencode")
    ws = build(tmp_path / "repo")
    generated = tether("agent-config", "opencode", cwd=ws.root).stdout
    (ws.root / "opencode.json").write_text(generated, encoding="utf-8")
    done = subprocess.run(
        [str(opencode), "debug", "lsp", "diagnostics", "src/store.py"],
        cwd=ws.root,
        env={**os.environ, **isolated_home(tmp_path), **QUIET_OPENCODE},
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    published = json.loads(done.stdout)
    (found,) = [
        d for d in published[str(ws.store_py)] if d.get("source") == "tether"
    ]  # OpenCode's other servers are off; Tether's one gotcha on this file
    assert found["message"] == f'gotcha "{GOTCHA}" [{ws.gotcha}] — review before editing'
    assert found["code"] == ws.gotcha
    assert found["severity"] == 1  # an error: the only severity OpenCode shows its agent
    line = ws.store_py.read_text().splitlines().index("def save_session(path, data):")
    assert found["range"]["start"] == {"line": line, "character": 4}


def test_claude_code_validates_the_generated_plugin_without_a_problem(tmp_path: Path) -> None:
    claude = agent_program("claude")
    ws = build(tmp_path / "repo")
    tether("agent-config", "claude-code", "--dir", str(tmp_path / "plugin"), cwd=ws.root)
    done = subprocess.run(
        [
            str(claude),
            *("plugin", "validate", "--json", "--strict", "--profile", "directory"),
            str(tmp_path / "plugin"),
        ],
        cwd=tmp_path,
        env={**os.environ, **isolated_home(tmp_path)},
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    report = json.loads(done.stdout)
    assert done.returncode == 0, json.dumps(report, indent=2)
    assert report["success"] is True
    assert (report["manifest"]["errors"], report["manifest"]["warnings"]) == ([], [])
    assert report["directory"]["findings"] == [] and report["directory"]["failure"] is None
    provided = report["provides"]
    assert [s["name"] for s in provided["lspServers"]] == ["tether"]
    assert [s["name"] for s in provided["mcpServers"]] == ["tether"]
    events = [hook["event"] for hook in provided["hooks"]]
    assert events == ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"]

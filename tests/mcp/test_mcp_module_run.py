"""``python -m mcp_server`` and ``python -m lsp_server`` are ``tether mcp`` and ``tether lsp``:
the same options refused by name, the same project found through the agent's variable, and a
closed input said, not served as an empty one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mcp.raw_wire import INITIALIZE, INITIALIZED, WAIT_S, line


def _run(
    module: str, *args: str, cwd: Path, sent: bytes = b"", **env: str
) -> subprocess.CompletedProcess[bytes]:
    environment = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=cwd,
        env={**environment, **env},
        input=sent,
        capture_output=True,
        timeout=WAIT_S,
    )


@pytest.mark.parametrize("module", ["mcp_server", "lsp_server"])
def test_an_unknown_option_is_refused_by_name(module: str, repo: Path) -> None:
    done = _run(module, "--bogus", cwd=repo)
    assert done.returncode == 2, done
    assert "--bogus" in done.stderr.decode()


def test_the_agents_project_variable_names_the_repository(repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "plugin"
    elsewhere.mkdir()
    arguments = {"summary": "Flush before close", "category": "gotcha", "files": ["src/app.py"]}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}
    call["params"] = {"name": "memory_write", "arguments": arguments}
    sent = line(INITIALIZE) + line(INITIALIZED) + line(call)
    done = _run("mcp_server", cwd=elsewhere, sent=sent, CLAUDE_PROJECT_DIR=str(repo))
    assert done.returncode == 0, done.stderr
    answers = {a.get("id"): a for a in map(json.loads, done.stdout.decode().splitlines())}
    assert not answers[2]["result"]["isError"], answers[2]
    assert len(list((repo / ".tether" / "memories").glob("*.md"))) == 1


def test_a_closed_input_is_said(repo: Path) -> None:
    done = subprocess.run(
        f"{sys.executable} -m mcp_server <&-",
        shell=True,
        cwd=repo,
        capture_output=True,
        timeout=WAIT_S,
    )
    assert done.returncode == 2, done
    assert "standard input is closed" in done.stderr.decode()


def test_a_relative_tether_home_is_served_without_as_the_command_serves_it(repo: Path) -> None:
    """In a repository the project's memories are still served (tests/mcp/test_mcp_unusable_home
    has what is said); outside any, it does not start, exit 2, as ``tether mcp``."""
    done = _run("mcp_server", cwd=repo, sent=line(INITIALIZE), TETHER_HOME="relhome")
    assert done.returncode == 0, done
    assert json.loads(done.stdout.decode().splitlines()[0])["id"] == 1
    assert not (repo / "relhome").exists()


@pytest.mark.parametrize("home", ["relhome", "a-file"])
def test_the_language_server_starts_with_a_tether_home_it_cannot_use(repo: Path, home: str) -> None:
    """As ``tether lsp`` does, it serves the project's memories without the user-wide store
    (said to the client for each workspace folder), rather than exiting as broken."""
    (repo.parent / "a-file").write_text("not a folder\n", encoding="utf-8")
    value = home if home == "relhome" else str(repo.parent / home)
    done = _run("lsp_server", cwd=repo, TETHER_HOME=value)  # no client: it ends at once
    assert done.returncode != 2, done
    assert "TETHER_HOME" not in done.stderr.decode(), done.stderr
    assert not (repo / "relhome").exists()

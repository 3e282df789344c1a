"""A vendor's token written by hand into what a memory names (its author, a file, an anchor)
reaches no agent whole, as one in its text does not: the prompt hook, ``inject``, ``recall
--json`` and the MCP tools show it masked, and ``tether doctor`` names the file and line.
``remember --author`` refuses the same value; a hand-written file is where it comes from."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from conftest import git, run_tether

from recall import hooks
from tests.mcp.harness import call, mcp_client
from tests.test_hooks import context_of, prompt_input

AWS_KEY = "AKIA" + "IOSFODNN7ABCDEFG"  # made up; joined so no scanner trips on this file
GITHUB_TOKEN = "ghp_" + "Zk3Zq9aB7cD1eF2gH3iJ4kL5mN6oP7qR8sT9"
NEVER = (AWS_KEY[8:], GITHUB_TOKEN[8:])
"""What must never be printed: the part of each token past its excerpt."""
MEMORY_ID = "aaaa0001"
SUMMARY = "app handling rule one"


def write_by_hand(repo: Path) -> Path:
    """A memory file naming the key in its author and the token in a file and an anchor."""
    assert run_tether("init", cwd=repo).code == 0
    path = repo / ".tether" / "memories" / f"{MEMORY_ID}.md"
    path.write_text(
        f"---\nid: {MEMORY_ID}\ncategory: gotcha\n"
        f"files: [src/app.py, notes/{GITHUB_TOKEN}.txt]\n"
        f'author: "deploy {AWS_KEY}"\n'
        f"anchors: [src/app.py::{GITHUB_TOKEN}]\n---\n{SUMMARY}\n",
        encoding="utf-8",
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a memory written by hand")
    return path


def never_whole(text: str) -> None:
    """Fail when ``text`` holds any token past its excerpt."""
    assert not any(secret in text for secret in NEVER), text


def test_the_prompt_hook_and_inject_mask_the_author(repo: Path) -> None:
    write_by_hand(repo)
    prompt = hooks.run("prompt", json.dumps(prompt_input(repo, "app handling rule")))
    injected = context_of(prompt, "UserPromptSubmit")
    assert f"[gotcha] {MEMORY_ID} by deploy AKIAIOSF…[20 chars] — {SUMMARY}" in injected
    never_whole(prompt)
    shown = run_tether("inject", "app handling rule", cwd=repo)
    assert "by deploy AKIAIOSF…[20 chars]" in shown.stdout
    assert f"memory {MEMORY_ID} holds what looks like a credential" in shown.stderr
    never_whole(shown.stdout + shown.stderr)


def test_recall_json_masks_the_author_files_and_anchors(repo: Path) -> None:
    write_by_hand(repo)
    result = run_tether("recall", "app handling rule", "--json", cwd=repo)
    [hit] = [hit for hit in json.loads(result.stdout)["results"] if hit["id"] == MEMORY_ID]
    assert hit["secret_masked"] is True
    never_whole(result.stdout + result.stderr)


@pytest.mark.asyncio
async def test_the_mcp_tools_mask_the_author_files_and_anchors(repo: Path) -> None:
    path = write_by_hand(repo)
    before = path.read_bytes()
    async with mcp_client(repo) as client:
        recalled = await call(client, "memory_recall", files=["src/app.py"])
        listed = await call(client, "memory_list", file="src/app.py")
        whole = await call(client, "memory_get", id=MEMORY_ID)
    [hit], [entry] = recalled["results"], listed["memories"]
    for shown in (hit, entry, whole):
        assert shown["author"] == "deploy AKIAIOSF…[20 chars]"
        assert shown["secret_masked"] is True
    # the token widened to the end of its run of token characters, as a refusal masks it
    assert whole["files"] == ["src/app.py", "notes/ghp_Zk3Z…[44 chars]"]
    assert whole["anchors"] == ["src/app.py::ghp_Zk3Z…[40 chars]"]
    for answer in (recalled, listed, whole):
        never_whole(json.dumps(answer, ensure_ascii=False))
    assert path.read_bytes() == before  # the file is the person's, left as written


def test_doctor_names_the_line_of_each_name_holding_a_token(repo: Path) -> None:
    path = write_by_hand(repo)
    result = run_tether("doctor", "--scope", "project", cwd=repo)
    assert result.code == 1
    said = [line for line in result.stdout.splitlines() if line.startswith(f"{path}:")]
    assert said[0].startswith(f"{path}:4: {MEMORY_ID}: its front matter holds what looks like")
    assert "GitHub token (ghp_Zk3Z…[44 chars])" in said[0]  # with its .txt, as masked
    assert said[1].startswith(f"{path}:5: {MEMORY_ID}: its front matter holds")
    assert "AWS access key id (AKIAIOSF…[20 chars])" in said[1]
    assert said[2].startswith(f"{path}:6: {MEMORY_ID}: its front matter holds")
    assert "remove it from the file" in said[1]
    found = json.loads(run_tether("doctor", "--scope", "project", "--json", cwd=repo).stdout)
    lines = [f["line"] for f in found if f["kind"] == "credential" and f["id"] == MEMORY_ID]
    assert lines == [4, 5, 6]
    never_whole("\n".join(said[:3]))  # the findings about the credential show it masked


def test_an_index_made_before_reads_the_file_again_and_masks_it(repo: Path) -> None:
    write_by_hand(repo)
    assert run_tether("index", cwd=repo).code == 0
    with sqlite3.connect(repo / ".tether" / "index.db") as conn:  # as version 14 left it
        conn.execute("UPDATE memories SET secret = 0")
        conn.execute("UPDATE meta SET value = '14' WHERE key = 'schema_version'")
    shown = run_tether("inject", "app handling rule", cwd=repo)
    assert "by deploy AKIAIOSF…[20 chars]" in shown.stdout
    never_whole(shown.stdout)

"""A refusal that quotes what was given never prints a credential whole: a token given as a
category, a scope, a date, an anchor, a front-matter key or an id is refused for that, and
the refusal masks it as the credential refusals do (the CLI's text and ``--json``, an
import's lines, the MCP server's tool errors)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import make_repo, run_tether

from recall.secret_masking import masked
from tests.mcp.harness import error, mcp_client

TOKEN = "ghp_" + "Zk3Zq9aB7cD1eF2gH3iJ4kL5mN6oP7qR8sT9"  # made up; joined so no scanner trips here
TAIL = TOKEN[-12:]  # what must never be printed


def _shown_masked(text: str) -> bool:
    """Whether ``text`` shows the token masked (``…`` may be escaped in JSON)."""
    return "ghp_Zk3Z" in text and "[40 chars]" in text


def _lines() -> str:
    base = {"summary": "note", "category": "gotcha", "files": ["src/a.py"]}
    asks = [
        {"category": TOKEN},
        {"scope": TOKEN},
        {"created": TOKEN},
        {"anchors": [TOKEN]},
        {TOKEN: 1},
        {"id": TOKEN},
    ]
    return "\n".join(
        json.dumps({**base, **ask, "summary": f"note {n}"}) for n, ask in enumerate(asks)
    )


def test_an_import_never_prints_a_token_it_refuses_or_renames(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"src/a.py": "x = 1\n"})
    source = tmp_path / "in.jsonl"
    source.write_text(_lines() + "\n")
    for extra in ((), ("--json",)):
        done = run_tether("import", str(source), *extra, cwd=repo)
        assert done.code == 2, done.stderr
        assert TAIL not in done.stdout + done.stderr
        assert _shown_masked(done.stdout + done.stderr)


def test_a_token_given_as_an_argument_is_masked_in_the_usage_error(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"src/a.py": "x = 1\n"})
    for extra in ((), ("--json",)):
        done = run_tether("remember", "x", "-c", TOKEN, "-f", "src/a.py", *extra, cwd=repo)
        assert done.code == 2
        assert TAIL not in done.stderr and _shown_masked(done.stderr)


@pytest.mark.asyncio
async def test_an_mcp_tool_error_masks_a_token_given_as_an_argument(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"src/a.py": "x = 1\n"})
    async with mcp_client(repo) as client:
        said = await error(client, "memory_list", category=TOKEN)
    assert TAIL not in said and _shown_masked(said)


def test_masking_leaves_ordinary_text_as_it_is() -> None:
    ordinary = (
        "indexed commit 97af9c24738e is no longer an ancestor of HEAD; memory 1a2b3c4d in "
        "src/app.py:12 (uuid 123e4567-e89b-12d3-a456-426614174000)"
    )
    assert masked(ordinary) == ordinary
    assert masked(f"one {TOKEN} two\nthree {TOKEN}") == (
        "one ghp_Zk3Z…[40 chars] two\nthree ghp_Zk3Z…[40 chars]"
    )

"""What the MCP tools return lands in an agent's context: a credential written by hand into a
memory file comes back masked from ``memory_recall``, ``memory_list`` and ``memory_get`` alike
(``secret_masked``), with a note naming the file that holds it; the file is left as written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.mcp.harness import call, mcp_client
from tests.test_secrets_in_memory_files import (
    DETAILS,
    MASKED_SUMMARY,
    MEMORY_ID,
    NEVER,
    SUMMARY,
    write_by_hand,
)

pytestmark = pytest.mark.asyncio


async def test_recall_list_and_get_mask_a_credential_and_name_its_file(repo: Path) -> None:
    path = write_by_hand(repo)
    before = path.read_bytes()
    async with mcp_client(repo) as client:
        recalled = await call(client, "memory_recall", files=["src/app.py"])
        listed = await call(client, "memory_list", file="src/app.py")
        whole = await call(client, "memory_get", id=MEMORY_ID)
    [hit] = recalled["results"]
    [entry] = listed["memories"]
    for shown in (hit, entry, whole):
        assert shown["summary"] == MASKED_SUMMARY
        assert shown["secret_masked"] is True
        assert f"the file {path} keeps it as written" in shown["note"]
    assert whole["details"] == (
        "The database is postgres://admin:s3c…[14 chars]@db.example.com/app\n"
        "and the CI bot's token is ghp_Zk3Z…[40 chars]."
    )
    for answer in (recalled, listed, whole):
        text = json.dumps(answer, ensure_ascii=False)
        assert not any(secret in text for secret in NEVER), text
    assert path.read_bytes() == before
    assert SUMMARY in before.decode() and DETAILS in before.decode()

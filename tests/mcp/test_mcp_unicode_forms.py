"""A path that differs from a repository file only by its Unicode normalization (é typed as
e and a combining accent, the file named with the one composed character): the refusal says
exactly that, and which form the repository uses, instead of a "did you mean" that reads the
same as the path given. The CLI's ``remember -f`` says it alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import make_repo, run_tether
from tests.mcp.harness import call, error, mcp_client

COMPOSED = "src/sp ace \u00e9.py"
DECOMPOSED = "src/sp ace e\u0301.py"


@pytest.fixture
def accented(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "accented", {COMPOSED: "x = 1\n", "README.md": "r\n"})


def _says_the_forms(message: str) -> None:
    assert "only in its Unicode normalization" in message
    assert "the repository's file is spelt in NFC" in message
    assert "the path given is in NFD" in message
    assert "did you mean" not in message


@pytest.mark.asyncio
async def test_mcp_says_the_path_differs_only_by_normalization(accented: Path) -> None:
    async with mcp_client(accented) as client:
        message = await error(
            client, "memory_write", summary="accent", category="gotcha", files=[DECOMPOSED]
        )
        _says_the_forms(message)
        assert "files[0]" in message
        recalled = await call(client, "memory_recall", files=[DECOMPOSED])
        _says_the_forms(" ".join(recalled["notes"]))


def test_cli_remember_says_it_alike(accented: Path) -> None:
    done = run_tether("remember", "accent", "-c", "gotcha", "-f", DECOMPOSED, cwd=accented)
    assert done.code == 2
    _says_the_forms(done.stderr)

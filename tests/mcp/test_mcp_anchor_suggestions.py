"""``memory_write`` and ``memory_supersede`` name the symbols a file defines spelt closest to
an anchored name it does not define, as ``tether remember --json`` does: in ``anchor_notes``
and ``anchor_suggestions``; the memory is written with the anchor all the same."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make_repo, run_tether

from tests.mcp.harness import call, mcp_client

pytestmark = pytest.mark.asyncio

CORE_PY = "class Store:\n    def save(self, item):\n        return item\n"
UTIL_GO = "package util\n\nfunc LoadSession(p string) string {\n\treturn p\n}\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"src/core.py": CORE_PY, "src/util.go": UTIL_GO})


async def test_a_mistyped_anchor_names_the_closest_symbols(repo: Path) -> None:
    async with mcp_client(repo) as client:
        written = await call(
            client,
            "memory_write",
            summary="saving returns the item",
            category="gotcha",
            files=["src/core.py"],
            anchors=["src/core.py::Store.sve", "src/core.py::nosuch"],
        )
        replaced = await call(
            client,
            "memory_supersede",
            old_id=written["id"],
            summary="sessions load by path",
            anchors=["src/util.go::LoadSesion"],
        )
    assert written["written"] is True
    assert written["anchor_suggestions"] == {"src/core.py::Store.sve": ["Store.save"]}
    assert len(written["anchor_notes"]) == 2
    assert "did you mean Store.save?" in written["anchor_notes"][0]
    assert replaced["anchor_suggestions"] == {"src/util.go::LoadSesion": ["LoadSession"]}
    shown = run_tether("show", written["id"], "--json", cwd=repo).json()
    assert [a["symbol"] for a in shown["anchors"]] == [
        "src/core.py::Store.sve",
        "src/core.py::nosuch",
    ]

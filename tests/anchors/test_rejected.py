"""The "rejected" category: an approach tried before and rejected, with why; surfaced like a
gotcha (an edit's warning, the editor's diagnostic) and worded "tried before and rejected"."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import CliResult
from test_hooks import edit_input, hook


def test_a_rejected_approach_warns_an_edit_and_is_worded_so(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    done = cli(
        "remember",
        "caching app output in a global",
        "-c",
        "rejected",
        "-f",
        "src/app.py",
        "--details",
        "It went stale across requests; see the incident of March.",
        "--json",
    )
    assert done.code == 0, done.stderr
    memory_id = done.json()["id"]
    out = json.loads(hook("pre-edit", edit_input(repo, "src/app.py")))
    context = out["hookSpecificOutput"]["additionalContext"]
    assert context == (
        f'· rejected "caching app output in a global" [{memory_id}] — tried before and '
        "rejected: read why before trying it"
    )
    injected = cli("inject", "-f", "src/app.py", "make app output faster")
    assert f"[rejected] {memory_id}" in injected.stdout
    assert "tried before and rejected: caching app output in a global" in injected.stdout
    listed = cli("list", "--category", "rejected", "--json").json()
    assert [m["id"] for m in listed] == [memory_id]

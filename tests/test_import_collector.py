"""``tether import`` runs without the cyclic garbage collector, as the agent's one-shot commands
do: every draft, memory and result of an import lives until its output is written, so a
collection after the import would traverse that whole heap to find next to nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import make_repo

from recall.cli import main

# Counts the collections that run while the command runs (those of the start-up are not its).
_COUNTED = """
import gc, sys
from recall.cli.main import entry
seen = []
gc.callbacks.append(lambda phase, info: phase == "start" and seen.append(info["generation"]))
sys.argv = ["tether", *sys.argv[1:]]
try:
    entry()
except SystemExit as done:
    print(json.dumps({"code": done.code, "collections": seen}), file=sys.stderr)
"""


def test_import_is_among_the_commands_run_without_the_collector() -> None:
    assert {"inject", "hook"} == main.ONE_SHOT
    assert {"inject", "hook", "import"} == main.COLLECTOR_OFF


def test_an_import_runs_no_collection_from_its_start_to_its_output(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    lines = tmp_path / "lines.jsonl"
    lines.write_text(
        "\n".join(
            json.dumps(
                {
                    "summary": f"pool note {n}",
                    "details": f"the pool of worker {n} is closed\nafter the app exits",
                    "category": "context",
                    "files": [f"src/m{n % 40}.py"],
                }
            )
            for n in range(1500)
        ),
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-c", "import json\n" + _COUNTED, "import", str(lines), "--json"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    outcome = json.loads(done.stderr.strip().splitlines()[-1])
    assert outcome["code"] == 0, done.stderr
    assert sum(json.loads(row)["status"] == "created" for row in done.stdout.splitlines()) == 1500
    assert outcome["collections"] == []

"""A memory written past the credential scan (``--allow-secret``) comes back from its export:
the export line says ``"allow_secret": true`` and the export names the memory; the import takes
that line as the line asks and says so."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import make_repo, run_tether

STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"


def test_an_allowed_secret_survives_export_and_import(repo: Path, tmp_path: Path) -> None:
    allowed = run_tether(
        "--json", "remember", "s", "-c", "gotcha", "--details", STRIPE, "--allow-secret", cwd=repo
    )
    assert allowed.code == 0, allowed.stderr
    allowed_id = json.loads(allowed.stdout)["id"]
    plain = run_tether("--json", "remember", "plain", "-c", "gotcha", cwd=repo)
    plain_id = json.loads(plain.stdout)["id"]

    exported = run_tether("export", cwd=repo)
    assert exported.code == 0, exported.stderr
    lines = {row["id"]: row for row in map(json.loads, exported.stdout.splitlines())}
    assert lines[allowed_id]["allow_secret"] is True
    assert "allow_secret" not in lines[plain_id]
    assert f"export: {allowed_id}: holds what looks like a credential (Stripe key" in (
        exported.stderr
    )
    assert STRIPE[12:] not in exported.stderr

    fresh = make_repo(tmp_path / "fresh")
    source = tmp_path / "e.jsonl"
    source.write_text(exported.stdout, encoding="utf-8")
    imported = run_tether("import", str(source), cwd=fresh)
    assert imported.code == 0, imported.stderr
    assert "Imported 2 memories, 0 already known, 0 rejected" in imported.stdout
    assert 'as their "allow_secret": true asks: 1 line' in imported.stdout
    text = (fresh / ".tether" / "memories" / f"{allowed_id}.md").read_text(encoding="utf-8")
    assert STRIPE in text

    again = run_tether("--json", "import", str(source), cwd=fresh)
    rows = {row["id"]: row for row in map(json.loads, again.stdout.splitlines())}
    assert rows[allowed_id]["allow_secret"] is True and "allow_secret" not in rows[plain_id]

"""What a memory names (its file paths, author and anchors) is written into the committed
front matter as given, so a vendor token there is refused as in its text; an ordinary name
holding words like ``secret`` or a long hex run is not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import Cli, add, assert_error, memories_dir, ok

from recall import secret_names
from recall.errors import BadInput
from recall.secrets_scan import _scanner
from recall.store import MemoryStore

GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
AWS_ID = "AKIA" + "IOSFODNN7EXAMPLQ"
STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"

NAMED = {
    "file": (["-f", f"src/{GITHUB}.py", "--allow-missing"], "GitHub token", "in file 1"),
    "author": (["-f", "src/app.py", "--author", GITHUB], "GitHub token", "in author"),
    "anchor": (["--anchor", f"src/app.py::{AWS_ID}"], "AWS access key id", "in anchor 1"),
}


@pytest.mark.parametrize("field", sorted(NAMED))
def test_a_token_in_a_name_is_refused_unless_allowed(cli: Cli, repo: Path, field: str) -> None:
    args, kind, where = NAMED[field]
    ok(cli("init"))
    refused = cli("remember", "upload notes", "-c", "gotcha", *args)
    assert_error(refused, 2, kind, where, "--allow-secret")
    assert GITHUB[8:] not in refused.stderr and AWS_ID[8:] not in refused.stderr
    assert list(memories_dir(repo).iterdir()) == []
    memory_id = add(cli, "upload notes", *args, "--allow-secret")
    assert (memories_dir(repo) / f"{memory_id}.md").exists()


def test_an_import_line_naming_a_token_as_a_file_is_refused_alone(cli: Cli, tmp_path: Path) -> None:
    lines = [
        {"summary": "one", "category": "gotcha", "files": ["src/app.py", f"keys/{STRIPE}.txt"]},
        {"summary": "two", "category": "gotcha", "files": ["src/app.py"]},
    ]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = cli("import", str(path), "--json")
    assert result.code == 2, result
    by_line = {entry["line"]: entry for entry in result.json_lines()}
    assert by_line[1]["status"] == "error" and "Stripe key" in by_line[1]["error"]
    assert "in file 2" in by_line[1]["error"] and STRIPE[12:] not in by_line[1]["error"]
    assert by_line[2]["status"] == "created"


def test_ordinary_names_are_written(cli: Cli) -> None:
    add(
        cli,
        "where the keys live",
        "-f",
        "src/secret_key_token_password.py",
        "-f",
        "objects/" + "0123456789abcdef" * 2 + "01234567.bin",
        "-f",
        "config/api_key.pem",
        "-f",
        "src/ACCOUNTS/AC" + "a1b2c3d4" * 4 + ".json",
        "--author",
        "Ken Token",
        "--anchor",
        "src/app.py::get_api_token",
        "--allow-missing",
    )


def test_every_writer_passes_its_symbol_anchors_to_the_scan(store: MemoryStore) -> None:
    base = {"summary": "anchored", "category": "gotcha", "files": ["a.py"]}
    with pytest.raises(BadInput) as caught:
        store.prepare_memory(**base, symbols=[f"a.py::{AWS_ID}"])
    assert "AWS access key id" in str(caught.value) and "in anchor 1" in str(caught.value)
    store.prepare_memory(**base, symbols=[f"a.py::{AWS_ID}"], allow_secret=True)


def test_names_are_scanned_for_vendor_prefixed_shapes_only() -> None:
    """Each kind looked for in a name is one a plugin finds, and none is a keyword, a generic
    token or an unmarked run (which match ordinary file names)."""
    kinds = {plugin.secret_type for plugin in _scanner().plugins}
    assert kinds >= secret_names.NAME_SECRET_TYPES
    for generic in (
        "Secret Keyword",
        "assigned credential",
        "password in prose",
        "bearer token",
        "Twilio API Key",
        "Artifactory Credentials",
        "Mailchimp Access Key",
        "Discord Bot Token",
        "Telegram Bot Token",
    ):
        assert generic not in secret_names.NAME_SECRET_TYPES
    assert len(secret_names.NAME_SECRET_TYPES) == 15


def test_names_found_clean_are_kept_up_to_a_bound() -> None:
    assert secret_names.CLEAN_NAMES_KEPT == 100_000


def test_a_name_seen_clean_before_does_not_hide_a_token_beside_it() -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    assert secret_names.name_matches([("file 1", "src/main.c")]) == []
    found = secret_names.name_matches([("file 1", "src/main.c"), ("file 2", f"src/{token}.c")])
    assert len(found) == 1 and found[0].endswith("in file 2")
    # and the token is found again, never remembered as clean
    assert secret_names.name_matches([("file 1", f"src/{token}.c")])

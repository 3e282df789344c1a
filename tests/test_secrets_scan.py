"""Secret scrubbing on write: each credential shape is refused, named and masked; prose is not.

Fake credentials are assembled from pieces so this file itself never holds a whole one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CliResult
from test_cli import Cli, add, assert_error, memories_dir, ok

from recall.errors import BadInput
from recall.secrets_scan import scan
from recall.store import MemoryStore

AWS_ID = "AKIA" + "IOSFODNN7EXAMPLQ"
AWS_TEMP_ID = "ASIA" + "Q3EGXAMPLE2RZ7UV"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
GITHUB_PAT = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuv"
SLACK = "xoxb-" + "1234567890-0987654321-AbCdEfGhIjKl"
BEARER_VALUE = "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0.s3cr3t"
PEM = "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----"

SHAPES = {
    "private key block": (f"Deploy key is\n{PEM}", "MIIEpAIBAAKCAQEA7"),
    "AWS access key id": (f"CI uses {AWS_ID} for uploads", AWS_ID),
    "AWS access key id ": (f"temporary creds {AWS_TEMP_ID} expire hourly", AWS_TEMP_ID),
    "AWS secret access key": (f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET),
    "GitHub token": (f"release bot token {GITHUB}", GITHUB),
    "GitHub token ": (f"fine-grained {GITHUB_PAT} for the mirror", GITHUB_PAT),
    "Slack token": (f"alerts post with {SLACK}", SLACK),
    "bearer token": (f"curl -H 'Authorization: Bearer {BEARER_VALUE}'", BEARER_VALUE),
    "assigned credential": ('DB_PASSWORD="hunter2-Correct-Horse"', "hunter2-Correct-Horse"),
    "assigned credential ": ("api_key: sk9f8e7d6c5b4a3", "sk9f8e7d6c5b4a3"),
    "assigned credential  ": ("client_secret := 'Zq81!mmP0x'", "Zq81!mmP0x"),
    "assigned credential   ": ('{"auth_token": "t0k3n-abcdef-1234"}', "t0k3n-abcdef-1234"),
}

HARMLESS = [
    "The password reset flow sends the link twice when the queue retries",
    "Rate limiting uses a token bucket per tenant; refill is every 100ms",
    "Never log the API key; read it from os.environ['API_KEY'] at startup",
    "secret: Secret and token: string are the verify() parameter types",
    "Set PASSWORD=${DB_PASSWORD} in compose, the real value lives in vault",
    "token = None until login; check `if password == user.password` is constant time",
    "max_tokens: 4096 is the model limit; tokens=12 in the fixture",
    "api_key: <your-key-here> in the README example, password: ******** in logs",
    "The Bearer authentication scheme needs the header on every request",
    "Use the AKIA prefix to tell long-term AWS keys from temporary ASIA ones",
    "The -----BEGIN CERTIFICATE----- block is public, ship it",
    "secret=settings.SECRET_KEY2 is read lazily; password: 'use the reset flow instead'",
    "token=make_token2(user) signs it; api_key = config.api_key_v2",
]


@pytest.mark.parametrize("kind", list(SHAPES))
def test_each_shape_is_found_named_and_masked(kind: str) -> None:
    text, secret = SHAPES[kind]
    found = scan(text)
    assert [m.kind for m in found] == [kind.strip()], found
    assert secret not in found[0].excerpt


@pytest.mark.parametrize("text", HARMLESS)
def test_ordinary_text_is_not_a_secret(text: str) -> None:
    assert scan(text) == []


def test_scan_of_nothing_is_empty() -> None:
    assert scan(None) == [] and scan("") == []


@pytest.mark.parametrize("field", ["summary", "details", "anchor"])
def test_prepare_memory_refuses_a_secret_in_every_field(store: MemoryStore, field: str) -> None:
    base = {"summary": "Upload credentials", "category": "gotcha", "files": []}
    with pytest.raises(BadInput) as caught:
        store.prepare_memory(**{**base, field: f"x {GITHUB}"})
    message = str(caught.value)
    assert "GitHub token" in message and f"in {field}" in message
    assert "--allow-secret" in message and GITHUB not in message
    draft = store.prepare_memory(**{**base, field: f"x {GITHUB}"}, allow_secret=True)
    assert GITHUB in getattr(draft, field)


def _summary_and_details(text: str) -> tuple[str, ...]:
    first, _, rest = text.partition("\n")
    return (first, f"--details={rest}") if rest else (first,)


@pytest.mark.parametrize("kind", list(SHAPES))
def test_cli_refuses_each_shape_with_exit_2_and_writes_nothing(
    cli: Cli, repo: Path, kind: str
) -> None:
    text, secret = SHAPES[kind]
    ok(cli("init"))
    result = cli("remember", *_summary_and_details(text), "-c", "gotcha")
    assert_error(result, 2, kind.strip(), "--allow-secret")
    assert secret not in result.stderr
    assert list(memories_dir(repo).iterdir()) == []


def test_cli_allow_secret_overrides_for_remember_and_supersede(cli: Cli, repo: Path) -> None:
    memory_id = add(cli, f"mirror token {GITHUB}", "--allow-secret")
    assert GITHUB in (memories_dir(repo) / f"{memory_id}.md").read_text(encoding="utf-8")
    refused: CliResult = cli("supersede", memory_id, f"now {SLACK}", "-c", "gotcha")
    assert_error(refused, 2, "Slack token", "--allow-secret")
    out = ok(
        cli("supersede", memory_id, f"now {SLACK}", "-c", "gotcha", "--allow-secret", "--json")
    ).json()
    assert SLACK in (memories_dir(repo) / f"{out['id']}.md").read_text(encoding="utf-8")


def test_cli_ordinary_text_is_written(cli: Cli) -> None:
    add(cli, HARMLESS[0], "--details", HARMLESS[1])


def test_import_refuses_a_secret_line_unless_it_allows_it(cli: Cli, tmp_path: Path) -> None:
    lines = [
        {"summary": f"key {AWS_ID}", "category": "gotcha"},
        {"summary": f"key {AWS_ID}", "category": "gotcha", "allow_secret": True},
        {"summary": "plain", "category": "gotcha", "allow_secret": "yes"},
    ]
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    result = cli("import", str(path), "--json")
    assert result.code == 2, result
    by_line = {entry["line"]: entry for entry in result.json_lines()}
    assert by_line[1]["status"] == "error" and "AWS access key id" in by_line[1]["error"]
    assert AWS_ID not in by_line[1]["error"]
    assert by_line[2]["status"] == "created"
    assert by_line[3]["status"] == "error" and "allow_secret" in by_line[3]["error"]

"""Secret scrubbing on write: detect-secrets plus our rules, judged on a labelled corpus.

Every made-up credential in tests/fixtures/secrets/credentials.jsonl must be refused, named as
its kind and masked; every harmless text in harmless.jsonl (IPv6, hashes, UUIDs, versions, file
names, real commit messages) must be written. The corpus joins each secret from two pieces (see
its README) so no file here holds a whole one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import CliResult
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_cli import Cli, add, assert_error, memories_dir, ok

from recall import secret_gates, secret_rules, secrets_scan
from recall.errors import BadInput
from recall.secrets_scan import SHOWN_CHARS, scan
from recall.store import MemoryStore

CORPUS = Path(__file__).parent / "fixtures" / "secrets"
JOINT = "§"
# Refusals of harmless texts the corpus may hold, each marked with `false_refusal` (its why).
ALLOWED_FALSE_REFUSALS = 1
MIN_CORPUS = 40


def _load(name: str) -> list[dict[str, Any]]:
    lines = (CORPUS / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


CREDENTIALS = _load("credentials.jsonl")
HARMLESS = _load("harmless.jsonl")


def _text(item: dict[str, Any]) -> str:
    return item["text"].replace(JOINT, "")


def _hidden(item: dict[str, Any]) -> str:
    """Characters of the secret after the joint: more than a refusal may ever show of it."""
    return item["text"].split(JOINT, 1)[1][: SHOWN_CHARS + 2]


def test_the_corpus_is_big_enough_and_labelled() -> None:
    assert len(CREDENTIALS) >= MIN_CORPUS and len(HARMLESS) >= MIN_CORPUS
    assert all(item["text"].count(JOINT) == 1 and item["kind"] for item in CREDENTIALS)
    assert all(JOINT not in item["text"] and item["source"] for item in HARMLESS)
    names = [item["name"] for item in CREDENTIALS + HARMLESS]
    assert len(names) == len(set(names))
    marked = [item for item in HARMLESS if "false_refusal" in item]
    assert len(marked) <= ALLOWED_FALSE_REFUSALS
    real = [item for item in HARMLESS if "commit" in item["source"]]
    assert len(real) >= 20  # real commit messages of the shared histories, not only made-up


@pytest.mark.parametrize("item", CREDENTIALS, ids=[item["name"] for item in CREDENTIALS])
def test_every_credential_is_refused_named_and_masked(item: dict[str, Any]) -> None:
    found = scan(_text(item))
    assert [m.kind for m in found] == [item["kind"]], found
    assert _hidden(item) not in found[0].excerpt
    assert found[0].excerpt.endswith(" chars]") or item["kind"] == "private key block"


@pytest.mark.parametrize("item", CREDENTIALS, ids=[item["name"] for item in CREDENTIALS])
def test_a_credential_inside_a_longer_note_is_still_found(item: dict[str, Any]) -> None:
    """The whole-text pre-check that skips plugins must not hide a secret on a later line."""
    note = f"Deploy notes, see ops/README.md\n\n{_text(item)}\nrotated on 2024-05-01 (v1.2.3)"
    assert [m.kind for m in scan(note)] == [item["kind"]]


def test_an_assignment_never_reaches_into_the_next_line() -> None:
    """A value left empty at a line's end is not the next line: the secret there is found."""
    found = scan("password =\nAPI_TOKEN=Xk82jd" + "kq0Lm")
    assert [m.kind for m in found] == ["assigned credential"]
    assert found[0].excerpt == "API_TOKEN = Xk…[11 chars]"


@pytest.mark.parametrize("item", HARMLESS, ids=[item["name"] for item in HARMLESS])
def test_harmless_text_is_written(item: dict[str, Any]) -> None:
    found = scan(item["text"])
    if "false_refusal" in item:
        assert found, "marked as a known false refusal but no longer refused: drop the mark"
    else:
        assert found == [], found


def test_the_issue_cases_each_way() -> None:
    for text in (
        "passwd_file=/etc/passwd2",
        "tokenizer_version: v2.3.1-beta4",
        "ip token set ::1a:2b:3c:4d/64",
    ):
        assert scan(text) == [], text
    kinds = [m.kind for m in scan("the password is Tr0ub" + "4dor&3")]
    assert kinds == ["password in prose"]
    assert [m.kind for m in scan("redis://:pw" + "Xy81kq2@cache:6379")] == ["password in a URL"]


def test_scan_of_nothing_is_empty() -> None:
    assert scan(None) == [] and scan("") == [] and scan("\n \n") == []


def test_several_secrets_are_each_named_once_in_order() -> None:
    text = f"{_text(CREDENTIALS[0])}\nand {_text(CREDENTIALS[4])}"
    assert [m.kind for m in scan(text)] == [CREDENTIALS[0]["kind"], CREDENTIALS[4]["kind"]]


# -- the gates: a plugin is skipped only where it could find nothing --------------------------

SCANNER = secrets_scan._scanner()
GATES = list(zip(SCANNER.plugins, SCANNER.gates.gates, strict=True))


def _plugin_name(plugin: Any) -> str:
    return f"{type(plugin).__name__}:{plugin.secret_type}"


def _patterns() -> list[tuple[str, Any, Any]]:
    """(plugin, gate, pattern) for every pattern a plugin needs to match before it reports."""
    found = []
    for plugin, gate in GATES:
        if isinstance(plugin, SCANNER.keyword_plugin):
            patterns = [SCANNER.keyword_gate]  # what decides whether it runs at all
        elif isinstance(plugin, secret_rules.StatedPasswordDetector):
            patterns = [plugin._stated]
        elif isinstance(plugin, secret_rules.AssignedCredentialDetector):
            continue  # its gate is on the name, checked below
        else:
            patterns = list(plugin.denylist)
        found.extend((_plugin_name(plugin), gate, pattern) for pattern in patterns)
    return found


PATTERNS = _patterns()
ASCII = st.characters(codec="ascii")


def test_every_plugin_has_a_gate_and_the_gate_set_agrees_with_each_gate() -> None:
    assert all(gate != secret_gates.Gate() for _, gate in GATES)
    assert len(PATTERNS) > len(GATES)
    for item in CREDENTIALS + HARMLESS:
        text = _text(item) if JOINT in item["text"] else item["text"]
        each = [gate.opens(text, text.lower()) for _, gate in GATES]
        assert SCANNER.gates.open(text) == each


@pytest.mark.parametrize(("name", "gate", "pattern"), PATTERNS, ids=[p[0] for p in PATTERNS])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_gate_opens_on_every_text_its_plugin_can_match(
    name: str, gate: secret_gates.Gate, pattern: Any, data: st.DataObject
) -> None:
    text = data.draw(st.from_regex(pattern, alphabet=ASCII))
    assume(pattern.search(text) is not None)
    assert gate.opens(text, text.lower()), (name, text)


def test_the_keyword_gate_opens_on_every_word_of_its_list() -> None:
    from detect_secrets.plugins.keyword import DENYLIST

    (gate,) = [g for p, g in GATES if isinstance(p, SCANNER.keyword_plugin)]
    for word in DENYLIST:
        for spelling in {word.replace("_?", "_"), word.replace("_?", "")}:
            for text in (f"my_{spelling} = 'x9Kq'", f"{spelling.upper()}: x"):
                if text.isascii():
                    assert SCANNER.keyword_gate.search(text), text
                    assert gate.opens(text, text.lower()), text


CREDENTIAL_WORDS = sorted(secret_rules.CREDENTIAL_WORDS | set(secret_rules.CREDENTIAL_SUFFIXES))


@settings(max_examples=200, deadline=None)
@given(
    words=st.lists(
        st.sampled_from([*CREDENTIAL_WORDS, "key", "api", "db", "aws", "x9", "file"])
        | st.text(alphabet=st.sampled_from("abcKEYxyz_09"), min_size=1, max_size=6),
        min_size=1,
        max_size=4,
    ),
    joint=st.sampled_from(["_", "-", ".", ""]),
    upper=st.booleans(),
)
def test_the_assignment_gate_opens_on_every_credential_name(
    words: list[str], joint: str, upper: bool
) -> None:
    name = joint.join(words)
    name = name.upper() if upper else name
    assume(name[:1].isalpha() or name[:1] == "_")
    text = f"{name} = Xk82jdkq0LmZ"
    (gate,) = [g for p, g in GATES if isinstance(p, secret_rules.AssignedCredentialDetector)]
    if secret_rules.name_holds_credential(name):
        assert gate.opens(text, text.lower()), name


def test_a_plain_text_is_given_to_no_plugin_and_other_text_to_all() -> None:
    plain = "Fix the route lookup when the table is empty (reported on the list)"
    assert secrets_scan._gated(SCANNER, plain) == []
    assert secrets_scan._gated(SCANNER, "route lookup für Café") == list(SCANNER.plugins)


# -- the judgements, pinned -----------------------------------------------------------------


def test_assigned_values_shorter_than_the_minimum_are_words() -> None:
    short = "q" * 2 + "x9Z" + "k" * (secret_rules.MIN_VALUE_LENGTH - 6)
    assert len(short) == secret_rules.MIN_VALUE_LENGTH - 1 == 7
    assert scan(f"api_token={short}") == []
    assert [m.kind for m in scan(f"api_token={short}w")] == ["assigned credential"]


def test_hex_values_shorter_than_128_bits_are_ids() -> None:
    assert secret_rules.MIN_HEX_SECRET_LENGTH == 32
    assert scan("token=" + "83f3a692" * 3 + "0a1b2c3") == []  # 31 hex digits
    assert [m.kind for m in scan("token=" + "83f3a692" * 4)] == ["assigned credential"]


def test_only_the_last_word_of_a_name_makes_it_a_credential() -> None:
    assert secret_rules.name_holds_credential("DB_PASSWORD")
    assert secret_rules.name_holds_credential("authToken")
    assert secret_rules.name_holds_credential("aws-secret-access-key")
    assert secret_rules.name_holds_credential("client_secrets")
    for name in ("passwd_file", "tokenizer_version", "max_tokens", "primary_key", "key"):
        assert not secret_rules.name_holds_credential(name), name


def test_excerpts_show_only_a_few_characters_and_the_public_prefix() -> None:
    assert SHOWN_CHARS == 4
    (match,) = scan("release bot pushes with ghp_" + "Zk3" * 12)
    assert match.excerpt == "ghp_Zk3Z…[40 chars]"
    assert match.describe() == "GitHub token (ghp_Zk3Z…[40 chars])"


def test_each_github_token_of_a_line_is_found_where_it_stands() -> None:
    """GitHub's plugin reports a token's prefix only (``ghp``), once per line: the excerpt and
    the placeholder check must take each token from its own place, not from the first ``ghp``
    of the line."""
    token = "ghp_" + "Zk3" * 12
    other = "ghp_" + "Qw9" * 12
    [after_text] = scan(f"see the ghpages branch; CI pushes with {token}")
    assert after_text.excerpt == "ghp_Zk3Z…[40 chars]"
    assert [m.excerpt for m in scan(f"old {token} new {other}")] == [
        "ghp_Zk3Z…[40 chars]",
        "ghp_Qw9Q…[40 chars]",
    ]
    assert [m.excerpt for m in scan(f"{token} and again {token}")] == ["ghp_Zk3Z…[40 chars]"] * 2
    [real] = scan(f"tokens look like ghp_{'x' * 36}; ours is {token}")  # the how-to is no secret
    assert real.excerpt == "ghp_Zk3Z…[40 chars]"


def test_detect_secrets_never_verifies_a_secret_over_the_network() -> None:
    from detect_secrets.settings import get_settings

    scan("CI uses AKIA" + "Q3EGXAMPLE2RZ7UV")
    policy = "detect_secrets.filters.common.is_ignored_due_to_verification_policies"
    assert policy not in get_settings().filters


def test_detect_secrets_is_loaded_by_the_first_scan_only() -> None:
    probe = (
        "import sys\n"
        "from recall import secrets_scan\n"
        "before = 'detect_secrets' in sys.modules\n"
        "secrets_scan.scan('plain words')\n"
        "print(before, 'detect_secrets' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.split() == ["False", "True"]


# -- every writer refuses, and the override lets it through -----------------------------------

GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
SLACK = "xoxb-" + "1234567890-0987654321-AbCdEfGhIjKl"
AWS_ID = "AKIA" + "IOSFODNN7EXAMPLQ"
CLI_SHAPES = [item for item in CREDENTIALS if item["name"] in {
    "aws-access-key-id", "github-classic", "postgres-url", "password-in-prose",
    "rsa-private-key", "openai-project", "json-auth-token",
}]  # fmt: skip


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


@pytest.mark.parametrize("item", CLI_SHAPES, ids=[item["name"] for item in CLI_SHAPES])
def test_cli_refuses_with_exit_2_and_writes_nothing(
    cli: Cli, repo: Path, item: dict[str, Any]
) -> None:
    ok(cli("init"))
    result = cli("remember", *_summary_and_details(_text(item)), "-c", "gotcha")
    assert_error(result, 2, item["kind"], "--allow-secret")
    assert _hidden(item) not in result.stderr
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


def test_cli_harmless_text_is_written(cli: Cli) -> None:
    ip_token = next(item for item in HARMLESS if item["name"] == "commit-ip-token")
    add(cli, *_summary_and_details(ip_token["text"]))


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


def test_import_of_commits_reports_refused_ones_and_imports_the_rest(
    cli: Cli, tmp_path: Path
) -> None:
    """A history imported as memories: a commit holding a credential is reported with its line
    and its id, and every commit before and after it is imported all the same."""
    commits = [item for item in HARMLESS if "commit" in item["source"]][:6]
    secret = next(item for item in CREDENTIALS if item["name"] == "postgres-url")
    records = []
    for number, item in enumerate([*commits[:3], secret, *commits[3:]], start=1):
        summary, _, body = _text(item).partition("\n")
        records.append(
            {"summary": summary, "details": body, "category": "context", "id": f"{number:08x}"}
        )
    path = tmp_path / "commits.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    result = cli("import", str(path), "--json")
    assert result.code == 2, result
    by_line = {entry["line"]: entry for entry in result.json_lines()}
    assert [by_line[n]["status"] for n in range(1, 8)] == ["created"] * 3 + ["error"] + [
        "created"
    ] * 3
    refused = by_line[4]
    assert refused["record_id"] == "00000004" and refused["id"] is None
    assert "password in a URL" in refused["error"] and _hidden(secret) not in refused["error"]
    assert {by_line[n]["id"] for n in (1, 2, 3, 5, 6, 7)} == {
        f"{n:08x}" for n in (1, 2, 3, 5, 6, 7)
    }
    listed = ok(cli("list", "--json")).json()
    assert len(listed) == 6

    text = cli("import", str(path))  # the same file again: the refusal is named by its line
    assert text.code == 2 and f"{path.name}:4: refusing" in text.stderr
    assert "Imported 0 memories, 6 already known, 1 rejected" in text.stdout


def test_mcp_refusal_names_the_kind_through_the_same_scanner() -> None:
    assert secrets_scan.KIND_NAMES["GitHub Token"] == "GitHub token"
    assert [m.kind for m in scan(f"key {AWS_ID}")] == ["AWS access key id"]


def test_short_hex_counts_after_a_name_other_than_token() -> None:
    assert secret_rules.MIN_HEX_SECRET_LENGTH_NAMED == 16
    assert scan("client_secret: " + "9a8b7c6d" + "5e4f3a2") == []  # 15 hex digits
    found = scan("client_secret: " + "9a8b7c6d" + "5e4f3a2b")
    assert [m.kind for m in found] == ["assigned credential"]
    assert scan("token=" + "9a8b7c6d" * 3 + "5e4f3a2") == []  # protocols' tokens are ids


def test_pass_names_a_credential_only_in_a_setting_in_capitals() -> None:
    assert {"pass"} == secret_rules.CAPITALS_CREDENTIAL_WORDS
    assert secret_rules.name_holds_credential("REDIS_PASS")
    for name in ("PASS", "first_pass", "render-pass", "DB_PASS_FILE", "Redis_Pass"):
        assert not secret_rules.name_holds_credential(name), name


def test_a_link_with_no_at_sign_is_not_given_to_the_url_password_plugin() -> None:
    (gate,) = [g for p, g in GATES if isinstance(p, secret_rules.UrlPasswordDetector)]
    link = "See https://bugzilla.example.org/show_bug.cgi?id=1234 for the report."
    assert not gate.opens(link, link.lower())
    assert SCANNER.gates.open(link) == [g.opens(link, link.lower()) for _, g in GATES]
    with_password = "set it to postgres://app:S3cure!" + "Pass@db/main first"
    assert gate.opens(with_password, with_password.lower())
    assert [m.kind for m in scan(with_password)] == ["password in a URL"]

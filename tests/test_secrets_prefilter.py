"""The secret scan's prefilter finds exactly what the full scan finds.

The full scan (``scan(text, prefilter=False)``) gives every detector every line; the fast one
opens only the detectors whose gate one Aho–Corasick pass over the text opened, and skips the
lines KeywordDetector cannot match. They must agree on credentials of every detector's shape
(made here from a seeded generator, so no whole secret sits in the repository), on the labelled
corpus, and on the commit messages of the shared benchmark histories.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from recall import secret_gates, secrets_scan
from recall.secrets_scan import scan

SCANNER = secrets_scan._scanner()
CORPUS = Path(__file__).parent / "fixtures" / "secrets"
HISTORIES = Path(__file__).resolve().parents[2] / "shared" / "bench" / "data"
# Every n-th text of each shared history is scanned both ways (the full scan of all of them
# takes half a minute; bench.secrets_scan_bench --full compares every one).
HISTORY_STRIDE = 15

UPPER = string.ascii_uppercase + string.digits
LOWER = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"
URLSAFE = string.ascii_letters + string.digits + "_-"


def _credential_shapes(rng: random.Random) -> dict[str, str]:
    """One made-up credential per detector, in the line it would be pasted in."""

    def tok(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    claims = base64.urlsafe_b64encode(f'{{"sub":"{tok(12)}","n":1}}'.encode()).decode()
    basic = base64.b64encode(f"admin:{tok(12)}".encode()).decode()
    return {
        "artifactory token": f"export ARTIFACTORY=AKC{tok(60)}",
        "artifactory password": f"art pw: AP{rng.choice('0123456789ABCDEF')}{tok(12)}",
        "aws key id": f"aws creds AKIA{tok(16, UPPER)} for the bucket",
        "azure storage": f"DefaultEndpointsProtocol=https;AccountKey={tok(86, B64)}==",
        "url with password": f"clone https://deploy:{tok(14)}@git.example.org/repo.git",
        "cloudant": f"cloudant_password='{tok(64, HEX)}'",
        "discord": f"bot token M{tok(23, URLSAFE)}.{tok(6, URLSAFE)}.{tok(27, URLSAFE)}",
        "github classic": f"use ghp_{tok(36)} to push",
        "gitlab": f"CI uses glpat-{tok(20, URLSAFE)}",
        "ibm cloud iam": f"ibm_cloud_iam_key = '{tok(44, URLSAFE)}'",
        "ibm cos hmac": f"secret_access_key = '{tok(48, HEX)}'",
        "jwt": f"Authorization: eyJhbGciOiJIUzI1NiJ9.{claims.rstrip('=')}.{tok(43, URLSAFE)}",
        "keyword in code": f'db_password = "{tok(14)}"',
        "mailchimp": f"mc key {tok(32, HEX)}-us{rng.randint(1, 20)}",
        "openai legacy": f"OPENAI sk-{tok(20)}T3BlbkFJ{tok(20)}",
        "private key": f"-----BEGIN RSA PRIVATE KEY-----\nMIIE{tok(60, B64)}\n-----END RSA",
        "pypi": f"twine token pypi-AgEIcHlwaS5vcmc{tok(70, URLSAFE)}",
        "sendgrid": f"SG.{tok(22, URLSAFE)}.{tok(43, URLSAFE)}",
        "slack": f"slack xoxb-{rng.randint(10**10, 10**11)}-{tok(24)}",
        "softlayer": f"softlayer_api_key = {tok(64, LOWER)}",
        "square": f"sq0csp-{tok(43, URLSAFE)}",
        "stripe": f"stripe sk_live_{tok(24)}",
        "telegram": f"bot {rng.randint(10**8, 10**9)}:{tok(35, URLSAFE)}",
        "twilio": f"twilio AC{tok(32, LOWER)}",
        "url password, no user": f"REDIS_URL=redis://:{tok(16)}@cache:6379/0",
        "basic header": f"Authorization: Basic {basic}",
        "openai project": f"key sk-proj-{tok(40, URLSAFE)}",
        "anthropic": f"sk-ant-api03-{tok(40, URLSAFE)}",
        "google": f"maps AIza{tok(35, URLSAFE)}",
        "npm": f"npm_{tok(36)}",
        "github fine-grained": f"github_pat_{tok(40)}",
        "hugging face": f"hf_{tok(34)}",
        "bearer": f"curl -H 'Authorization: Bearer {tok(30)}9'",
        "aws secret": f"aws_secret_access_key = {tok(40, B64)}",
        "assigned": f"API_TOKEN={tok(10)}9{tok(10)}",
        "stated": f"the password is Tr0ub4dor&3{tok(4)}",
        "mysql option": f"mysql -u root -p{tok(12)}9 shop",
        "curl user": f"curl -u admin:{tok(12)}9 https://api.example.org/v1",
    }


SHAPES = _credential_shapes(random.Random(15))


def _name(plugin: Any) -> str:
    return f"{type(plugin).__name__}:{plugin.secret_type}"


def _finds(plugin: Any, text: str) -> bool:
    lines = text.splitlines()
    return any(plugin.analyze_line(filename="memory", line=line, line_number=1) for line in lines)


def test_the_shapes_cover_every_detector() -> None:
    unfound = [
        _name(plugin)
        for plugin in SCANNER.plugins
        if not any(_finds(plugin, text) for text in SHAPES.values())
    ]
    assert unfound == []


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_each_shape_is_refused_alike_both_ways(name: str) -> None:
    text = SHAPES[name]
    assert scan(text, prefilter=False), name
    assert scan(text) == scan(text, prefilter=False)


# Commit-message words and the characters the gates and the keyword check look at.
# "é", the Kelvin sign (which folds to "k") and a line separator other than "\n" make lines
# that are not plain ASCII, which the prefilter gives to every detector.
_FILLER = st.lists(
    st.sampled_from(
        [*"abcdeKEYpstokn019 :=@./-_'\"`\n(", "é", "\u212a", "\u2028", "Key", "AP", "sk"]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    names=st.lists(st.sampled_from(sorted(SHAPES)), min_size=1, max_size=3),
    fillers=st.lists(_FILLER, min_size=4, max_size=4),
)
def test_credentials_inside_longer_messages_are_found_alike(
    seed: int, names: list[str], fillers: list[str]
) -> None:
    shapes = _credential_shapes(random.Random(seed))
    parts = [fillers[0]]
    for n, name in enumerate(names):
        parts += [shapes[name], fillers[(n + 1) % len(fillers)]]
    text = "".join(parts)
    assert scan(text) == scan(text, prefilter=False), text


def _corpus() -> list[str]:
    texts = []
    for name in ("credentials.jsonl", "harmless.jsonl"):
        for line in (CORPUS / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                texts.append(json.loads(line)["text"].replace("§", ""))
    return texts


def test_the_labelled_corpus_is_judged_alike() -> None:
    texts = _corpus()
    assert sum(bool(scan(text, prefilter=False)) for text in texts) > 40
    assert [scan(text) for text in texts] == [scan(text, prefilter=False) for text in texts]


def _history_texts(name: str) -> list[str]:
    texts = []
    with (HISTORIES / name / "commits.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                commit = json.loads(line)
                texts += [commit["subject"], commit["body"]]
    return [text for text in texts if text]


@pytest.mark.parametrize("history", ["iproute2", "rdma-core", "optee", "networkmanager"])
def test_shared_history_texts_are_judged_alike(history: str) -> None:
    if not (HISTORIES / history / "commits.jsonl").is_file():
        pytest.skip(f"the shared benchmark history {history} is not beside this checkout")
    texts = _history_texts(history)
    # every n-th text, and every text the fast scan refuses or a keyword could be in
    sample = [
        text
        for n, text in enumerate(texts)
        if n % HISTORY_STRIDE == 0 or scan(text) or SCANNER.keyword_gate.search(text)
    ]
    assert len(sample) > len(texts) // HISTORY_STRIDE
    for text in sample:
        assert scan(text) == scan(text, prefilter=False), text


# -- the pieces the prefilter is made of ----------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    text=st.lists(
        st.sampled_from(
            [*"aAkKpPsS:/.-_ 0123456789\n", "key", "KEY", "Pass", "AP7", "ap7", "://", "sk"]
        ),
        max_size=60,
    ).map("".join)
)
def test_the_gate_set_agrees_with_each_gate_on_any_case(text: str) -> None:
    each = [gate.opens(text, text.lower()) for gate in SCANNER.gates.gates]
    assert SCANNER.gates.open(text) == each


def test_a_part_written_in_one_case_opens_only_in_that_case() -> None:
    gates = secret_gates.GateSet([secret_gates.Gate(exact=("AKIA",)), secret_gates.Gate()])
    assert gates.open("id AKIA1234") == [True, False]
    assert gates.open("id akia1234") == [False, False]


def test_patterns_are_searched_only_where_a_need_was_found() -> None:
    import re

    gate = secret_gates.Gate(patterns=(re.compile(r"[0-9]{8}:"),), needs=("7:",))
    gates = secret_gates.GateSet([gate])
    assert gates.open("bot 12345677:x") == [True]
    # the pattern alone would match here; its declared need is not in the text
    assert gates.open("bot 12345678:x") == [False]
    assert gate.opens("bot 12345678:x", "bot 12345678:x") is False


def test_keyword_detector_reads_memory_text_with_its_quotes_required_patterns() -> None:
    from detect_secrets.plugins import keyword
    from detect_secrets.util.filetype import determine_file_type

    chosen = keyword.REGEX_BY_FILETYPE.get(
        determine_file_type("memory"), keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP
    )
    assert chosen is keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP


def _keyword_patterns() -> list[Any]:
    from detect_secrets.plugins import keyword

    return list(keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP)


@pytest.mark.parametrize("pattern", _keyword_patterns(), ids=lambda p: p.pattern[:30])
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_keyword_check_passes_every_text_its_patterns_match(
    pattern: Any, data: st.DataObject
) -> None:
    text = data.draw(st.from_regex(pattern, alphabet=st.characters(codec="ascii")))
    assume(pattern.search(text) is not None)
    may_match: Callable[[Any, str], bool] = secrets_scan._keyword_may_match
    assert may_match(SCANNER, text), text


def _given_texts(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """What each detector (detect-secrets' objects, spied on) is given to pre-run whole."""
    given: dict[str, list[str]] = {}
    for plugin in SCANNER.plugins:
        seen = given.setdefault(_name(plugin), [])

        def spy(
            text: str, _run: Any = plugin.analyze_string, _seen: list[str] = seen, **kw: Any
        ) -> Any:
            _seen.append(text)
            return _run(text, **kw)

        monkeypatch.setattr(plugin, "analyze_string", spy)
    return given


def test_only_the_lines_that_are_not_plain_go_to_every_detector(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    message = "ip route: fix the lookup of a cached route\n\nSigned-off-by: José Núñez <jn@x.org>"
    assert scan(message, prefilter=False) == []
    given = _given_texts(monkeypatch)
    assert scan(message) == []
    pre_runs = {text for texts in given.values() for text in texts}
    assert pre_runs == {"Signed-off-by: José Núñez <jn@x.org>"}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_credential_beside_a_line_that_is_not_plain_is_found_alike(name: str) -> None:
    for text in (
        f"Café: fix the lookup\n{SHAPES[name]}\nSigned-off-by: José",
        f"fix the lookup\n{SHAPES[name]} (vu à Zürich)\nSigned-off-by: Jose",
    ):
        assert scan(text), text
        assert scan(text) == scan(text, prefilter=False), text


def _token(seed: int) -> str:
    """An unquoted, identifier-shaped credential value (letters and digits, made here)."""
    rng = random.Random(seed)
    return "".join(rng.choice(string.ascii_letters) + rng.choice(string.digits) for _ in range(10))


@pytest.mark.parametrize(
    "layout",
    [
        "token={v}\n(rotated monthly)\n",
        "token={v}\nCafé notes\n(rotated monthly)\n",
        "export API_TOKEN={v}\nÜberprüft von José\n(see the vault)\n",
        "clé: x\ntoken={v}é\nnotes\n(voir doc) é\n",
        "token={v}\u2028(rotated monthly)\n",
    ],
)
def test_an_assignment_before_a_line_opening_a_parenthesis_is_found_alike(layout: str) -> None:
    # Each line is judged alone: a "(" on a later line does not make the value a call, in the
    # whole-text pass that picks the detectors as in the per-line scan.
    text = layout.format(v=_token(len(layout)))
    full = scan(text, prefilter=False)
    assert full, text
    assert scan(text) == full

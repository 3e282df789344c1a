"""Spot credential-shaped text before it is written into a memory (which is committed to git).

The scanning is detect-secrets' (Yelp's maintained scanner): its plugins for cloud and vendor
keys, tokens, private keys, JWTs, URL credentials and keyword assignments, with its filters for
UUIDs, sequences and templated values. :mod:`recall.secret_rules` adds, as plugins of the same
kind, what it lacks for memory text (prose, shell lines, newer key shapes).

:func:`scan` returns what matched — a kind and a masked excerpt, never the full secret — so the
refusal can say what to remove without echoing the credential back into a terminal or a log.
detect-secrets is imported on the first scan only: reads (every agent hook) never load it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import compress
from typing import TYPE_CHECKING

from recall.secret_places import REPLACED_PATTERNS, LinePlaces

if TYPE_CHECKING:
    from collections.abc import Callable

    from detect_secrets.plugins.base import BasePlugin

    from recall.secret_gates import Gate, GateSet

# The override a person passes to write a memory that matched anyway.
OVERRIDE_FLAG = "--allow-secret"

# Characters of a matched secret shown in a refusal: enough to find it in the text, too few to
# use it. Known public prefixes (``AKIA``, ``ghp_``) are part of the kind, not of the secret.
SHOWN_CHARS = 4

# The detect-secrets plugins run, by module and class. Left out: the entropy plugins (every
# quoted git hash, checksum and test vector in a commit message is "high entropy"),
# IPPublicDetector (an IP address is not a credential, and networking notes are full of them)
# and NpmDetector (its ``//.+/:_authToken`` backtracks for seconds on a long line of URLs, and
# recall.secret_rules finds the npm_ tokens it would, in .npmrc lines or not).
DETECT_SECRETS_PLUGINS = (
    ("artifactory", "ArtifactoryDetector"),
    ("aws", "AWSKeyDetector"),
    ("azure_storage_key", "AzureStorageKeyDetector"),
    ("basic_auth", "BasicAuthDetector"),
    ("cloudant", "CloudantDetector"),
    ("discord", "DiscordBotTokenDetector"),
    ("github_token", "GitHubTokenDetector"),
    ("gitlab_token", "GitLabTokenDetector"),
    ("ibm_cloud_iam", "IbmCloudIamDetector"),
    ("ibm_cos_hmac", "IbmCosHmacDetector"),
    ("jwt", "JwtTokenDetector"),
    ("keyword", "KeywordDetector"),
    ("mailchimp", "MailchimpDetector"),
    ("openai", "OpenAIDetector"),
    ("private_key", "PrivateKeyDetector"),
    ("pypi_token", "PypiTokenDetector"),
    ("sendgrid", "SendGridDetector"),
    ("slack", "SlackDetector"),
    ("softlayer", "SoftlayerDetector"),
    ("square_oauth", "SquareOAuthDetector"),
    ("stripe", "StripeDetector"),
    ("telegram_token", "TelegramBotTokenDetector"),
    ("twilio", "TwilioKeyDetector"),
)

# The quote characters of KeywordDetector's patterns for memory text (detect-secrets'
# quotes-required set, as for a file of no known type): each of them holds its value between two
# of the same quote, so a text or line without two of one of these is skipped by it.
KEYWORD_QUOTES = ("'", '"', "`")

# KeywordDetector's names take any suffix (``password_file``, ``secret_version``): a line with a
# keyword followed by one of these suffixes names something about a credential, not the
# credential, and is left to recall.secret_rules.AssignedCredentialDetector, which reads names
# by their last word.
KEYWORD_EXCLUDE = (
    r"(?:api_?key|password|passwd|pwd|secret|priv(?:ate)?_?key)[_-]?"
    r"(?:file|path|dir|name|len|length|size|version|type|hash|policy|reset|prompt|field|id|"
    r"manager|store|ref|env|var|backend|provider|rotation|expiry|ttl|count|mode|format)"
)

# detect-secrets' own false-positive filters applied to every secret found (by the name in
# detect_secrets.filters.heuristic): sequences (ABCDEF123456), UUIDs, {templated}/<slots>,
# $VARIABLES, strings without a letter. is_likely_id_string is applied to the keyword-style
# plugins only, as detect-secrets itself does.
SECRET_FILTERS = (
    "is_sequential_string",
    "is_potential_uuid",
    "is_templated_secret",
    "is_prefixed_with_dollar_sign",
    "is_not_alphanumeric_string",
)

# How detect-secrets names a kind, as said in a refusal (the same names the CLI, the MCP tools
# and the import report have always used); a kind not here is shown as detect-secrets names it.
KIND_NAMES = {
    "Basic Auth Credentials": "password in a URL",
    "GitHub Token": "GitHub token",
    "GitLab Token": "GitLab token",
    "JSON Web Token": "JSON web token",
    "OpenAI Token": "OpenAI key",
    "Private Key": "private key block",
    "Secret Keyword": "assigned credential",
    "Slack Token": "Slack token",
    "Stripe Access Key": "Stripe key",
}

# Public prefixes of token formats: shown whole in a refusal (they tell the kind, not the key).
_PUBLIC_PREFIX = re.compile(
    r"^(?:gh[pousr]_|github_pat_|xox[a-z]-|[sr]k_live_|sk-(?:proj|svcacct|admin)-"
    r"|sk-ant-[a-z]+\d\d-|A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AIza|gl[a-z]+-|npm_|pypi-|SG\.|eyJ)"
)
_AWS_KEY_ID = re.compile(r"(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}")


@dataclass(frozen=True)
class SecretMatch:
    """One credential-shaped span: what kind it is and a masked excerpt of it."""

    kind: str
    excerpt: str

    def describe(self) -> str:
        """``kind (excerpt)`` for a message."""
        return f"{self.kind} ({self.excerpt})"


@dataclass(frozen=True)
class _Scanner:
    plugins: tuple[BasePlugin, ...]
    # One gate per plugin: a plain ASCII text is given to a plugin only if its gate opens.
    gates: GateSet
    filters: tuple[Callable[[str], bool], ...]
    # detect-secrets' is_likely_id_string for the keyword-style plugins (none of them
    # regex-based): a match of this pattern before the value (``user_id = "…"``)
    id_pattern: re.Pattern[str]
    indirect: Callable[[str], bool]
    keyword_style: tuple[type, ...]
    value_check: Callable[..., bool]
    placeholder: Callable[[str], bool]
    # KeywordDetector costs more than all the other plugins together; every one of its
    # patterns contains one of its keywords, so a line without any is skipped by it.
    keyword_plugin: type
    keyword_gate: re.Pattern[str]


@lru_cache(maxsize=1)
def _scanner() -> _Scanner:
    """The plugins and filters, built once per process on the first scan."""
    from recall import ds_offline, secret_gates

    plugin_modules = [f"detect_secrets.plugins.{module}" for module, _ in DETECT_SECRETS_PLUGINS]
    # without the HTTP client detect-secrets would import and never use here
    heuristic, keyword, *loaded, secret_rules = ds_offline.import_offline(
        ["detect_secrets.filters.heuristic", "detect_secrets.plugins.keyword", *plugin_modules],
        dependents=("recall.secret_rules",),
    )
    KeywordDetector, DENYLIST_REGEX = keyword.KeywordDetector, keyword.DENYLIST_REGEX
    classes = [
        getattr(m, name) for m, (_, name) in zip(loaded, DETECT_SECRETS_PLUGINS, strict=True)
    ]
    plugins: list[BasePlugin] = []
    gates: list[Gate] = []
    for cls, (_module, name) in zip(classes, DETECT_SECRETS_PLUGINS, strict=True):
        plugins.append(cls(keyword_exclude=KEYWORD_EXCLUDE) if cls is KeywordDetector else cls())
        if name in REPLACED_PATTERNS:
            plugins[-1].denylist = [REPLACED_PATTERNS[name]]  # type: ignore[attr-defined]
        exact, folded, patterns = secret_gates.DETECT_SECRETS_GATES[name]
        needs = secret_gates.DETECT_SECRETS_PATTERN_NEEDS.get(name, ())
        gates.append(secret_gates.Gate(exact, folded, tuple(map(re.compile, patterns)), needs))
    for plugin in secret_rules.custom_detectors():
        plugins.append(plugin)
        gates.append(plugin.gate)  # type: ignore[attr-defined]
    return _Scanner(
        plugins=tuple(plugins),
        gates=secret_gates.GateSet(gates),
        filters=tuple(getattr(heuristic, name) for name in SECRET_FILTERS),
        id_pattern=heuristic._get_id_detector_regex(),
        indirect=heuristic.is_indirect_reference,
        keyword_style=(KeywordDetector, secret_rules.AssignedCredentialDetector),
        value_check=secret_rules.looks_like_a_secret_value,
        placeholder=secret_rules.is_placeholder,
        keyword_plugin=KeywordDetector,
        keyword_gate=re.compile(DENYLIST_REGEX, re.IGNORECASE),
    )


def _kind(secret_type: str, secret: str) -> str:
    if secret_type == "AWS Access Key":
        return "AWS access key id" if _AWS_KEY_ID.fullmatch(secret) else "AWS secret access key"
    return KIND_NAMES.get(secret_type, secret_type)


def mask(secret: str) -> str:
    """``secret`` as a refusal shows it: its public prefix, a few characters, its length."""
    prefix_match = _PUBLIC_PREFIX.match(secret)
    prefix = prefix_match.group(0) if prefix_match else ""
    rest = secret[len(prefix) :]
    shown = rest[: min(SHOWN_CHARS, len(rest) // 4)]
    return f"{prefix}{shown}…[{len(secret)} chars]"


def _gated(scanner: _Scanner, text: str) -> list[BasePlugin]:
    """The plugins whose gate opens on ``text`` (all of them for a text that is not plain
    ASCII, where case folding and character classes reach beyond what a gate checks)."""
    if not text.isascii():
        return list(scanner.plugins)
    return list(compress(scanner.plugins, scanner.gates.open(text)))


def _keyword_may_match(scanner: _Scanner, text: str) -> bool:
    """Whether KeywordDetector's patterns could match in ``text``: two of one quote character
    and one of its keywords."""
    return (
        any(text.count(quote) >= 2 for quote in KEYWORD_QUOTES)
        and scanner.keyword_gate.search(text) is not None
    )


def _of_kinds(plugins: list[BasePlugin], kinds: frozenset[str] | None) -> list[BasePlugin]:
    """Those of ``plugins`` finding a secret type of ``kinds`` (all of them for None)."""
    return plugins if kinds is None else [p for p in plugins if p.secret_type in kinds]


def _candidates(
    scanner: _Scanner, text: str, kinds: frozenset[str] | None = None
) -> list[BasePlugin]:
    """The plugins that find anything in the whole text, before any filter.

    detect-secrets works line by line, which costs a call per plugin per line; a plugin whose
    patterns find nothing in the whole text finds nothing in any of its lines (a line break is
    whitespace to every pattern, as a line's start or end is), so it is skipped for all of them.
    A text that is not plain ASCII is taken in two parts, its plain lines and the others
    (each line is scanned alone, so a plugin that finds nothing in either part finds nothing
    in any line): the gates judge the plain part as any plain text, and only the other lines
    (a commit's accented sign-off, most often) go to every plugin.
    """
    if text.isascii():
        return _found_in(scanner, _of_kinds(_gated(scanner, text), kinds), text)
    lines = text.splitlines()
    plain = "\n".join(line for line in lines if line.isascii())
    other = "\n".join(line for line in lines if not line.isascii())
    found = {id(p) for p in _found_in(scanner, _of_kinds(_gated(scanner, plain), kinds), plain)}
    found.update(id(p) for p in _found_in(scanner, _of_kinds(_gated(scanner, other), kinds), other))
    return [plugin for plugin in scanner.plugins if id(plugin) in found]


def _found_in(scanner: _Scanner, plugins: list[BasePlugin], text: str) -> list[BasePlugin]:
    """Those of ``plugins`` whose patterns find anything in ``text`` (KeywordDetector: that
    could, by its quotes and keywords)."""
    wanted = []
    for plugin in plugins:
        if isinstance(plugin, scanner.keyword_plugin):
            if _keyword_may_match(scanner, text):
                wanted.append(plugin)  # cheaper to run per line than to pre-run whole
        elif next(iter(plugin.analyze_string(text)), None) is not None:
            wanted.append(plugin)
    return wanted


def _scan_line(
    scanner: _Scanner, plugins: list[BasePlugin], line: str, *, prefilter: bool
) -> list[tuple[int, int, SecretMatch]]:
    """(start, end, match) of each secret in one line, after detect-secrets' filters."""
    found: list[tuple[int, int, SecretMatch]] = []
    places = LinePlaces(line)
    # The first start of a token kept, by its end: a later value in the same token (the
    # same run of token characters) is inside it, so it is not read again.
    kept: dict[int, int] = {}
    for plugin in plugins:
        keyword = isinstance(plugin, scanner.keyword_plugin)
        if prefilter and keyword and not _keyword_may_match(scanner, line):
            continue
        keyword_style = isinstance(plugin, scanner.keyword_style)
        potentials = plugin.analyze_line(filename="memory", line=line, line_number=1)
        places.expect(potential.secret_value or "" for potential in potentials)
        # in the order they occur, so that a token holding several is read for the first only
        for potential in sorted(potentials, key=lambda p: places.first(p.secret_value or "")):
            secret = potential.secret_value or ""
            if any(keep(secret) for keep in scanner.filters):
                continue
            if keyword_style and (
                places.after_an_id(secret, scanner.id_pattern)
                or scanner.indirect(line)
                # KeywordDetector's values (always quoted) get the placeholder and shape checks
                # of recall.secret_rules too: "my password" or a path is not a password
                # (AssignedCredentialDetector made them itself, knowing the name and quotes).
                or (keyword and not scanner.value_check(secret, quoted=True))
            ):
                continue
            for start in places.starts(plugin, secret):
                end = places.token_end(start, secret)
                whole = end is not None
                end = end if end is not None else start + len(secret)
                if kept.get(end, end) <= start:
                    continue  # inside a token already kept: the spans keep the longest only
                token = line[start:end] if whole else secret
                if scanner.placeholder(token):
                    continue  # https://user:password@host, ghp_xxxxxxxx… in a how-to
                kept[end] = min(start, kept.get(end, start))
                # A private key's armour line is not secret: shown as-is, it says what to remove.
                private = potential.type == "Private Key"
                excerpt = f"-----{secret}-----" if private else mask(token)
                name = places.assigned_name(start) if keyword_style else None
                if name:  # ``DB_PASSWORD = hunt…[17 chars]``: which setting to fix
                    excerpt = f"{name} = {excerpt}"
                kind = _kind(potential.type, secret)
                found.append((start, end, SecretMatch(kind, excerpt)))
    return found


def scan(
    text: str | None, *, prefilter: bool = True, kinds: frozenset[str] | None = None
) -> list[SecretMatch]:
    """Every credential-shaped span in ``text``, in order, masked; empty when clean.

    ``prefilter=False`` gives every plugin every line, with no gate and no pre-run: the
    reference the prefiltered scan must agree with (the tests and bench.secrets_scan_bench
    compare them), many times slower. ``kinds`` keeps to the plugins of those secret types
    (as the plugins name them), such as :data:`recall.secret_names.NAME_SECRET_TYPES`.
    """
    if not text or not text.strip():
        return []
    scanner = _scanner()
    if prefilter:
        plugins = _candidates(scanner, text, kinds)
    else:
        plugins = _of_kinds(list(scanner.plugins), kinds)
    if not plugins:
        return []
    return [match for _, _, _, match in _spans(scanner, plugins, text.splitlines(), prefilter)]


def _spans(
    scanner: _Scanner, plugins: list[BasePlugin], lines: list[str], prefilter: bool
) -> list[tuple[int, int, int, SecretMatch]]:
    """(line index, start, end, match) of each secret of ``lines``, in order."""
    spans: list[tuple[int, int, int, SecretMatch]] = []
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        reach = -1  # the furthest end of a span taken: every one taken starts before
        found = _scan_line(scanner, plugins, line, prefilter=prefilter)
        # Longest first, so a secret several plugins found (or a part of one) is named once.
        for start, end, match in sorted(found, key=lambda f: (f[0], -f[1])):
            if end <= reach:
                continue  # inside a span taken
            reach = end
            spans.append((number, start, end, match))
    return spans


def secret_spans(text: str, kinds: frozenset[str] | None = None) -> list[tuple[int, int, int]]:
    """(line index, start, end) of each credential-shaped span of ``text``, its lines as
    ``str.splitlines`` cuts them (of the secret types ``kinds`` only, as for :func:`scan`)."""
    scanner = _scanner()
    plugins = _candidates(scanner, text, kinds) if text.strip() else []
    found = _spans(scanner, plugins, text.splitlines(), True) if plugins else []
    return [(number, start, end) for number, start, end, _ in found]


OVERRIDE_ADVICE = (
    f'pass {OVERRIDE_FLAG} ("allow_secret": true on an import line) if it is not a secret'
)
"""How to write a refused text anyway, in a refusal, for the CLI and an import (the browser,
which has no flag to pass, gives its own)."""


def refusal(
    where: dict[str, str | None], *, prefilter: bool = True, override: str = OVERRIDE_ADVICE
) -> str | None:
    """The refusal message for the first fields (name → text) holding a secret, or None
    (``prefilter`` as for :func:`scan`); ``override`` says how to write it anyway."""
    parts = []
    for label, text in where.items():
        parts.extend(f"{m.describe()} in {label}" for m in scan(text, prefilter=prefilter))
    if not parts:
        return None
    return (
        f"refusing to write what looks like a credential: {'; '.join(parts)}. "
        f"Remove it, or {override}"
    )

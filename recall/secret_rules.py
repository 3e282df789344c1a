"""What detect-secrets lacks for memory text, written as detect-secrets plugins.

detect-secrets (its plugins are listed in :mod:`recall.secrets_scan`) is made for source files:
its keyword plugin wants a quoted value and knows no ``token`` names, its URL plugin wants a user
name before the password, and its vendor plugins predate some current key shapes. A memory is
prose and shell lines as often as code, so these rules add the shapes seen there. Each is a
:class:`~detect_secrets.plugins.base.BasePlugin`, run and filtered like the library's own.

Imported by :mod:`recall.secrets_scan` on a write only, inside :func:`recall.ds_offline.loading`
(detect-secrets would load ``requests`` with it).
"""

from __future__ import annotations

import base64
import re
import string
from collections.abc import Generator, Iterable
from typing import Any

from detect_secrets.plugins.base import BasePlugin, RegexBasedDetector

from recall.secret_gates import Gate

# A value shorter than this is a placeholder, a type name or a word (``token: string``), not a
# credential worth refusing a write for.
MIN_VALUE_LENGTH = 8

# A value of hex digits alone shorter than this (128 bits) is an id, a hash prefix or a protocol
# field (``token=83f3a692`` in an MPTCP event log), not a generated secret.
MIN_HEX_SECRET_LENGTH = 32

# The same for a value given to a name ending in ``secret``, ``password``, ``key`` and the like
# (not ``token``, which protocols use for ids): 64 bits of hex is a generated credential there
# (``client_secret: 9a8b7c6d5e4f3a2b1c0d``); shorter is a PIN-like id or a hash prefix.
MIN_HEX_SECRET_LENGTH_NAMED = 16

# The last word of a name that holds a credential itself (``DB_PASSWORD``, ``authToken``,
# ``client-secret``). A name ending in anything else (``passwd_file``, ``tokenizer_version``,
# ``max_tokens``) holds something about a credential, which is worth remembering.
CREDENTIAL_WORDS = frozenset(
    {"password", "passwd", "pwd", "passphrase", "secret", "token", "apikey", "psk"}
    # plurals that still hold the values (``client_secrets``); ``max_tokens`` is a count
    | {"secrets", "credentials", "passwords"}
)

# Words that hold a credential only as the last of several words of a name in capitals, an
# environment variable or a config setting (``REDIS_PASS``, ``DB_PASS``): in code,
# ``first_pass`` or ``render_pass`` is a stage of an algorithm, and ``PASS:`` alone starts a
# line of a test run's output.
CAPITALS_CREDENTIAL_WORDS = frozenset({"pass"})

# Run-together names ending in these are credentials too (``PGPASSWORD``, ``authtoken``); ``pwd``
# is left out here (``OLDPWD`` is a directory).
CREDENTIAL_SUFFIXES = ("password", "passwd", "secret", "token", "apikey")

# ``key`` alone is too common (``primary_key``, ``sort_key``); these words before it make it a
# credential (``api_key``, ``SECRET_KEY``, ``private-key``, ``accessKey``).
KEY_QUALIFIERS = frozenset(
    {"api", "secret", "private", "access", "auth", "signing", "master", "preshared", "client"}
)

PLACEHOLDER_MAX_CHARS = 256
"""Longest token taken for a placeholder: the ones people write (``AKIAIOSFODNN7EXAMPLE``,
``ghp_`` and 36 x's, ``<your-token-here>``) are short, and a token of thousands of characters,
judged once per match in it, would make a long line's scan cost the square of its length."""

# Values that stand for a secret without being one: documentation placeholders, masks, and
# references to where the secret lives. Writing *where* a secret lives is the useful memory.
_PLACEHOLDER = re.compile(
    r"""^(?:
        [$<{%]                                          # ${VAR}, $VAR, <your-token>, {{ x }}
      | (?:os\.)?environ | getenv | process\.env | env\(   # lookups in code
      | .*(?:\*{3,}|x{6,}|X{6,}|\.{3,}|…)              # masked or elided: ****, xxxxxx, ...
      | (?:your|my|some|the)[-_\s] | an?\s              # your-token-here, "my password"
      | (?:changeme|example|dummy|placeholder|redacted|none|null|true|false|passw0rd
           |p@ssw0rd|hunter2)\W*$
      | (?-i:[A-Za-z0-9/+]*EXAMPLE(?:KEY)?)$           # AWS's documented AKIA…EXAMPLE keys
      # words naming one, not holding one: db-password, my_secret_token (all such characters
      # checked first, so a long run of them is read once, not once per word in it)
      | (?=[A-Za-z_-]*$)[A-Za-z_-]*?(?<![A-Za-z])(?:password|passwd|secret|token|api[-_]?key)
        (?![A-Za-z])
    )""",
    re.VERBOSE | re.IGNORECASE,
)

# A version, a path or a file name is never a credential, whatever name it is assigned to.
_NOT_A_SECRET_SHAPE = re.compile(
    r"""^(?:
        v?\d+(?:\.\d+)+(?:[-+.~][\w.]*)?                # 1.2.3, v2.3.1-beta4, 4.19.0-rc1
      | (?:/|\./|\.\./|~/)\S*                           # /etc/passwd2, ./keys, ~/.ssh/id_rsa
      | [\w.-]+\.(?:txt|json|ya?ml|toml|ini|conf|cfg|pem|key|crt|env|gpg|asc|py|sh|c|h)
      | (?:https?|file)://[^@\s]*                      # a URL without credentials in it
      | [0-9A-Fa-f]*(?::[0-9A-Fa-f]*){2,}(?:/\d+)?      # IPv6 ::1a:2b/64, MAC, hex dumps
      | 0x[0-9A-Fa-f]+                                  # a number in hex
      | [\[(<{].*                                       # a bracketed expression
    )$""",
    re.VERBOSE | re.IGNORECASE,
)


# The words a credential's name or a stated credential contains one of, lower-cased:
# "pass" covers password, passwd, passphrase; "key" covers apikey, api key, access key.
CREDENTIAL_NAME_PARTS = ("pass", "pwd", "secret", "token", "key", "psk", "credentials")


_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")


def name_holds_credential(name: str) -> bool:
    """Whether an identifier names a credential itself (``DB_PASSWORD``, ``apiKey``)."""
    words = [w.lower() for w in _WORD_SPLIT.split(name) if w]
    if not words:
        return False
    last = words[-1]
    if last in CREDENTIAL_WORDS or last.endswith(CREDENTIAL_SUFFIXES):
        return True
    if last in CAPITALS_CREDENTIAL_WORDS:
        return len(words) > 1 and name.isupper()
    return last == "key" and len(words) > 1 and words[-2] in KEY_QUALIFIERS


def is_placeholder(value: str) -> bool:
    """Whether a value stands for a secret without being one (``<token>``, ``password``);
    never one longer than :data:`PLACEHOLDER_MAX_CHARS`."""
    value = value.strip()
    return len(value) <= PLACEHOLDER_MAX_CHARS and bool(_PLACEHOLDER.match(value))


def looks_like_a_secret_value(
    value: str, *, quoted: bool, min_hex: int = MIN_HEX_SECRET_LENGTH
) -> bool:
    """Whether an assigned or stated value is shaped like a credential rather than a word
    (a value of hex digits alone counts from ``min_hex`` of them)."""
    value = value.strip()
    if len(value) < MIN_VALUE_LENGTH or len(set(value)) < 4:
        return False  # short, or a filler like aaaaaaaa / 12121212
    if _PLACEHOLDER.match(value) or _NOT_A_SECRET_SHAPE.match(value):
        return False
    if len(value) < min_hex and all(c in string.hexdigits for c in value):
        return False
    if quoted:
        # A quoted sentence ("use the reset flow") is prose; a quoted password has no spaces.
        return len(value.split()) <= 2
    # Unquoted, a credential mixes letters with digits or symbols; a bare word is a type or a
    # name (``token: Optional``), a dotted name a reference (``secret=settings.SECRET_V2``).
    letters = any(c.isalpha() for c in value)
    others = any(not c.isalpha() for c in value)
    return letters and others and not re.fullmatch(r"[A-Za-z_]\w*(?:\.\w+)+", value)


# Every pattern below keeps to one line ([ \t] where a space may stand, never \s): scan() first
# runs each plugin over the whole text to skip those that find nothing, which is only sound if a
# match cannot start on one line and swallow the next.


class _Patterns(RegexBasedDetector):
    """A regex plugin whose every pattern has one group: the secret (or the whole match)."""

    secret_type = ""
    denylist: tuple[re.Pattern[str], ...] = ()
    gate = Gate()

    def analyze_string(self, string: str) -> Generator[str, None, None]:
        """Each secret value matched in ``string``."""
        for pattern in self.denylist:
            for match in pattern.finditer(string):
                yield match.group(1) if pattern.groups else match.group(0)


class UrlPasswordDetector(_Patterns):
    """A password in a URL that detect-secrets' own BasicAuthDetector does not see: with no
    user name (``redis://:pw@cache``; it wants a user before the colon), or holding one of
    the characters RFC 3986 reserves as sub-delimiters (``postgres://app:S3cure!Pass@db``; it
    leaves those out, though people write them unescaped in passwords)."""

    secret_type = "password in a URL"
    # Both patterns need an "@" after the "://" with no space between (the gate of
    # detect-secrets' BasicAuthDetector, searched once for both): a link to a web page, as
    # most URLs in commit messages are, is not given to them.
    gate = Gate(patterns=(re.compile(r"://\S+@"),), needs=("://",))
    # The scheme starts a run (the look-behind) and is short: a long run of dotted words is
    # then tried once, not from each of its characters.
    denylist = (
        re.compile(r"(?<![\w+.-])[A-Za-z][\w+.-]{0,30}://:([^\s:/?#@]+)@[\w\[]"),
        # possessive runs and a look-ahead for the sub-delimiter: linear on a long run of
        # them with no "@" after it (a backtracking pair of runs was quadratic there)
        re.compile(
            r"(?<![\w+.-])[A-Za-z][\w+.-]{0,30}://[^\s:/?#\[\]@]++:"
            r"(?=[^\s:/?#\[\]@]*[!$&'()*+,;=])([^\s:/?#\[\]@]++)@[\w\[]"
        ),
    )


class ProviderKeyDetector(_Patterns):
    """API keys of current shapes that detect-secrets (1.5) has no plugin for."""

    secret_type = "API key"
    denylist = ()

    def __init__(self, secret_type: str, gate: Gate, *patterns: str) -> None:
        self.secret_type = secret_type
        self.gate = gate
        self.denylist = tuple(re.compile(p) for p in patterns)

    def json(self) -> dict[str, Any]:
        """Its name and kind, as detect-secrets describes a plugin."""
        return {**super().json(), "secret_type": self.secret_type}


def provider_key_detectors() -> list[BasePlugin]:
    """One plugin per provider shape that detect-secrets lacks."""
    return [
        # OpenAI's project, service-account and admin keys (detect-secrets knows only the
        # older ones with "T3BlbkFJ" inside).
        ProviderKeyDetector(
            "OpenAI key", Gate(exact=("sk-",)), r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}"
        ),
        # Anthropic: sk-ant- then the key's use and version (api03, admin01).
        ProviderKeyDetector(
            "Anthropic key", Gate(exact=("sk-ant-",)), r"\bsk-ant-[a-z]+\d{2}-[A-Za-z0-9_-]{20,}"
        ),
        # Google API keys: AIza and 35 URL-safe characters.
        ProviderKeyDetector(
            "Google API key", Gate(exact=("AIza",)), r"\bAIza[0-9A-Za-z_-]{35}(?![\w-])"
        ),
        # npm access tokens on their own (detect-secrets finds them inside .npmrc lines only).
        ProviderKeyDetector("npm token", Gate(exact=("npm_",)), r"\bnpm_[A-Za-z0-9]{36}\b"),
        # GitHub's fine-grained tokens (detect-secrets knows the classic ghp_ family).
        ProviderKeyDetector(
            "GitHub token", Gate(exact=("github_pat_",)), r"\bgithub_pat_[A-Za-z0-9_]{22,}"
        ),
        # Hugging Face access tokens: hf_ and 34 characters (agents pull models with them).
        ProviderKeyDetector("Hugging Face token", Gate(exact=("hf_",)), r"\bhf_[A-Za-z0-9]{34}\b"),
        # A bearer credential: long enough (20+) not to be a word in a sentence about "Bearer
        # authentication"; the digit in it rules out long plain words.
        ProviderKeyDetector(
            "bearer token",
            Gate(exact=("Bearer",)),
            r"\bBearer[ \t]+((?=[^\s\d]*\d)[A-Za-z0-9\-._~+/]{20,}=*)",
        ),
        # AWS secret access keys are 40 base64 characters with no marker of their own: only
        # the name they are given tells (detect-secrets wants them quoted).
        ProviderKeyDetector(
            "AWS secret access key",
            Gate(folded=("aws",)),
            r"(?i)\baws_?secret(?:_?access)?_?key[\"']?[ \t]*(?::=|[:=])[ \t]*[\"']?"
            r"([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        ),
    ]


class BasicCredentialsDetector(_Patterns):
    """``Authorization: Basic <base64>``: a user name and password, only encoded."""

    secret_type = "basic auth header"
    gate = Gate(exact=("Basic",))
    denylist = (re.compile(r"\bBasic[ \t]+([A-Za-z0-9+/]{8,}={0,2})(?![\w+/=])"),)

    def analyze_string(self, string: str) -> Generator[str, None, None]:
        """Each value that decodes to ``user:password``."""
        for value in super().analyze_string(string):
            try:
                decoded = base64.b64decode(value, validate=True).decode("utf-8")
            except (ValueError, UnicodeDecodeError):
                continue
            _user, colon, password = decoded.partition(":")
            if colon and password and decoded.isprintable():
                yield value


class AssignedCredentialDetector(BasePlugin):
    """``name = value`` where the name says it holds a credential, quoted or not, in code,
    config, shell or JSON. Unlike detect-secrets' KeywordDetector it knows ``token`` names and
    bare values, and only the name's last word counts (``passwd_file=`` is not a password)."""

    secret_type = "assigned credential"
    # A name holding a credential (name_holds_credential) ends in one of these words.
    gate = Gate(folded=CREDENTIAL_NAME_PARTS)
    _assignment = re.compile(
        r"""(?<![\w.+/-])(?P<name>[A-Za-z_][\w.-]*?)["'\]]*[ \t]*(?::=|=>|[:=])(?![=:])[ \t]*
            (?:"(?P<dq>[^"\n]*)"|'(?P<sq>[^'\n]*)'|`(?P<bq>[^`\n]*)`|(?P<bare>[^\s"'`,;()\[\]{}]+))
            (?P<call>\()?""",
        re.VERBOSE,
    )

    def analyze_string(self, string: str) -> Generator[str, None, None]:
        """Each credential value assigned in ``string``."""
        for match in self._assignment.finditer(string):
            if not name_holds_credential(match.group("name")) or _is_call(match):
                continue
            quoted = next(
                (match.group(g) for g in ("dq", "sq", "bq") if match.group(g) is not None), None
            )
            value = quoted if quoted is not None else match.group("bare")
            if not value or value.lower().startswith(match.group("name").lower()):
                continue  # the name echoed (gdb's ignore_token=ignore_token@entry=1)
            if looks_like_a_secret_value(
                value, quoted=quoted is not None, min_hex=_min_hex(match.group("name"))
            ):
                yield value


def _min_hex(name: str) -> int:
    """The hex digits a value given to ``name`` needs to count (see
    :data:`MIN_HEX_SECRET_LENGTH_NAMED`)."""
    last = _WORD_SPLIT.split(name)[-1].lower() if name else ""
    return MIN_HEX_SECRET_LENGTH if last.endswith("token") else MIN_HEX_SECRET_LENGTH_NAMED


def _is_call(match: re.Match[str]) -> bool:
    """Whether the assigned value is a function being called (``key = read_file (path)``)."""
    if match.group("call"):
        return True
    bare = match.group("bare")
    return (
        bool(bare)
        and _CALL_AFTER.match(match.string, match.end()) is not None
        and re.fullmatch(r"[A-Za-z_][\w.]*", bare) is not None
    )


_CALL_AFTER = re.compile(r"[^\S\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]*\(")
"""Spaces then an opening parenthesis, on the same line: a call's arguments. Never past a line
break (any that ``str.splitlines`` splits at), so a value is judged the same in a whole text
as in its line alone, as the scan's prefilter needs."""


class StatedPasswordDetector(BasePlugin):
    """A credential stated in prose: "the password is Tr0ub4dor&3", "root pwd: x9!kQ2#m"."""

    secret_type = "password in prose"
    gate = Gate(folded=(*CREDENTIAL_NAME_PARTS, "pin"))
    _stated = re.compile(
        r"(?i)\b(?:password|passphrase|passwd|pwd|pin|secret|token|api[ \t]+key|access[ \t]+key)"
        r"(?:[ \t]+(?:for|of|on|to)(?:[ \t]+[\w.@-]+){1,3}?)?"  # "password for the lab"
        r"[ \t]+(?:is|was|=|:|->)[ \t]+[\"'`]?"
        r"(?P<value>[^\s\"'`(\[{<][^\s\"'`]*)"
    )

    def analyze_string(self, string: str) -> Generator[str, None, None]:
        """Each stated credential in ``string``."""
        for match in self._stated.finditer(string):
            value = match.group("value").rstrip(".,;:!?)")
            if (
                looks_like_a_secret_value(value, quoted=False)
                and any(c.isdigit() for c in value)
                and _mixes_classes(value)
            ):
                yield value


def _mixes_classes(value: str) -> bool:
    """Three of lower case, upper case, digits, symbols: a chosen password, not a word or an
    identifier ("the token is stored_in_vault", "the password is non-ASCII")."""
    classes = (str.islower, str.isupper, str.isdigit, lambda c: not c.isalnum())
    return sum(any(test(c) for c in value) for test in classes) >= 3


class CommandPasswordDetector(_Patterns):
    """A password given on a command line by the option of a client that takes it there:
    ``mysql -pS3cret`` (attached to ``-p``: ``mysql -p`` alone prompts for it) and ``curl -u
    user:S3cret``. Other commands' ``-p`` is a port or a path, so only these are read."""

    secret_type = "password on a command line"
    gate = Gate(folded=("mysql", "curl"))
    denylist = (
        re.compile(r"\bmysql(?:dump|admin|import|show|check)?\b[^\n|;&]*?[ \t]-p([^\s\"'`]+)"),
        re.compile(r"\bcurl\b[^\n|;&]*?[ \t](?:-u|--user)(?:[ \t]+|=)[\"']?[^\s:\"']*:([^\s\"']+)"),
    )

    def analyze_string(self, string: str) -> Generator[str, None, None]:
        """Each such password shaped like one (not ``$PW`` nor a word)."""
        for value in super().analyze_string(string):
            if looks_like_a_secret_value(value, quoted=False):
                yield value


def custom_detectors() -> Iterable[BasePlugin]:
    """Every rule of this module, ready to run beside detect-secrets' plugins."""
    return [
        UrlPasswordDetector(),
        BasicCredentialsDetector(),
        *provider_key_detectors(),
        AssignedCredentialDetector(),
        StatedPasswordDetector(),
        CommandPasswordDetector(),
    ]

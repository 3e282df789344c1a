"""Gates of the secret scan: which plugins a text must be given to, decided in one pass.

A gate is what every text a plugin can find a secret in contains; :class:`GateSet` checks all of
them together with one Aho–Corasick automaton over the lower-cased text, so a text that holds
none of their parts (most commit messages) costs one pass over its characters. The plugins
themselves (detect-secrets' and :mod:`recall.secret_rules`') stay the judges of what is a secret:
a gate only says where they need not look.

The gates of detect-secrets' plugins are written out here; those of :mod:`recall.secret_rules`'
come with its plugins. Imported by :mod:`recall.secrets_scan` on a write only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from operator import itemgetter

_SECOND = itemgetter(1)


# What every text each detect-secrets plugin of recall.secrets_scan can match contains (see
# Gate below): (exact parts, parts in the lower-cased text, patterns), taken from its own
# patterns: their fixed prefixes, key words, or a necessary part as a shorter pattern.
DETECT_SECRETS_GATES: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    # AKC, or AP and a hex digit (one literal each: the gates are one automaton)
    "ArtifactoryDetector": (("AKC", *(f"AP{c}" for c in "0123456789ABCDEF")), (), ()),
    "AWSKeyDetector": (("A3T", "ABIA", "ACCA", "AKIA", "ASIA"), ("aws",), ()),
    "AzureStorageKeyDetector": (("AccountKey=",), (), ()),
    # a URL with something before an @ and no space between
    "BasicAuthDetector": ((), (), (r"://\S+@",)),
    # cloudant/cl/clou, [-_], api, then a key word; or its URLs with a password before an @
    "CloudantDetector": (
        (),
        (),
        (r"(?i)cl(?:oudant|ou)?[-_]?(?:api)?(?:key|pw|pass|token)", r"://\S+@"),
    ),
    # a token's last two parts: six token characters between dots, then 27
    "DiscordBotTokenDetector": ((), (), (r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}",)),
    "GitHubTokenDetector": (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), (), ()),
    "GitLabTokenDetector": (
        (
            "glpat-",
            "gldt-",
            "glft-",
            "glsoat-",
            "glrt-",
            "GR1348941",
            "glcbt-",
            "glimt-",
            "glptt-",
            "glagent-",
            "gloas-",
        ),
        (),
        (),
    ),
    # a 44-character key (after one of its key words: the needs below)
    "IbmCloudIamDetector": ((), (), (r"[A-Za-z0-9_-]{44}",)),
    "IbmCosHmacDetector": ((), ("secret",), ()),
    "JwtTokenDetector": (("eyJ",), (), ()),
    # every word of its list: api_key ... key_pass, password, passwd, pwd, secret, contraseña
    "KeywordDetector": ((), ("key", "pass", "pwd", "secret", "contrase"), ()),
    "MailchimpDetector": (tuple(f"-us{digit}" for digit in range(10)), (), ()),
    "OpenAIDetector": (("T3BlbkFJ",), (), ()),
    "PrivateKeyDetector": (("PRIVATE KEY", "PuTTY-User-Key-File-2"), (), ()),
    "PypiTokenDetector": (("pypi-AgE",), (), ()),
    "SendGridDetector": (("SG.",), (), ()),
    "SlackDetector": ((), ("xox", "hooks.slack.com"), ()),
    # softlayer/sl, [-_], api, then a key word; or its API's URL
    "SoftlayerDetector": ((), ("softlayer",), (r"(?i)sl[-_]?(?:api)?[-_]?(?:key|pw|pass|token)",)),
    "SquareOAuthDetector": (("sq0csp-",), (), ()),
    "StripeDetector": (("k_live_",), (), ()),
    # the bot's number and its colon
    "TelegramBotTokenDetector": ((), (), (r"[0-9]{8}:",)),
    # AC or SK and 32 characters
    "TwilioKeyDetector": ((), (), (r"(?:AC|SK)[a-z0-9]{32}",)),
}

# For the gates above with patterns: parts (in the lower-cased text) one of which every match
# of the gate's patterns contains, so the patterns are searched only in a text holding one.
# Discord's and Twilio's have none: their needs ("." and "ac") are in most texts, and each
# occurrence found costs more than the search of a pattern that starts with a fixed character.
DETECT_SECRETS_PATTERN_NEEDS: dict[str, tuple[str, ...]] = {
    "BasicAuthDetector": ("://",),
    "CloudantDetector": ("key", "pw", "pass", "token", "://"),
    "IbmCloudIamDetector": ("key", "pwd", "pass", "token"),
    "SoftlayerDetector": ("key", "pw", "pass", "token"),
    "TelegramBotTokenDetector": tuple(f"{digit}:" for digit in range(10)),
}


@dataclass(frozen=True)
class Gate:
    """What every text a plugin can find a secret in contains (plain ASCII texts only): at
    least one of ``exact`` as written, one of ``folded`` in the lower-cased text, or a match
    of one of ``patterns``. A text that has none of them is not given to the plugin.

    Each entry is a part every one of the plugin's patterns needs (a fixed prefix, a key
    word, a shorter pattern every match contains), so a closed gate never hides a secret the
    plugin would have found; tests/test_secrets_scan.py checks that on generated matches.
    ``needs`` are parts (lower-cased) one of which every match of ``patterns`` contains: the
    patterns are searched only in a text holding one (in every text when there are none).
    """

    exact: tuple[str, ...] = ()
    folded: tuple[str, ...] = ()
    patterns: tuple[re.Pattern[str], ...] = ()
    needs: tuple[str, ...] = ()

    def opens(self, text: str, lowered: str) -> bool:
        """Whether the plugin must look at ``text`` (``lowered`` is ``text.lower()``)."""
        return (
            any(part in text for part in self.exact)
            or any(part in lowered for part in self.folded)
            or (
                (not self.needs or any(part in lowered for part in self.needs))
                and any(pattern.search(text) is not None for pattern in self.patterns)
            )
        )


class GateSet:
    """Many gates checked in one pass over the text: every literal part of every gate, in
    lower case, goes into one Aho–Corasick automaton run over the lower-cased text; a part
    written in a given case is then confirmed in the text itself, and a gate's patterns are
    searched only where one of their needs was found. A text holding none of the parts (most
    of them) costs that one pass."""

    def __init__(self, gates: Iterable[Gate]) -> None:
        import ahocorasick  # writes only, like detect-secrets

        self.gates = tuple(gates)
        # The checks, numbered: (lower-cased key, the part to confirm as written or None).
        checks: dict[tuple[str, str | None], int] = {}
        patterns: dict[tuple[re.Pattern[str], frozenset[str]], int] = {}
        needs: list[frozenset[int]] = []
        for gate in self.gates:
            wanted = [checks.setdefault((p.lower(), p), len(checks)) for p in gate.exact]
            wanted += [checks.setdefault((p, None), len(checks)) for p in gate.folded]
            for pattern in gate.patterns:
                key = (pattern, frozenset(gate.needs))
                wanted.append(-1 - patterns.setdefault(key, len(patterns)))
            needs.append(frozenset(wanted))
        self._needs = tuple(needs)
        by_key: dict[str, list[tuple[int, str | None]]] = {}
        for (key, written), number in checks.items():
            by_key.setdefault(key, []).append((number, written))
        for _pattern, part_set in patterns:
            for part in part_set:
                by_key.setdefault(part, [])
        # Patterns are numbered -1, -2, ... beside the literal checks 0, 1, ...; those with
        # needs are looked at only when the pass found a part at all.
        self._free = tuple(
            (-1 - number, pattern)
            for (pattern, part_set), number in patterns.items()
            if not part_set
        )
        self._needy = tuple(
            (-1 - number, pattern, part_set)
            for (pattern, part_set), number in patterns.items()
            if part_set
        )
        self._closed = [False] * len(self._needs)
        self._automaton = ahocorasick.Automaton()
        for key, found in by_key.items():
            self._automaton.add_word(key, (key, tuple(found)))
        self._automaton.make_automaton()

    def open(self, text: str) -> list[bool]:
        """Whether each gate opens on ``text`` (the same as each :meth:`Gate.opens`)."""
        # (end, (key, checks)) per hit: the pairs taken in C, no Python frame per hit
        keys: dict[str, tuple[tuple[int, str | None], ...]] = dict(
            map(_SECOND, self._automaton.iter(text.lower()))
        )
        found = {number for number, pattern in self._free if pattern.search(text)}
        if keys:
            found.update(
                number
                for checks in keys.values()
                for number, written in checks
                if written is None or written in text
            )
            for number, pattern, part_set in self._needy:
                if not part_set.isdisjoint(keys) and pattern.search(text):
                    found.add(number)
        if not found:
            return self._closed.copy()
        return [not need.isdisjoint(found) for need in self._needs]

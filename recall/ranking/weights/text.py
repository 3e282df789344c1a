"""What a prompt's words and meaning earn: the text (bm25) channel, its word rules, and the
semantic channel."""

from __future__ import annotations

import math
from typing import Final

# --- text -------------------------------------------------------------------------------

#: Query words shorter than this are dropped from text matching: "a" and "I" match nearly
#: every memory and say nothing about any of them.
MIN_WORD_CHARS: Final = 2

#: A camelCase or PascalCase word of a prompt (``NMDeviceWifi``) is also asked for by its
#: parts (``nm``, ``device``, ``wifi``): the word index keeps it whole, but splits the
#: snake_case names (``nm_device_wifi_scan``) the same code is written about.
SPLIT_CAMEL_CASE: Final = True

#: Largest bm25 magnitude: text is one voice in the committee and must stay below a file
#: hit's floor even at full strength, yet wide enough to order a crowded file's memories.
TEXT_MAX: Final = 0.20

#: bm25 strength at which the text magnitude reaches half of TEXT_MAX. Scores of real matches
#: over commit-sized memories run from about 5 to 40; a low half point saturated them all
#: into one value and left text unable to tell a hot file's memories apart.
TEXT_HALF_STRENGTH: Final = 15.0

#: A text magnitude this high (bm25 strength >= 6.4) is a real match, strong enough on its
#: own to justify injecting a memory no file signal points at.
TEXT_STRONG: Final = 0.06

#: bm25 column weight of the one-line summary against the details (weight 1). Weighting the
#: summary double measured no better on real fix histories (the why often lives in the
#: details), so both columns count alike.
BM25_SUMMARY_WEIGHT: Final = 1.0

#: Term-frequency saturation and length normalisation of the per-column bm25
#: (``channels.field_bm25``): FTS5's own constants, so strengths keep the scale that
#: TEXT_HALF_STRENGTH was set for.
BM25_K1: Final = 1.2
BM25_B: Final = 0.75

#: Smallest idf of a term, as in FTS5: a term in most memories still counts a little.
BM25_IDF_FLOOR: Final = 1e-6

#: Pseudo-memories added to the memories the file channels found before taking the share of
#: them a query word matches: on a file with two or three memories, one match is no sign the
#: word names the file's component, so it should cost the word little.
LOCAL_TERM_PRIOR: Final = 5.0

#: Power of the kept share (1 - share) in a query word's local weight: a word held by all
#: five memories of a file keeps a quarter of its idf, by all of fifty almost none (it cannot
#: order them); one held by one of them keeps most. Tuned on the pre-cut fix histories
#: (priors 0 to 10 moved hit@3 by under 0.01; a power of 1 cost 0.015, 3 nothing).
LOCAL_TERM_POWER: Final = 2.0

#: Share of the text magnitude a trigram-only match earns: substring hits are weaker
#: evidence than whole-token hits.
TRIGRAM_SHARE: Final = 0.5

#: Query terms matching more than half of all memories are dropped: bm25 gives them almost no
#: weight, so they only cost time. A lower cut (a fifth) also dropped terms like a
#: subsystem's name in a store about one subsystem, and measured worse.
COMMON_TERM_SHARE: Final = 0.50

#: Matches a text query may score: past this, the most common remaining query words are left
#: out (rarest first are kept). They carry the least bm25 weight and cost the most time; a
#: question of everyday words over 100k memories would otherwise score half the store.
TEXT_MATCH_BUDGET: Final = 5000

#: Below this many memories, no term is dropped as common: in a tiny store 20% is one or
#: two memories, which says nothing about the term.
COMMON_TERM_MIN_MEMORIES: Final = 25

#: English function words (articles, prepositions, pronouns, auxiliaries, conjunctions): they
#: say how a sentence is built, not what it is about. They count in the word channel only for
#: a memory that also matches a word of the prompt that is not one of them, and never match on
#: their own: in a small store "in" is as rare as "netlink", and a memory whose only word in
#: common with "memory leak in netlink answer" was "in" ranked first. Weighing them nothing at
#: all measured worse (pre-cut hit@3 0.597 -> 0.593): alongside a real match they still order.
#: Left out as meaning something in code: "can" (the bus), "us" (microseconds), "up", "down".
_FUNCTION_WORD_TEXT: Final = """
a an the and but or nor so if than then as at by for from in into of on onto to with
about is are was were be been being am do does did doing has have had having could
will would shall should may might must it its itself this that these those there here
he him his she her hers we our ours they them their theirs you your yours me my i
what when where which while who whom whose why how
"""
FUNCTION_WORDS: Final[frozenset[str]] = frozenset(_FUNCTION_WORD_TEXT.split())


def is_function_word(token: str) -> bool:
    """Whether a lower-cased query word is an English function word (``FUNCTION_WORDS``)."""
    return token in FUNCTION_WORDS


# --- the change that brought in what the prompt names ------------------------------------

#: Added to a memory whose summary announces that it brings something in (its first word
#: after the component prefix, ``tc: flower:``, is one of ``INTRODUCING_WORDS``) and names a
#: word of the prompt beyond the prompt's own prefix and its function words: the note from
#: when the thing asked about came in, as the origin bonus is the note from when the file
#: began. Pre-cut hit@3 of the four shared histories (250 tasks each, engine passes):
#: +0.020 / +0.004 / +0.008 / +0.004 on iproute2 / rdma-core / optee / networkmanager;
#: 0.015 gained less (iproute2 +0.008, optee +0.004), 0.025 cost networkmanager 0.004. Small
#: against a file hit's spread: it orders a crowded file's memories; with the most recency it
#: still never lifts a crowded file's memory over the sole owner of a touched file.
INTRODUCER_BONUS: Final = 0.02

#: First words of a summary that bring something in (add, introduce, implement, support...),
#: the list an earlier round studied the histories' subjects with, unchanged.
INTRODUCING_WORDS: Final[frozenset[str]] = frozenset(
    [
        "add",
        "adds",
        "added",
        "adding",
        "introduce",
        "introduces",
        "implement",
        "implements",
        "support",
        "supports",
        "expose",
        "new",
        "initial",
        "create",
        "allow",
        "enable",
        "rework",
        "improve",
        "convert",
    ]
)

# --- semantic ---------------------------------------------------------------------------

#: Hash-bag cosine below this is shared-topic noise: it earns RRF rank credit only, because
#: ungated it outscored file hits on vague queries.
SEMANTIC_GATE: Final = 0.3

#: Semantic magnitude at cosine 1; grows linearly from zero at the gate, so crossing the
#: gate is not a cliff. Half of a strong text match: the hash-bag vector repeats the words
#: the text channel already scores, less precisely.
SEMANTIC_MAX: Final = 0.075


def text_magnitude(bm25_score: float) -> float:
    """Text magnitude of a bm25 strength, saturating below ``TEXT_MAX``.

    FTS5's ``bm25()`` is negative (more negative is better); its absolute value is used, so
    both the raw score and a positive strength may be passed. Non-finite input gives 0.
    """
    strength = abs(bm25_score)
    if not math.isfinite(strength):
        return 0.0
    return TEXT_MAX * strength / (strength + TEXT_HALF_STRENGTH)


_IDENTIFIER_MARKS: Final = frozenset("_/.-:#$@\\")
_EDGE_PUNCT: Final = "\"'()[]{}<>,;:!?."


def is_identifier_like(token: str) -> bool:
    """True when a query chunk looks like code (worth substring/trigram matching).

    Identifiers, paths and symbols (``safe_rename``, ``auth/middleware.ts``, ``utf8``,
    ``std::fs``, a backticked name) are where substring matches find what word matching
    misses; plain words are already covered by the word index, and trigram hits on them are
    noise. Works on lower-cased chunks: sentence punctuation at the edges is ignored, and
    a chunk needs three letters or digits (the trigram index cannot match fewer).
    """
    if token.startswith("`"):
        return len(token.strip("`")) >= 3
    core = token.strip(_EDGE_PUNCT)
    if sum(ch.isalnum() for ch in core) < 3:
        return False
    has_alpha = any(ch.isalpha() for ch in core)
    has_digit = any(ch.isdigit() for ch in core)
    return (has_alpha and has_digit) or any(ch in _IDENTIFIER_MARKS for ch in core)


def is_common_term(matching: int, memories: int) -> bool:
    """True when a query term matches so large a share of memories that it should be dropped."""
    return memories >= COMMON_TERM_MIN_MEMORIES and matching > COMMON_TERM_SHARE * memories


def local_term_weight(holding: int, near: int) -> float:
    """Share of its idf a query word keeps when ``holding`` of the ``near`` memories the file
    channels found match it: ``(1 - holding / (near + LOCAL_TERM_PRIOR)) ** LOCAL_TERM_POWER``,
    1 when nothing is near.
    """
    if near <= 0 or holding <= 0:
        return 1.0
    share = min(1.0, holding / (near + LOCAL_TERM_PRIOR))
    return (1.0 - share) ** LOCAL_TERM_POWER


def semantic_magnitude(cosine: float) -> float:
    """Semantic magnitude: 0 below the gate, then linear up to ``SEMANTIC_MAX`` at cosine 1."""
    if not math.isfinite(cosine) or cosine < SEMANTIC_GATE:
        return 0.0
    return SEMANTIC_MAX * min(1.0, (cosine - SEMANTIC_GATE) / (1.0 - SEMANTIC_GATE))

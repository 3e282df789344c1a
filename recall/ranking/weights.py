"""Every ranking judgement recall makes, in one place, each with the reason it has its value.

A recall score is reciprocal-rank fusion over the channels (``rrf``) plus bounded
magnitudes. The magnitudes are the judgements; their scale, largest first:

=====================  ==========================================================
file affinity          0.25 .. 0.40 for an edited file (rarity premium on the floor),
                       scaled by how the file was touched (open: 0.8x); up to +0.08
                       more when a memory names several touched files; earlier names
                       of a renamed file count as the file; up to +0.04 for the file's
                       oldest memory (scaled like the touch)
module                 up to 0.025 when a file hit's other files co-change with it
co-change              up to 0.083 (a third of a direct hit), RRF rank 5
text (bm25)            up to 0.20 (words and trigram together: the stronger of the two);
                       a word most memories of the touched file share weighs less
semantic               0 below cosine 0.3, up to 0.075 at cosine 1
pinned                 +0.10, and exempt from decay and the ignore penalty
blast radius           up to 0.06
recency                up to 0.06, halving every 365 days since the last action
feedback               acted: up to +0.05; ignored 4+ times: down to -0.12
=====================  ==========================================================

RRF credit is at most 1/61 per channel (times the channel's weight), so it orders hits
that no magnitude separates and gives weak signals (semantic cosine below the gate) a voice
without letting them win.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

# --- fusion -------------------------------------------------------------------------------

#: Reciprocal-rank-fusion constant; 60 is the conventional value that keeps one channel's
#: top rank from outweighing agreement between channels.
RRF_K: Final = 60

#: RRF credit multiplier per channel. Direct file hits, co-change and whole-word text are
#: first-class evidence; trigram (substring) matches are weaker evidence and get half a vote;
#: the crude hash-bag semantic channel mostly repeats the word channel's evidence less
#: precisely, and gets a quarter (half measured worse once text scored each column apart).
CHANNEL_WEIGHTS: Final[dict[str, float]] = {
    "file": 1.0,
    "cochange": 1.0,
    "words": 1.0,
    "trigram": 0.5,
    "semantic": 0.25,
}

#: Candidates fetched from each FTS5 table; ranks past 50 earn under 1/110 of RRF credit and
#: only cost time.
TEXT_CANDIDATES: Final = 50

#: Candidates taken from the semantic channel, for the same reason as TEXT_CANDIDATES.
SEMANTIC_CANDIDATES: Final = 50

#: A memory needs at least this cosine to be a semantic candidate at all: zero means no
#: feature in common, and a rounding-level positive is no evidence either.
SEMANTIC_MIN_COSINE: Final = 1e-6

# --- file affinity and path rarity -------------------------------------------------------

#: A memory on the exact file being edited must beat weak semantic and text noise, so a file
#: hit enters with a magnitude larger than any text or semantic magnitude can reach.
FILE_AFFINITY_FLOOR: Final = 0.25

#: Total file-affinity magnitude for the sole memory naming a path: the one note that only
#: knows about this file outranks the crowd sharing a hot path.
RARITY_SOLE_OWNER: Final = 0.40

#: The seed's second anchor: a path shared by 46 memories is worth 0.28 in all.
RARITY_ANCHOR_OWNERS: Final = 46
RARITY_ANCHOR_VALUE: Final = 0.28

#: Decay rate of the rarity premium per unit of ln(owners), solved from the two anchors:
#: premium(n) = (0.40 - 0.25) / (1 + RARITY_DECAY * ln n), so premium(46) = 0.03.
RARITY_DECAY: Final = (
    (RARITY_SOLE_OWNER - FILE_AFFINITY_FLOOR) / (RARITY_ANCHOR_VALUE - FILE_AFFINITY_FLOOR) - 1.0
) / math.log(RARITY_ANCHOR_OWNERS)

#: How much a touch says about intent. An edit is the strongest evidence the file matters
#: now; a save usually ends an edit but also fires on autosave and format-on-save; an open
#: may be browsing. Open is 0.8 so that an opened file's floor (0.8 * 0.25 = 0.20) still
#: ties the strongest text magnitude instead of sinking below it.
TOUCH_WEIGHTS: Final[dict[str, float]] = {"edit": 1.0, "save": 0.9, "open": 0.8}

#: Weight of a touch kind this module does not know: no stronger than an open.
UNKNOWN_TOUCH_WEIGHT: Final = 0.8

#: Share of each further touched file's magnitude added when one memory names several of
#: the touched files: breadth is evidence the memory is about this task...
FILE_EXTRA_SHARE: Final = 0.25

#: ...but at most this much in all, so a memory spread over crowded files (0.28 + 0.08)
#: never outranks the sole owner of one touched file (0.40).
FILE_EXTRA_MAX: Final = 0.08

#: Largest bonus for a memory on a touched file whose other files all belong to the touched
#: file's module (its co-change neighbours): the note is about this part of the code, not a
#: sweep across the repository that happened to pass through the file. Small: a memory on
#: the touched file alone earns none, and at 0.05 it outweighed the text that orders a
#: crowded file's memories (dropping it entirely measured worse).
MODULE_MAX: Final = 0.025

#: Neighbours of each touched file that make up its module: wide enough to hold a subsystem's
#: files, and the list is already capped by co-change strength.
MODULE_NEIGHBOURS: Final = 50


#: Added to the file magnitude of the oldest memory naming a touched file (when several do,
#: and not all were written at once): the note from when the file began describes the code
#: most of it still is, and the change a fix goes back to is far more often the one that
#: wrote the file than any later one (on real fix histories, 10-20x more often than another
#: memory on the same file).
ORIGIN_BONUS: Final = 0.04


#: Kinds of memory to review before editing: with equal file evidence they rank first in the
#: file channel, ahead of context notes (a gotcha just written must not sit behind thirty
#: older notes on its file because their rows came first).
REVIEW_KINDS: Final = frozenset({"gotcha", "decision", "rejected"})

#: Memories with equal file evidence (and kind) rank newest first in the file channel, not
#: in the order they were indexed (oldest first): the change a fix goes back to is often
#: among the latest on its file, and the oldest already has its origin bonus. Pre-cut hit@3
#: +0.02 / 0 / +0.01 / +0.01 on iproute2 / rdma-core / optee / networkmanager (100 tasks each).
FILE_TIES_NEWEST_FIRST: Final = True


#: Memories that may share the earliest moment on a file and still all be its origin. A
#: history's first commits often land in the same second (up to 19 memories on one file in
#: the four shared histories, two commonly: counting none of them cost iproute2's pre-cut
#: hit@3 0.012); a batch of notes imported at once is no origin, else a gotcha written a
#: minute after thirty imported notes sat behind all thirty.
ORIGIN_MAX_TIED: Final = 20


def module_bonus(share: float) -> float:
    """Bonus by the share (0..1) of a memory's other files that lie in the touched module."""
    return MODULE_MAX * min(1.0, max(0.0, share))


# --- co-change ------------------------------------------------------------------------------

#: Neighbours taken per touched file: beyond the two strongest, co-change is coincidence.
NEIGHBOURS_PER_FILE: Final = 2

#: Neighbours taken for the whole query: a wide edit must not flood recall with side files.
NEIGHBOURS_TOTAL: Final = 6

#: Co-change memories enter the file channel at this RRF rank, behind every direct hit.
COCHANGE_RRF_RANK: Final = 5

#: Co-change magnitude at full confidence: a third of a direct file hit, so a neighbour's
#: memory never outranks one on the file actually touched.
COCHANGE_MAX: Final = FILE_AFFINITY_FLOOR / 3

#: Neighbours that changed together in under a fifth of the touched file's commits are
#: coincidence (a sweeping refactor, a version bump), not coupling.
COCHANGE_MIN_CONFIDENCE: Final = 0.2

#: Neighbours need at least this many shared commits: one shared commit is an anecdote.
COCHANGE_MIN_SUPPORT: Final = 2

#: Pseudo-commits used to shrink a co-change ratio when its support is known:
#: 1/1 -> 0.33, 7/9 -> 0.60, 40/40 -> 0.95 of the raw confidence's worth.
COCHANGE_PRIOR: Final = 2

# --- blast radius -----------------------------------------------------------------------

#: Largest boost for a widely imported file: a tie-breaker, never a reason to surface.
BLAST_MAX: Final = 0.06

#: Import fan-in at which the blast boost saturates (the seed's example is 60 importers).
BLAST_SATURATION: Final = 64

#: Fan-in from which a receipt mentions it: below this, being imported explains nothing.
BLAST_RECEIPT_MIN: Final = 5

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


# --- semantic ---------------------------------------------------------------------------

#: Hash-bag cosine below this is shared-topic noise: it earns RRF rank credit only, because
#: ungated it outscored file hits on vague queries.
SEMANTIC_GATE: Final = 0.3

#: Semantic magnitude at cosine 1; grows linearly from zero at the gate, so crossing the
#: gate is not a cliff. Half of a strong text match: the hash-bag vector repeats the words
#: the text channel already scores, less precisely.
SEMANTIC_MAX: Final = 0.075

# --- recency ----------------------------------------------------------------------------

#: Largest recency boost: freshness breaks ties, it does not decide relevance (knowledge
#: about code stays true for years; the fix histories show a median gap of 300+ days), but
#: the change a fix goes back to is often among the latest on its file, and 0.02 was too
#: small to order a crowded file's equally matched memories. 0.06, not 0.04: pre-cut hit@3
#: 0 / +0.008 / +0.012 / +0.020 on iproute2 / rdma-core / optee / networkmanager (250 tasks
#: each); 0.08 gained more on the last two and cost iproute2 0.012.
RECENCY_MAX: Final = 0.06

#: Days for the recency boost to halve; anchored on the last action (or creation), never on
#: being shown, so display alone keeps nothing fresh. A year: the change a fix goes back to is
#: a median 300+ days old, where a half-year half-life had left under a third of the boost.
RECENCY_HALF_LIFE_DAYS: Final = 365.0

# --- feedback ---------------------------------------------------------------------------

#: Surfacings with no follow-up before the ignore penalty starts.
IGNORE_PENALTY_START: Final = 4

#: Penalty added per ignored surfacing from the fourth on (4 -> -0.03, 7+ -> -0.12).
IGNORE_PENALTY_STEP: Final = 0.03

#: Deepest ignore penalty: enough to step back from rotation, not to vanish; archiving is a
#: lifecycle decision, not a ranking one.
IGNORE_PENALTY_MAX: Final = 0.12

#: Acted-on bonus per unit of ln(1 + acted): the first uses count most.
ACTED_BONUS_SCALE: Final = 0.02

#: Largest acted-on bonus (reached at about 12 actions).
ACTED_BONUS_MAX: Final = 0.05

# --- pinned -----------------------------------------------------------------------------

#: A pinned memory was declared important by a person: it ranks above equally matched
#: peers, but an unrelated pin does not beat a direct file hit (0.10 < 0.25).
PINNED_BONUS: Final = 0.10

# --- learned ranker ----------------------------------------------------------------------

#: Whether each signal's contribution is multiplied by its learned weight
#: (``recall/ranking/learned_weights.json``, fitted by ``recall.ranking.fit_learned`` on the
#: pre-cut tasks of the shared fix histories); off, the hand-set scales above rank alone.
#: Off: fitted on three histories, the weights lowered the fourth's pre-cut hit@3 (iproute2
#: 0.704 -> 0.676, rdma-core 0.600 -> 0.532, optee +0.004, networkmanager 0; 250 tasks each).
LEARNED_RANKER: Final = False


# --- injection --------------------------------------------------------------------------

#: Memories injected into an agent's context per turn: context is the budget that matters.
INJECT_MAX: Final = 3

#: Character budget of one injection (summaries, ids, badges, receipts, the fetch hint).
INJECT_CHARS: Final = 2400

#: Characters of one summary in an injection; details are fetched on demand.
SUMMARY_CAP: Final = 200

#: Score a hit needs to be injected: a file hit (even an open), a strong text match or
#: several agreeing signals clear it; rank credit alone never does. Silence is valid.
INJECT_MIN_SCORE: Final = 0.10


def rrf(rank: int) -> float:
    """Reciprocal-rank-fusion credit of a 1-based rank (ranks below 1 count as 1)."""
    return 1.0 / (RRF_K + max(1, rank))


def rarity_bonus(owners: int) -> float:
    """Total file-affinity magnitude for a path named by ``owners`` active memories.

    ``0.25 + 0.15 / (1 + RARITY_DECAY * ln(owners))``: 0.40 for a sole owner, 0.28 at 46,
    smooth and non-increasing in between and beyond, approaching but never below the 0.25
    floor. Counts below 1 are treated as 1 (the memory asking owns the path).
    """
    n = max(1, owners)
    premium = (RARITY_SOLE_OWNER - FILE_AFFINITY_FLOOR) / (1.0 + RARITY_DECAY * math.log(n))
    return FILE_AFFINITY_FLOOR + premium


def touch_weight(kind: str) -> float:
    """Weight of how a file was touched (``edit`` 1.0, ``save`` 0.9, ``open`` 0.8)."""
    return TOUCH_WEIGHTS.get(kind, UNKNOWN_TOUCH_WEIGHT)


def file_magnitude(owners: int, weight: float) -> float:
    """File-affinity magnitude: ``rarity_bonus(owners)`` scaled by a touch weight in [0, 1]."""
    return rarity_bonus(owners) * min(1.0, max(0.0, weight))


def file_affinity(owners: int, kind: str = "edit") -> float:
    """File-affinity magnitude of a memory on a file touched in the named way."""
    return file_magnitude(owners, touch_weight(kind))


def combine_file_hits(magnitudes: Sequence[float]) -> float:
    """One memory's file magnitude when it names several touched files.

    The strongest hit counts in full; the others add ``FILE_EXTRA_SHARE`` of their
    magnitude, at most ``FILE_EXTRA_MAX`` in all. No hits give 0.
    """
    if not magnitudes:
        return 0.0
    ordered = sorted(magnitudes, reverse=True)
    extra = FILE_EXTRA_SHARE * sum(ordered[1:])
    return ordered[0] + min(FILE_EXTRA_MAX, max(0.0, extra))


def cochange_magnitude(confidence: float, support: int | None = None) -> float:
    """Co-change magnitude of a neighbour that changed with a touched file.

    ``confidence`` is the share of the touched file's commits that also changed the
    neighbour. When ``support`` (the shared commits) is given, the ratio is shrunk by
    ``support / (support + COCHANGE_PRIOR)`` so one coincidence counts little. The result is
    at most ``COCHANGE_MAX``, a third of a direct file hit.
    """
    if not math.isfinite(confidence) or confidence <= 0.0:
        return 0.0
    share = min(1.0, confidence)
    if support is not None:
        if support <= 0:
            return 0.0
        share *= support / (support + COCHANGE_PRIOR)
    return COCHANGE_MAX * share


def blast_bonus(fan_in: int) -> float:
    """Blast-radius boost for a file imported by ``fan_in`` files: log-scaled, at most 0.06."""
    if fan_in <= 0:
        return 0.0
    return BLAST_MAX * min(1.0, math.log1p(fan_in) / math.log1p(BLAST_SATURATION))


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


def recency_bonus(days_since_anchor: float, *, pinned: bool = False) -> float:
    """Recency boost ``RECENCY_MAX * 0.5 ** (days / half-life)``.

    The anchor is the last action on the memory, or its creation if never acted on. Future
    anchors (clock skew) count as now, an unknown (NaN) anchor earns nothing, and pinned
    memories never decay.
    """
    if pinned:
        return RECENCY_MAX
    if math.isnan(days_since_anchor):
        return 0.0
    days = max(0.0, days_since_anchor)
    return RECENCY_MAX * 0.5 ** (days / RECENCY_HALF_LIFE_DAYS)


def ignore_penalty(surfaced: int, acted: int, *, pinned: bool = False) -> float:
    """Penalty (<= 0) for a memory shown repeatedly and never acted on.

    0 while ``surfaced`` < 4, after any action, and for pinned memories; otherwise
    ``-0.03`` per surfacing from the fourth, floored at ``-0.12``.
    """
    if pinned or acted > 0 or surfaced < IGNORE_PENALTY_START:
        return 0.0
    steps = surfaced - IGNORE_PENALTY_START + 1
    return -min(IGNORE_PENALTY_MAX, IGNORE_PENALTY_STEP * steps)


def acted_bonus(acted: int) -> float:
    """Bonus for a memory that was acted on: ``0.02 * ln(1 + acted)``, at most 0.05."""
    if acted <= 0:
        return 0.0
    return min(ACTED_BONUS_MAX, ACTED_BONUS_SCALE * math.log1p(acted))


def pinned_bonus(pinned: bool) -> float:
    """Bonus for a pinned memory (``PINNED_BONUS``), else 0."""
    return PINNED_BONUS if pinned else 0.0


def clip_summary(summary: str, cap: int = SUMMARY_CAP) -> str:
    """First line of a summary, whitespace collapsed, cut at a word boundary to ``cap`` chars.

    A cut summary ends with an ellipsis and is still at most ``cap`` characters long.
    """
    lines = summary.strip().splitlines()
    line = " ".join(lines[0].split()) if lines else ""
    if len(line) <= cap:
        return line
    if cap <= 1:
        return "…"[:cap]
    cut = line[: cap - 1]
    space = cut.rfind(" ")
    if space >= cap // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


# -- Lifecycle: content drift ---------------------------------------------------------------------

# Commits to a memory's files since it was written or last confirmed (`tether confirm`) before it
# is marked for a spot-check: a file rewritten this often has likely moved past what the memory
# says, while a handful of commits is routine upkeep that rarely invalidates it.
DRIFT_COMMITS = 20

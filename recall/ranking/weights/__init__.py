"""Every ranking judgement recall makes, in one place, each with the reason it has its value.

A recall score is reciprocal-rank fusion over the channels (``rrf``) plus bounded
magnitudes. The magnitudes are the judgements; their scale, largest first:

=====================  ==========================================================
file affinity          0.25 .. 0.40 for an edited file (rarity premium on the floor),
                       scaled by how the file was touched (open: 0.8x); up to +0.08
                       more when a memory names several touched files; earlier names
                       of a renamed file count as the file; up to +0.04 for the file's
                       oldest memory (+0.04 more once the file has gone half a year
                       without a memory) and up to +0.02 for its newest, halving with
                       each later one and fading to none over those half a year
                       (both scaled like the touch)
module                 up to 0.025 when a file hit's other files co-change with it
co-change              up to 0.083 (a third of a direct hit), RRF rank 5
text (bm25)            up to 0.20 (words and trigram together: the stronger of the two);
                       a word most memories of the touched file share weighs less
introducer             +0.02 when the summary brings in (add, introduce...) a thing
                       the prompt names beyond its component prefix
semantic               0 below cosine 0.3, up to 0.075 at cosine 1
pinned                 +0.10, and exempt from decay and the ignore penalty
blast radius           up to 0.06
recency                up to 0.06, halving every 365 days since the last action,
                       and up to 0.01 more, halving every 10 days
feedback               acted: up to +0.05; ignored 4+ times: down to -0.12
redundant              down to -0.015 for a returned hit naming the files of a hit
                       placed above it (in proportion to the files they share)
=====================  ==========================================================

RRF credit is at most 1/61 per channel (times the channel's weight), so it orders hits
that no magnitude separates and gives weak signals (semantic cosine below the gate) a voice
without letting them win.

Each topic is a module of this package (``fusion``, ``files``, ``text``, ``adjustments``,
``injection``, ``lifecycle``), every name re-exported here, so ``weights.NAME`` reads any of
them. A tuning run that sets a constant sets it in the package and in the module that defines
it (the module's own functions read it there).
"""

from __future__ import annotations

from recall.ranking.weights.adjustments import (
    ACTED_BONUS_MAX,
    ACTED_BONUS_SCALE,
    FRESH_HALF_LIFE_DAYS,
    FRESH_MAX,
    IGNORE_PENALTY_MAX,
    IGNORE_PENALTY_START,
    IGNORE_PENALTY_STEP,
    LEARNED_RANKER,
    PINNED_BONUS,
    RECENCY_HALF_LIFE_DAYS,
    RECENCY_MAX,
    REDUNDANCY_PENALTY,
    SPREAD_POOL,
    acted_bonus,
    ignore_penalty,
    pinned_bonus,
    recency_bonus,
    recency_top,
)
from recall.ranking.weights.files import (
    BLAST_MAX,
    BLAST_RECEIPT_MIN,
    BLAST_SATURATION,
    COCHANGE_MAX,
    COCHANGE_MIN_CONFIDENCE,
    COCHANGE_MIN_SUPPORT,
    COCHANGE_PRIOR,
    COCHANGE_RRF_RANK,
    FILE_AFFINITY_FLOOR,
    FILE_EXTRA_MAX,
    FILE_EXTRA_SHARE,
    FILE_NEWEST_BONUS,
    FILE_NEWEST_HALF_RANK,
    FILE_NEWEST_NEGLIGIBLE,
    FILE_TIES_NEWEST_FIRST,
    MODULE_MAX,
    MODULE_NEIGHBOURS,
    NEIGHBOURS_PER_FILE,
    NEIGHBOURS_TOTAL,
    NEWEST_QUIET_FADE,
    ORIGIN_BONUS,
    ORIGIN_MAX_TIED,
    ORIGIN_QUIET_DAYS,
    ORIGIN_QUIET_EXTRA,
    RARITY_ANCHOR_OWNERS,
    RARITY_ANCHOR_VALUE,
    RARITY_DECAY,
    RARITY_SOLE_OWNER,
    REVIEW_KINDS,
    TOUCH_WEIGHTS,
    UNKNOWN_TOUCH_WEIGHT,
    blast_bonus,
    cochange_magnitude,
    combine_file_hits,
    file_affinity,
    file_magnitude,
    file_newest_bonus,
    file_newest_depth,
    module_bonus,
    newest_quiet_scale,
    origin_bonus,
    rarity_bonus,
    touch_weight,
)
from recall.ranking.weights.fusion import (
    CHANNEL_WEIGHTS,
    FILE_CANDIDATES_MAX,
    RRF_K,
    SEMANTIC_CANDIDATES,
    SEMANTIC_MIN_COSINE,
    TEXT_CANDIDATES,
    rrf,
)
from recall.ranking.weights.injection import (
    EDIT_WARNINGS_MAX,
    INJECT_CHARS,
    INJECT_MAX,
    INJECT_MIN_SCORE,
    SUMMARY_CAP,
    clip_summary,
)
from recall.ranking.weights.lifecycle import (
    DRIFT_COMMITS,
)
from recall.ranking.weights.text import (
    BM25_B,
    BM25_IDF_FLOOR,
    BM25_K1,
    BM25_SUMMARY_WEIGHT,
    COMMON_TERM_MIN_MEMORIES,
    COMMON_TERM_SHARE,
    FUNCTION_WORDS,
    INTRODUCER_BONUS,
    INTRODUCING_WORDS,
    LOCAL_TERM_POWER,
    LOCAL_TERM_PRIOR,
    MIN_WORD_CHARS,
    SEMANTIC_GATE,
    SEMANTIC_MAX,
    SPLIT_CAMEL_CASE,
    TEXT_HALF_STRENGTH,
    TEXT_MATCH_BUDGET,
    TEXT_MAX,
    TEXT_STRONG,
    TRIGRAM_SHARE,
    is_common_term,
    is_function_word,
    is_identifier_like,
    local_term_weight,
    semantic_magnitude,
    text_magnitude,
)

__all__ = [
    "ACTED_BONUS_MAX",
    "ACTED_BONUS_SCALE",
    "BLAST_MAX",
    "BLAST_RECEIPT_MIN",
    "BLAST_SATURATION",
    "BM25_B",
    "BM25_IDF_FLOOR",
    "BM25_K1",
    "BM25_SUMMARY_WEIGHT",
    "CHANNEL_WEIGHTS",
    "COCHANGE_MAX",
    "COCHANGE_MIN_CONFIDENCE",
    "COCHANGE_MIN_SUPPORT",
    "COCHANGE_PRIOR",
    "COCHANGE_RRF_RANK",
    "COMMON_TERM_MIN_MEMORIES",
    "COMMON_TERM_SHARE",
    "DRIFT_COMMITS",
    "EDIT_WARNINGS_MAX",
    "FILE_AFFINITY_FLOOR",
    "FILE_CANDIDATES_MAX",
    "FILE_EXTRA_MAX",
    "FILE_EXTRA_SHARE",
    "FILE_NEWEST_BONUS",
    "FILE_NEWEST_HALF_RANK",
    "FILE_NEWEST_NEGLIGIBLE",
    "FILE_TIES_NEWEST_FIRST",
    "FRESH_HALF_LIFE_DAYS",
    "FRESH_MAX",
    "FUNCTION_WORDS",
    "IGNORE_PENALTY_MAX",
    "IGNORE_PENALTY_START",
    "IGNORE_PENALTY_STEP",
    "INJECT_CHARS",
    "INJECT_MAX",
    "INJECT_MIN_SCORE",
    "INTRODUCER_BONUS",
    "INTRODUCING_WORDS",
    "LEARNED_RANKER",
    "LOCAL_TERM_POWER",
    "LOCAL_TERM_PRIOR",
    "MIN_WORD_CHARS",
    "MODULE_MAX",
    "MODULE_NEIGHBOURS",
    "NEIGHBOURS_PER_FILE",
    "NEIGHBOURS_TOTAL",
    "NEWEST_QUIET_FADE",
    "ORIGIN_BONUS",
    "ORIGIN_MAX_TIED",
    "ORIGIN_QUIET_DAYS",
    "ORIGIN_QUIET_EXTRA",
    "PINNED_BONUS",
    "RARITY_ANCHOR_OWNERS",
    "RARITY_ANCHOR_VALUE",
    "RARITY_DECAY",
    "RARITY_SOLE_OWNER",
    "RECENCY_HALF_LIFE_DAYS",
    "RECENCY_MAX",
    "REDUNDANCY_PENALTY",
    "REVIEW_KINDS",
    "RRF_K",
    "SEMANTIC_CANDIDATES",
    "SEMANTIC_GATE",
    "SEMANTIC_MAX",
    "SEMANTIC_MIN_COSINE",
    "SPLIT_CAMEL_CASE",
    "SPREAD_POOL",
    "SUMMARY_CAP",
    "TEXT_CANDIDATES",
    "TEXT_HALF_STRENGTH",
    "TEXT_MATCH_BUDGET",
    "TEXT_MAX",
    "TEXT_STRONG",
    "TOUCH_WEIGHTS",
    "TRIGRAM_SHARE",
    "UNKNOWN_TOUCH_WEIGHT",
    "acted_bonus",
    "blast_bonus",
    "clip_summary",
    "cochange_magnitude",
    "combine_file_hits",
    "file_affinity",
    "file_magnitude",
    "file_newest_bonus",
    "file_newest_depth",
    "ignore_penalty",
    "is_common_term",
    "is_function_word",
    "is_identifier_like",
    "local_term_weight",
    "module_bonus",
    "newest_quiet_scale",
    "origin_bonus",
    "pinned_bonus",
    "rarity_bonus",
    "recency_bonus",
    "recency_top",
    "rrf",
    "semantic_magnitude",
    "text_magnitude",
    "touch_weight",
]

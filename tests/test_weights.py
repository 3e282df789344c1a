"""Pins the anchor points and shapes of every ranking judgement in recall.ranking.weights."""

from __future__ import annotations

import math
from itertools import pairwise
from types import ModuleType

import pytest

from recall.ranking import weights as w

OWNER_SAMPLE = sorted(
    set(range(1, 5001)) | {round(10 ** (k / 20)) for k in range(0, 121)} | {10**6}
)


class TestRarity:
    def test_anchor_points(self) -> None:
        assert w.rarity_bonus(1) == pytest.approx(0.40, abs=1e-12)
        assert w.rarity_bonus(46) == pytest.approx(0.28, abs=1e-12)
        assert w.FILE_AFFINITY_FLOOR == 0.25

    def test_never_below_floor_and_monotone_up_to_a_million_owners(self) -> None:
        values = [w.rarity_bonus(n) for n in OWNER_SAMPLE]
        assert all(v >= w.FILE_AFFINITY_FLOOR for v in values)
        assert all(a >= b for a, b in pairwise(values))
        assert values[0] == max(values)

    def test_strictly_decreasing_and_smooth_between_anchors(self) -> None:
        values = [w.rarity_bonus(n) for n in range(1, 47)]
        assert all(a > b for a, b in pairwise(values))
        steps = [a - b for a, b in pairwise(values)]
        assert max(steps) < 0.07  # no cliff: the 1 -> 2 step is the largest and it is modest
        assert all(0.28 <= v <= 0.40 for v in values)

    def test_approaches_the_floor(self) -> None:
        assert w.rarity_bonus(10**6) - w.FILE_AFFINITY_FLOOR < 0.012
        assert w.rarity_bonus(10**12) - w.FILE_AFFINITY_FLOOR < 0.006
        assert w.rarity_bonus(10**12) > w.FILE_AFFINITY_FLOOR

    def test_counts_below_one_act_as_sole_owner(self) -> None:
        assert w.rarity_bonus(0) == w.rarity_bonus(1)
        assert w.rarity_bonus(-5) == w.rarity_bonus(1)


class TestTouch:
    def test_edit_outweighs_save_outweighs_open(self) -> None:
        assert w.touch_weight("edit") == 1.0
        assert w.touch_weight("edit") > w.touch_weight("save") > w.touch_weight("open") > 0

    def test_unknown_touch_is_no_stronger_than_open(self) -> None:
        assert w.touch_weight("hover") == w.touch_weight("open")

    def test_file_magnitude_takes_a_touch_weight(self) -> None:
        assert w.file_magnitude(1, 1.0) == pytest.approx(0.40)
        assert w.file_magnitude(46, w.TOUCH_WEIGHTS["save"]) == pytest.approx(0.28 * 0.9)
        assert w.file_magnitude(1, 3.0) == w.file_magnitude(1, 1.0)
        assert w.file_magnitude(1, -1.0) == 0.0

    def test_file_affinity_keeps_the_floor_for_edits(self) -> None:
        assert w.file_affinity(1) == pytest.approx(0.40)
        assert w.file_affinity(46, "edit") == pytest.approx(0.28)
        assert w.file_affinity(10**6, "edit") >= w.FILE_AFFINITY_FLOOR
        assert w.file_affinity(1, "open") < w.file_affinity(1, "save") < w.file_affinity(1)

    def test_even_an_opened_file_hit_ties_the_strongest_text_or_semantic_match(self) -> None:
        weakest_file_hit = w.FILE_AFFINITY_FLOOR * w.touch_weight("open")
        assert weakest_file_hit >= w.TEXT_MAX - 1e-12
        assert weakest_file_hit >= w.SEMANTIC_MAX - 1e-12


class TestCoChange:
    def test_caps_and_rank(self) -> None:
        assert w.NEIGHBOURS_PER_FILE == 2
        assert w.NEIGHBOURS_TOTAL == 6
        assert w.COCHANGE_RRF_RANK == 5

    def test_thresholds(self) -> None:
        assert 0.0 < w.COCHANGE_MIN_CONFIDENCE < 0.5
        assert w.COCHANGE_MIN_SUPPORT >= 2

    def test_magnitude_is_at_most_a_third_of_a_direct_hit(self) -> None:
        assert w.cochange_magnitude(1.0) == pytest.approx(w.FILE_AFFINITY_FLOOR / 3)
        assert w.cochange_magnitude(5.0) == w.cochange_magnitude(1.0)
        assert w.cochange_magnitude(1.0) < w.file_affinity(10**6, "edit") / 2.9

    def test_magnitude_grows_with_confidence_and_support(self) -> None:
        assert w.cochange_magnitude(0.3) < w.cochange_magnitude(7 / 9) < w.cochange_magnitude(1.0)
        assert w.cochange_magnitude(1.0, 1) < w.cochange_magnitude(7 / 9, 7)
        assert w.cochange_magnitude(7 / 9, 7) == pytest.approx(w.COCHANGE_MAX * 7 / 9 * 7 / 9)
        assert w.cochange_magnitude(1.0, 40) > 0.95 * w.COCHANGE_MAX

    def test_no_evidence_no_magnitude(self) -> None:
        assert w.cochange_magnitude(0.0) == 0.0
        assert w.cochange_magnitude(-1.0) == 0.0
        assert w.cochange_magnitude(float("nan")) == 0.0
        assert w.cochange_magnitude(0.5, 0) == 0.0


class TestMultiFileHits:
    def test_single_hit_is_unchanged(self) -> None:
        assert w.combine_file_hits([0.31]) == 0.31
        assert w.combine_file_hits([]) == 0.0

    def test_breadth_adds_a_bounded_share(self) -> None:
        two = w.combine_file_hits([0.28, 0.30])
        assert two == pytest.approx(0.30 + w.FILE_EXTRA_SHARE * 0.28)
        many = w.combine_file_hits([0.28] * 20)
        assert many == pytest.approx(0.28 + w.FILE_EXTRA_MAX)

    def test_breadth_over_crowded_files_never_beats_a_sole_owner(self) -> None:
        crowded = w.rarity_bonus(46)
        assert w.combine_file_hits([crowded] * 50) < w.rarity_bonus(1)


class TestChannels:
    def test_channel_weights_cover_every_channel(self) -> None:
        assert set(w.CHANNEL_WEIGHTS) == {"file", "cochange", "words", "trigram", "semantic"}
        assert w.CHANNEL_WEIGHTS["file"] == 1.0
        assert w.CHANNEL_WEIGHTS["trigram"] < w.CHANNEL_WEIGHTS["words"]
        assert w.CHANNEL_WEIGHTS["semantic"] < w.CHANNEL_WEIGHTS["file"]
        assert w.CHANNEL_WEIGHTS["semantic"] == 0.25  # a quarter vote: it repeats the words
        assert all(0.0 < v <= 1.0 for v in w.CHANNEL_WEIGHTS.values())

    def test_candidate_depths(self) -> None:
        assert w.TEXT_CANDIDATES >= w.INJECT_MAX
        assert w.SEMANTIC_CANDIDATES >= w.INJECT_MAX

    @pytest.mark.parametrize(
        ("token", "expected"),
        [
            ("safe_rename", True),
            ("auth/middleware.ts", True),
            ("utf8", True),
            ("std::fs", True),
            ("`saferename`", True),
            ("--force", True),
            ("rename", False),
            ("cache.", False),
            ("(retry)", False),
            ("why?", False),
            ("e.g.", False),
            ("1234", False),
            ("...", False),
        ],
    )
    def test_identifier_like(self, token: str, expected: bool) -> None:
        assert w.is_identifier_like(token) is expected


class TestOriginAndModule:
    def test_origin_bonus_orders_a_files_memories_without_outranking_another_file(self) -> None:
        assert w.ORIGIN_BONUS == 0.04
        # enough to lead a crowded file's memories, never enough to lift a crowded file's
        # memory over the sole owner of a touched file
        assert w.file_affinity(46) + w.ORIGIN_BONUS < w.file_affinity(1) + w.RECENCY_MAX
        assert w.ORIGIN_BONUS < w.FILE_AFFINITY_FLOOR

    def test_a_quiet_files_origin_weighs_more_and_still_never_lifts_a_crowded_file(self) -> None:
        assert w.ORIGIN_QUIET_EXTRA == 0.04
        assert w.ORIGIN_QUIET_DAYS == 180.0
        full = w.origin_bonus(w.ORIGIN_QUIET_DAYS)
        assert w.file_affinity(46) + full < w.file_affinity(1) + w.RECENCY_MAX
        assert full < w.FILE_AFFINITY_FLOOR
        # a quiet file's origin is at least that old (unless acted on since): with its
        # recency it stays below the sole owner of a touched file, which is its file's newest
        quiet = w.file_affinity(46) + full + w.recency_bonus(w.ORIGIN_QUIET_DAYS)
        assert quiet < w.file_affinity(1) + w.file_newest_bonus(0)

    def test_module_bonus(self) -> None:
        assert w.MODULE_MAX == 0.025
        assert w.module_bonus(1.0) == w.MODULE_MAX
        assert w.module_bonus(0.5) == pytest.approx(w.MODULE_MAX / 2)
        assert w.module_bonus(7.0) == w.MODULE_MAX


class TestBlastRadius:
    def test_bounded_log_scaled_and_monotone(self) -> None:
        values = [w.blast_bonus(n) for n in range(0, 2000)]
        assert values[0] == 0.0
        assert all(a <= b for a, b in pairwise(values))
        assert max(values) == pytest.approx(w.BLAST_MAX)
        assert w.BLAST_MAX <= 0.06
        assert w.blast_bonus(1) < w.blast_bonus(8) < w.blast_bonus(60)
        assert w.blast_bonus(-3) == 0.0


class TestText:
    def test_field_bm25_uses_fts5s_constants(self) -> None:
        assert (w.BM25_K1, w.BM25_B, w.BM25_IDF_FLOOR) == (1.2, 0.75, 1e-6)

    def test_magnitude_is_bounded_and_monotone(self) -> None:
        strengths = [0.0, 0.5, 1, 2, 5, 10, 50, 1e6]
        values = [w.text_magnitude(s) for s in strengths]
        assert values[0] == 0.0
        assert all(a < b for a, b in pairwise(values))
        assert all(v < w.TEXT_MAX for v in values)
        assert w.TEXT_HALF_STRENGTH == 15.0
        assert w.text_magnitude(15.0) == pytest.approx(w.TEXT_MAX / 2)

    def test_accepts_raw_negative_fts5_scores(self) -> None:
        assert w.text_magnitude(-7.5) == w.text_magnitude(7.5)
        assert w.text_magnitude(float("nan")) == 0.0
        assert w.text_magnitude(float("-inf")) == 0.0

    def test_strong_text_threshold_is_reachable(self) -> None:
        assert 0.0 < w.TEXT_STRONG < w.TEXT_MAX
        assert w.text_magnitude(6.0) < w.TEXT_STRONG <= w.text_magnitude(6.5)
        assert w.BM25_SUMMARY_WEIGHT == 1.0

    def test_local_term_weight_anchors(self) -> None:
        assert (w.LOCAL_TERM_PRIOR, w.LOCAL_TERM_POWER) == (5.0, 2.0)
        assert w.local_term_weight(0, 10) == 1.0  # held by none of the file's memories
        assert w.local_term_weight(3, 0) == 1.0  # no file memories found: store idf alone
        assert w.local_term_weight(5, 5) == pytest.approx(0.25)  # all five: a quarter
        assert w.local_term_weight(1, 2) == pytest.approx((6 / 7) ** 2)  # one of two: little
        assert w.local_term_weight(10_000, 10_000) == pytest.approx((5 / 10_005) ** 2)
        weights = [w.local_term_weight(h, 20) for h in range(21)]
        assert all(a > b for a, b in pairwise(weights))
        assert w.local_term_weight(30, 20) == 0.0  # more holders than near: capped, not negative

    def test_common_terms(self) -> None:
        assert w.COMMON_TERM_SHARE == 0.50
        assert w.is_common_term(51, 100)
        assert not w.is_common_term(50, 100)
        assert not w.is_common_term(5, 10)  # too few memories to judge


class TestSemantic:
    def test_gate(self) -> None:
        assert w.SEMANTIC_GATE == 0.3
        assert 0.0 < w.SEMANTIC_MIN_COSINE < 1e-3 < w.SEMANTIC_GATE
        assert w.semantic_magnitude(0.29999) == 0.0
        assert w.semantic_magnitude(0.3) == 0.0
        assert w.semantic_magnitude(-1.0) == 0.0
        assert w.semantic_magnitude(float("nan")) == 0.0

    def test_grows_to_its_cap(self) -> None:
        cosines = [0.31, 0.4, 0.59, 0.8, 1.0]
        values = [w.semantic_magnitude(c) for c in cosines]
        assert all(0 < a < b for a, b in pairwise(values))
        assert w.semantic_magnitude(1.0) == pytest.approx(w.SEMANTIC_MAX)
        assert w.SEMANTIC_MAX < w.FILE_AFFINITY_FLOOR
        assert w.SEMANTIC_MAX == 0.075


class TestIntroducer:
    def test_bonus(self) -> None:
        # pre-cut hit@3 +0.020 / +0.004 / +0.008 / +0.004 (iproute2 / rdma-core / optee /
        # networkmanager); 0.025 cost networkmanager
        assert w.INTRODUCER_BONUS == 0.02
        # it orders a file's memories; with the most recency it still never lifts a crowded
        # file's memory over the sole owner of a touched file
        assert w.INTRODUCER_BONUS < w.ORIGIN_BONUS
        assert w.file_affinity(46) + w.recency_top() + w.INTRODUCER_BONUS < w.file_affinity(1)

    def test_words_that_bring_something_in(self) -> None:
        assert {"add", "introduce", "implement", "support"} <= w.INTRODUCING_WORDS
        assert not {"fix", "revert", "remove"} & w.INTRODUCING_WORDS


class TestRecency:
    def test_recency_max(self) -> None:
        assert w.RECENCY_MAX == 0.06
        assert w.recency_top() == pytest.approx(w.RECENCY_MAX + w.FRESH_MAX)
        assert w.recency_top() < w.FILE_AFFINITY_FLOOR
        # freshness never lifts a crowded file's memory over the sole owner of a touched file
        assert w.file_affinity(46) + w.recency_top() < w.file_affinity(1)

    def test_half_life(self) -> None:
        assert w.RECENCY_HALF_LIFE_DAYS == 365.0
        assert w.recency_bonus(0) == pytest.approx(w.recency_top())
        half = w.RECENCY_HALF_LIFE_DAYS
        # a year on, the short scale has long faded: the yearly half is what is left
        assert w.recency_bonus(half) == pytest.approx(w.RECENCY_MAX / 2, abs=1e-9)
        assert w.recency_bonus(2 * half) == pytest.approx(w.RECENCY_MAX / 4, abs=1e-9)

    def test_short_scale(self) -> None:
        # pre-cut hit@3 0 / +0.028 / +0.004 / 0 (iproute2 / networkmanager / optee /
        # rdma-core); 0.015 cost rdma-core 0.012
        assert w.FRESH_MAX == 0.01
        assert w.FRESH_HALF_LIFE_DAYS == 10.0
        days = w.FRESH_HALF_LIFE_DAYS
        yearly = w.RECENCY_MAX * 0.5 ** (days / w.RECENCY_HALF_LIFE_DAYS)
        assert w.recency_bonus(days) == pytest.approx(yearly + w.FRESH_MAX / 2)
        # last week against last month: the short scale adds more than the yearly one tells
        week, month = (
            w.recency_bonus(7) - w.recency_bonus(30),
            (w.RECENCY_MAX * (0.5 ** (7 / 365) - 0.5 ** (30 / 365))),
        )
        assert week > 2 * month
        # it orders equally matched memories, it never outweighs a text match's reach
        assert w.FRESH_MAX < w.TEXT_STRONG

    def test_edges(self) -> None:
        assert w.recency_bonus(-3) == pytest.approx(w.recency_top())
        assert w.recency_bonus(math.inf) == 0.0
        assert w.recency_bonus(math.nan) == 0.0
        assert w.recency_bonus(10_000, pinned=True) == pytest.approx(w.recency_top())


class TestFeedback:
    def test_no_penalty_below_four_surfacings(self) -> None:
        assert [w.ignore_penalty(s, 0) for s in range(4)] == [0.0, 0.0, 0.0, 0.0]

    def test_penalty_grows_to_its_floor(self) -> None:
        values = [w.ignore_penalty(s, 0) for s in range(4, 200)]
        assert values[0] < 0
        assert all(a >= b for a, b in pairwise(values))
        assert min(values) == pytest.approx(-0.12)
        assert w.ignore_penalty(10**9, 0) == pytest.approx(-0.12)

    def test_no_penalty_once_acted_or_pinned(self) -> None:
        assert w.ignore_penalty(50, 1) == 0.0
        assert w.ignore_penalty(50, 0, pinned=True) == 0.0

    def test_acted_bonus_small_log_scaled_and_capped(self) -> None:
        assert w.acted_bonus(0) == 0.0
        assert 0 < w.acted_bonus(1) < w.acted_bonus(3) < w.acted_bonus(10)
        assert w.acted_bonus(1) == pytest.approx(0.02 * math.log(2))
        assert w.acted_bonus(10**6) == w.ACTED_BONUS_MAX
        assert w.ACTED_BONUS_MAX < w.IGNORE_PENALTY_MAX


class TestPinnedAndInjection:
    def test_pinned_bonus(self) -> None:
        assert w.pinned_bonus(True) == w.PINNED_BONUS > 0
        assert w.pinned_bonus(False) == 0.0
        assert w.PINNED_BONUS < w.FILE_AFFINITY_FLOOR

    def test_injection_caps(self) -> None:
        assert w.INJECT_MAX == 3
        assert w.EDIT_WARNINGS_MAX == 3
        assert w.INJECT_CHARS == 2400
        assert w.INJECT_MAX * w.SUMMARY_CAP < w.INJECT_CHARS

    def test_rank_credit_alone_never_clears_the_injection_bar(self) -> None:
        # Ranked channels: file, text (unicode61), text (trigram), semantic.
        assert 4 * w.rrf(1) < w.INJECT_MIN_SCORE
        assert w.file_affinity(10**6, "open") > w.INJECT_MIN_SCORE

    def test_rrf(self) -> None:
        assert w.RRF_K == 60
        assert w.rrf(1) == pytest.approx(1 / 61)
        assert w.rrf(0) == w.rrf(1)
        assert w.rrf(w.COCHANGE_RRF_RANK) < w.rrf(1)


class TestClipSummary:
    def test_short_summary_unchanged_except_whitespace(self) -> None:
        assert w.clip_summary("  use   pnpm,\tnot npm \nmore details") == "use pnpm, not npm"
        assert w.clip_summary("") == ""

    def test_long_summary_cut_at_word_boundary(self) -> None:
        text = "rotate the signing key " * 20
        clipped = w.clip_summary(text)
        assert len(clipped) <= w.SUMMARY_CAP
        assert clipped.endswith("…")
        assert text.startswith(clipped[:-1])
        assert not clipped[:-1].endswith(" ")

    def test_unbroken_text_is_cut_hard(self) -> None:
        clipped = w.clip_summary("x" * 500, cap=20)
        assert clipped == "x" * 19 + "…"
        assert w.clip_summary("abc", cap=0) == ""


class TestTies:
    def test_review_kinds_come_first_among_equal_file_evidence(self) -> None:
        assert set(w.REVIEW_KINDS) == {"gotcha", "decision", "rejected"}

    def test_a_batch_sharing_the_first_moment_holds_no_origin(self) -> None:
        assert w.ORIGIN_MAX_TIED == 20

    def test_equal_file_evidence_ranks_newest_first(self) -> None:
        assert w.FILE_TIES_NEWEST_FIRST is True


def test_every_touch_kind_has_a_weight_and_stronger_touches_weigh_more() -> None:
    from recall.ranking.query import TOUCH_KINDS

    assert set(w.TOUCH_WEIGHTS) == set(TOUCH_KINDS)
    weights = [w.touch_weight(kind) for kind in TOUCH_KINDS]  # weakest first
    assert weights == sorted(weights) and len(set(weights)) == len(weights)
    assert w.touch_weight("unknown") == w.UNKNOWN_TOUCH_WEIGHT <= weights[0]


def test_every_judgement_of_every_topic_module_is_read_through_the_package() -> None:
    import pkgutil
    from importlib import import_module

    topics = [name for _, name, _ in pkgutil.iter_modules(w.__path__)]
    assert len(topics) >= 5
    for topic in topics:
        module = import_module(f"{w.__name__}.{topic}")
        defined = [
            name
            for name, value in vars(module).items()
            if not name.startswith("_")
            and not isinstance(value, ModuleType)
            and getattr(value, "__module__", module.__name__) == module.__name__
        ]
        missing = [name for name in defined if getattr(w, name, None) is not getattr(module, name)]
        assert missing == [], f"{topic}: not re-exported by recall.ranking.weights"


def test_a_tuning_variant_reaches_the_functions_that_read_the_constant() -> None:
    from bench.quality_session import patched

    before = w.rarity_bonus(1)
    with patched({"RARITY_SOLE_OWNER": 0.5}):
        assert w.RARITY_SOLE_OWNER == 0.5
        assert w.rarity_bonus(1) == pytest.approx(0.5)
    assert w.rarity_bonus(1) == before and w.RARITY_SOLE_OWNER == 0.40


class TestFileNewest:
    def test_pinned_values(self) -> None:
        assert w.FILE_NEWEST_BONUS == 0.02
        assert w.FILE_NEWEST_HALF_RANK == 1.0

    def test_halves_with_each_half_rank_of_later_memories(self) -> None:
        assert w.file_newest_bonus(0) == w.FILE_NEWEST_BONUS
        half = w.FILE_NEWEST_HALF_RANK
        assert w.file_newest_bonus(round(half)) == pytest.approx(w.FILE_NEWEST_BONUS / 2)
        assert w.file_newest_bonus(-3) == w.FILE_NEWEST_BONUS
        values = [w.file_newest_bonus(n) for n in range(60)]
        assert all(a > b > 0 for a, b in pairwise(values))

    def test_orders_a_files_memories_without_outranking_another_file(self) -> None:
        # below the origin bonus, and never enough (with full recency) to lift a crowded
        # file's newest memory over the sole owner of a touched file
        assert w.FILE_NEWEST_BONUS < w.ORIGIN_BONUS
        crowded = w.file_affinity(46) + w.FILE_NEWEST_BONUS + w.recency_top()
        assert crowded < w.file_affinity(1)

    def test_fades_to_none_once_the_file_has_gone_quiet_for_half_a_year(self) -> None:
        assert w.NEWEST_QUIET_FADE == 1.0
        assert w.newest_quiet_scale(0.0) == 1.0
        assert w.newest_quiet_scale(w.ORIGIN_QUIET_DAYS / 4) == pytest.approx(0.75)
        assert w.newest_quiet_scale(w.ORIGIN_QUIET_DAYS) == 0.0
        assert w.newest_quiet_scale(3 * w.ORIGIN_QUIET_DAYS) == 0.0
        values = [w.newest_quiet_scale(day) for day in range(0, 200)]
        assert all(a >= b for a, b in pairwise(values))

    def test_a_variant_sets_the_fade_the_function_reads(self) -> None:
        from bench.quality_session import patched

        with patched({"NEWEST_QUIET_FADE": 0.0}):
            assert w.newest_quiet_scale(w.ORIGIN_QUIET_DAYS) == 1.0
        with patched({"NEWEST_QUIET_FADE": 0.5}):
            assert w.newest_quiet_scale(w.ORIGIN_QUIET_DAYS) == pytest.approx(0.5)
        assert w.newest_quiet_scale(w.ORIGIN_QUIET_DAYS) == 0.0

    def test_later_memories_are_counted_until_the_bonus_is_negligible(self) -> None:
        assert w.FILE_NEWEST_NEGLIGIBLE == 1e-6
        depth = w.file_newest_depth()
        assert depth == 15
        assert w.file_newest_bonus(depth) < w.FILE_NEWEST_NEGLIGIBLE
        assert w.file_newest_bonus(depth - 1) >= w.FILE_NEWEST_NEGLIGIBLE


class TestCrowdedFiles:
    def test_a_file_channel_passes_on_at_most_three_thousand(self) -> None:
        assert w.FILE_CANDIDATES_MAX == 3000

    def test_the_most_crowded_file_of_the_shared_histories_is_ranked_whole(self) -> None:
        assert w.FILE_CANDIDATES_MAX > 1941  # networkmanager's ChangeLog

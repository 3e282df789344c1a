"""The distill heuristic: which commit messages carry knowledge, and what memory each gives.

No git here: commits are built in memory, so every rule is pinned by a direct example.
"""

from __future__ import annotations

import pytest

from recall import distill_words
from recall.distill import Commit, category_of, clean_subject, heuristic, sentences
from recall.distill.heuristic import history_reason
from recall.model import CATEGORIES


def commit(message: str, files: tuple[str, ...] = ("src/app.py",)) -> Commit:
    """A commit with ``message`` that changed ``files``."""
    return Commit("0" * 40, "Dev", message, files)


def test_constants_anchor_points() -> None:
    assert distill_words.MAX_PER_SESSION == 3
    assert distill_words.DEFAULT_CATEGORIES == ("gotcha", "decision")
    assert distill_words.SWEEP_FILES == 20
    assert distill_words.SUMMARY_MAX == 120
    assert distill_words.DETAILS_MAX == 600
    assert distill_words.MAX_COMMITS == 200
    assert distill_words.COMMAND_TIMEOUT == 60.0
    assert set(distill_words.KEYWORDS) <= set(CATEGORIES)
    # the brief's words, each in the category it suggests
    for word in ("never", "don't", "must", "always", "workaround", "gotcha"):
        assert word in distill_words.KEYWORDS["gotcha"]
    for word in ("because", "why", "chose"):
        assert word in distill_words.KEYWORDS["decision"]
    assert list(distill_words.KEYWORDS)[:2] == ["gotcha", "decision"]  # the priority order


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("Never call flush() from the signal handler", "gotcha"),
        ("Don’t cache tokens across tenants", "gotcha"),  # a curly apostrophe
        ("do NOT reuse the session", "gotcha"),
        ("Workaround for the proxy stripping headers", "gotcha"),
        ("Use WAL because readers block otherwise", "gotcha"),  # a warning beats a reason
        ("Pick zstd because it decodes faster", "decision"),
        ("Chose rsync rather than scp", "decision"),
        ("Prefer dataclasses over dicts here", "pref"),
        ("Note that the cache lives in /var", "context"),
        ("Bump version to 1.2", None),
        ("Nevertheless, tidy the mustard module", None),  # whole words only
        ("Add whyever helper", None),
    ],
)
def test_category_from_keywords(text: str, category: str | None) -> None:
    assert category_of([text]) == category


@pytest.mark.parametrize(
    ("subject", "summary"),
    [
        ("fix(upload): retry twice before failing (#12)", "Retry twice before failing"),
        ("feat!: never log request bodies.", "Never log request bodies"),
        ("Use WAL mode [DB-42]", "Use WAL mode"),
        ("  keep   the  lock   short ", "Keep the lock short"),
    ],
)
def test_summary_is_the_cleaned_first_line(subject: str, summary: str) -> None:
    assert clean_subject(subject) == summary


def test_long_summary_is_cut_at_a_word_with_an_ellipsis() -> None:
    long = "Never " + "retry the upload again " * 10
    summary = clean_subject(long)
    assert len(summary) <= distill_words.SUMMARY_MAX
    assert summary.endswith("…") and not summary.endswith(" …")


def test_details_are_the_body_sentence_carrying_the_keyword() -> None:
    found = heuristic(
        commit(
            "fix: retry the upload\n\n"
            "The storage API drops the first request after idle, so we\n"
            "retry. Never lower the retry count below two.\n\n"
            "Signed-off-by: Dev <dev@example.com>\n"
        )
    )
    assert found is not None
    assert found.category == "gotcha"
    assert found.summary == "Retry the upload"
    assert found.details == "Never lower the retry count below two."
    assert found.files == ("src/app.py",)


def test_keyword_only_in_the_subject_gives_no_details() -> None:
    found = heuristic(commit("Don't cache auth tokens across tenants\n\nAdds a test."))
    assert found is not None
    assert (found.category, found.summary, found.details) == (
        "gotcha",
        "Don't cache auth tokens across tenants",
        "",
    )


def test_bullets_are_sentences_of_their_own() -> None:
    lines = ["Changes:", "- move the parser", "- always close the handle, or", "  the file stays"]
    assert sentences(lines) == [
        "Changes:",
        "move the parser",
        "always close the handle, or the file stays",
    ]
    found = heuristic(commit("Tidy the reader\n\n" + "\n".join(lines)))
    assert found is not None and found.details == "always close the handle, or the file stays"


def test_trailers_carry_no_knowledge() -> None:
    assert heuristic(commit("Tidy imports\n\nReviewed-by: Must Never <m@example.com>")) is None


@pytest.mark.parametrize(
    "message",
    [
        'Revert "Never cache tokens"\n\nThis reverts commit 1a2b3c4d5e because it broke login.',
        "fixup! never cache tokens",
        "squash! always close files",
        "Bump version to 1.2",
        "",
    ],
)
def test_commits_without_knowledge_give_nothing(message: str) -> None:
    assert heuristic(commit(message)) is None


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ('Revert "Never cache tokens"\n\nThis reverts commit 1a2b3c4d5e6f.', "a revert commit"),
        ("Undo the token cache\n\nThis reverts commit 1a2b3c4d5e6f.", "a revert commit"),
        ('Revert "Never cache tokens"', "a revert commit"),
        ("fixup! never cache tokens", "a fixup! commit"),
        ("squash! always close files", "a squash! commit"),
        ("amend! always close files", "an amend! commit"),
    ],
)
def test_a_history_commit_is_skipped_naming_its_kind(message: str, kind: str) -> None:
    reason = history_reason(commit(message))
    assert reason is not None and reason.startswith(kind + ", ")
    assert reason.endswith(": no knowledge of its own")


def test_history_reasons_cover_every_kind_the_rule_skips() -> None:
    kinds = {"revert", "fixup!", "squash!", "amend!", "merge"}
    assert set(distill_words.HISTORY_REASONS) == kinds
    assert {p.rstrip() for p in distill_words.FOLD_PREFIXES} | {"revert", "merge"} == kinds
    assert distill_words.FOLD_PREFIXES == ("fixup! ", "squash! ", "amend! ")
    assert distill_words.REVERT_SUBJECT == 'Revert "'
    assert history_reason(commit("Never cache tokens: they leak across tenants")) is None
    assert history_reason(commit("")) is None


def test_a_merge_is_known_by_its_parents_not_its_subject() -> None:
    two = ("1" * 40, "2" * 40)
    merge = Commit("0" * 40, "Dev", "Sync with main", ("src/app.py",), two)
    reason = history_reason(merge)
    assert reason is not None and reason.startswith("a merge commit, ")
    assert heuristic(Commit("0" * 40, "Dev", "Never cache tokens", ("src/app.py",), two)) is None


@pytest.mark.parametrize(
    "message",
    [
        "Merge sort must be stable: never swap equal keys, the report order depends on it",
        "Revert to polling: never hold the socket open across a fork",
        "Reverting the pool never frees its handles, so close them first",
        "FIXUP! never cache tokens",  # not git's mark: git writes and reads it in lower case
        "fixup!never cache tokens",
    ],
)
def test_a_subject_that_only_starts_like_history_is_read_for_knowledge(message: str) -> None:
    assert history_reason(commit(message)) is None
    found = heuristic(commit(message))
    assert found is not None and found.category == "gotcha"


def test_a_subject_that_cleans_to_nothing_gives_way_to_the_sentence() -> None:
    found = heuristic(commit("fix: .\n\nThe cron job must run as UTC."))
    assert found is not None
    assert (found.summary, found.details) == ("The cron job must run as UTC.", "")

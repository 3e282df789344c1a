"""Tests for the prompt sanitizer: real-shaped pastes, each noise family, and fuzzing."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recall.ranking.sanitize import (
    PASTE_SHARE,
    QUERY_MAX_CHARS,
    WHOLE_MAX_CHARS,
    SanitizedPrompt,
    asks,
    sanitize_prompt,
)
from recall.ranking.sanitize.asks import STOCK_ASK_WORDS, names_something

PASTES = Path(__file__).parent / "fixtures" / "pastes"

FIXTURES = [
    (
        "python_traceback.txt",
        "question",
        "Why does the export still give up on the database lock when the batch size is above "
        "200, and is the cross-device rename error related?",
        {"traceback", "log lines"},
    ),
    (
        "ts_compiler_errors.txt",
        "question",
        "Is there a way to make the JWT secret non-nullable once at startup instead of "
        "asserting it in every call site?",
        {"compiler errors"},
    ),
    (
        "unified_diff.txt",
        "question",
        "Should the backoff also add jitter so that parallel uploads do not retry in lockstep?",
        {"diff"},
    ),
    (
        "log_dump.txt",
        "prose-line",
        "Worker pool stops picking up jobs after the redis failover, logs from the last "
        "restart below",
        {"log lines"},
    ),
    (
        "plain_question.txt",
        "prose",
        "How do we keep the billing webhook idempotent when Stripe retries the same event?",
        set(),
    ),
    (
        "node_stack.txt",
        "question",
        "the daily report job only fails on the first run after a deploy, any idea what makes "
        "the pool time out?",
        {"stack trace"},
    ),
    (
        "rust_compile.txt",
        "question",
        "What is the idiomatic way to update an LRU entry in place without fighting the borrow "
        "checker?",
        {"compiler errors"},
    ),
    (
        "go_panic.txt",
        "question",
        "Why is the session manager nil only when the heartbeat arrives before the first login?",
        {"stack trace"},
    ),
    (
        "java_trace.txt",
        "question",
        "Which module validates the order dates before the row mapper sees them?",
        {"stack trace"},
    ),
]


@pytest.mark.parametrize(("name", "strategy", "query", "kinds"), FIXTURES)
def test_real_shaped_pastes(name: str, strategy: str, query: str, kinds: set[str]) -> None:
    result = sanitize_prompt((PASTES / name).read_text())
    assert result.query == query
    assert result.strategy == strategy
    assert kinds <= set(result.removed)


def test_python_traceback_fixture_is_three_kilobytes_with_question_last() -> None:
    text = (PASTES / "python_traceback.txt").read_text()
    assert 2800 <= len(text) <= 3600
    assert text.rstrip().endswith("?")


def test_every_fixture_is_covered() -> None:
    assert {p.name for p in PASTES.glob("*.txt")} == {f[0] for f in FIXTURES}


class TestFences:
    def test_backtick_fence_content_is_dropped(self) -> None:
        text = "```python\nwhy_not = maybe?  # does this look like a question?\n```\nHelp me."
        result = sanitize_prompt(text)
        assert result == SanitizedPrompt("Help me.", ["code fence"], "whole")

    def test_tilde_fence_and_longer_closing_run(self) -> None:
        text = "~~~~\nIs this inside?\n~~~~~~\nWhat does the retry wrapper do on timeout?"
        result = sanitize_prompt(text)
        assert result.query == "What does the retry wrapper do on timeout?"
        assert result.removed == ["code fence"]

    def test_shorter_or_other_closing_fence_does_not_close(self) -> None:
        text = "````\n```\nstill code here?\n~~~\nmore code?\n````\nWhere is the cache flushed?"
        assert sanitize_prompt(text).query == "Where is the cache flushed?"

    def test_unterminated_fence_swallows_the_rest(self) -> None:
        text = "Why does the build fail in CI?\n```\nnpm ERR! code ELIFECYCLE\nreally?"
        result = sanitize_prompt(text)
        assert result.query == "Why does the build fail in CI?"
        assert result.removed == ["code fence"]

    def test_inline_triple_backticks_are_not_a_fence(self) -> None:
        text = "Should ```retry()``` wrap the upload call?"
        assert sanitize_prompt(text).query == text

    def test_fence_indented_four_spaces_is_not_a_fence(self) -> None:
        result = sanitize_prompt("    ```\nHow do I pin a memory?")
        assert result.query == "How do I pin a memory?"


LOG_LINES = "".join(
    f"2024-05-02 09:41:{n:02d},118 ERROR worker: job {n} failed after all the retries ran out\n"
    for n in range(8)
)


class TestPlainProse:
    """A prompt that is not mostly machine output is the person's words: all of them count."""

    def test_a_statement_and_a_question_are_both_kept(self) -> None:
        text = "The payment webhook keeps firing.\nAny idea?"
        assert sanitize_prompt(text) == SanitizedPrompt(
            "The payment webhook keeps firing. Any idea?", [], "prose"
        )

    def test_a_question_first_keeps_the_sentence_after_it(self) -> None:
        text = "Can you look at this? The payment webhook keeps firing."
        assert sanitize_prompt(text).query == text

    def test_every_sentence_around_the_question_is_kept(self) -> None:
        text = "Is the cache warm? I restarted it twice. Why does the first request still miss?"
        assert sanitize_prompt(text).query == text

    def test_every_prose_line_is_kept_in_order(self) -> None:
        text = "first describe the cache layer.\n\nthen fix the flush ordering bug.\n$ make test"
        result = sanitize_prompt(text)
        assert result.query == "first describe the cache layer. then fix the flush ordering bug."
        assert result.strategy == "prose"

    def test_a_short_paste_is_dropped_and_the_prose_around_it_kept(self) -> None:
        text = (
            "The payment webhook keeps firing since the deploy this morning, see the log:\n"
            "2024-05-02 09:41:07 ERROR webhook: retry 5\n"
            "Any idea?"
        )
        result = sanitize_prompt(text)
        assert result.query == (
            "The payment webhook keeps firing since the deploy this morning, see the log: Any idea?"
        )
        assert result.removed == ["log lines"]

    def test_paste_share_is_half(self) -> None:
        assert PASTE_SHARE == 0.5

    def test_half_machine_output_is_still_prose_and_more_is_a_paste(self) -> None:
        log = "2024-05-02 09:41:07 ERROR job failed"
        prose = "the queue stops too soon"
        assert len(log) == len(prose) + len("Why so slow?")  # the log is half the text
        half = sanitize_prompt(f"{prose}\n{log}\nWhy so slow?")
        assert half.strategy == "prose"
        assert half.query == f"{prose} Why so slow?"
        over = sanitize_prompt(f"{prose}\n{log}x\nWhy so slow?")
        assert over == SanitizedPrompt("Why so slow?", ["log lines"], "question")


class TestQuestionPicking:
    """A prompt that is mostly machine output is searched by its last question alone."""

    def test_last_question_sentence_wins(self) -> None:
        text = LOG_LINES + "Is the cache warm? I restarted it twice. Why does it still miss?"
        assert sanitize_prompt(text).query == "Why does it still miss?"

    def test_question_followed_by_thanks(self) -> None:
        text = LOG_LINES + "Why is the lockfile rewritten on every install? Thanks."
        result = sanitize_prompt(text)
        assert result.query == "Why is the lockfile rewritten on every install?"
        assert result.strategy == "question"

    def test_prose_the_log_patterns_miss_is_not_searched(self) -> None:
        text = LOG_LINES + "the consumer lost its connection to the broker\n" + LOG_LINES + "why?!"
        text += "\nwhy does this fail?"
        assert sanitize_prompt(text).query == "why does this fail?"

    def test_wrapped_question_is_rejoined(self) -> None:
        text = "Why does the session middleware\nreject tokens issued by the staging issuer?"
        assert sanitize_prompt(text).query == (
            "Why does the session middleware reject tokens issued by the staging issuer?"
        )

    def test_question_mark_inside_code_is_not_a_question(self) -> None:
        text = "const v = ok ? a : b;\nlet y = parse(x)?;\nrefactor the parser module"
        result = sanitize_prompt(text)
        assert result.strategy == "prose"
        assert result.query == "refactor the parser module"

    def test_one_word_question_is_not_enough(self) -> None:
        text = "Why does the sync job hang after midnight?\nWhy?"
        assert sanitize_prompt(text).query == "Why does the sync job hang after midnight?"

    def test_question_in_parentheses(self) -> None:
        text = "The rename fails (is it the cross-device link?)"
        assert sanitize_prompt(text).query == "The rename fails (is it the cross-device link?)"

    def test_long_question_is_capped_keeping_its_end(self) -> None:
        text = "Why " + "does this keep going " * 60 + "and never stop?"
        result = sanitize_prompt(LOG_LINES * 8 + text)
        assert result.strategy == "question"
        assert len(result.query) <= QUERY_MAX_CHARS
        assert result.query.endswith("and never stop?")
        assert text.endswith(result.query)


WEBHOOK_LOG = "".join(
    f"2024-05-02T09:41:{n:02d}.118Z ERROR [worker-3] webhook: retry {n} failed\n" for n in range(30)
)


class TestAskNamingNothing:
    """A paste whose ask names nothing ("Any idea?") is searched by the prose around it, else
    by the error it ends on: never by the ask alone."""

    @pytest.mark.parametrize(
        "ask", ["Any idea?", "what's wrong?", "Can you help?", "Any idea what is going on here?"]
    )
    def test_stock_asks_name_nothing(self, ask: str) -> None:
        assert not names_something(ask)

    @pytest.mark.parametrize(
        "ask",
        [
            "why does this fail?",
            "can the bus drop frames?",
            "Why so slow?",
            "Thoughts on the cache?",
        ],
    )
    def test_an_ask_with_a_subject_names_it(self, ask: str) -> None:
        assert names_something(ask)

    def test_stock_ask_words_point_at_the_paste_and_name_no_subject(self) -> None:
        assert {"idea", "wrong", "help", "error", "log", "can"} <= STOCK_ASK_WORDS
        assert STOCK_ASK_WORDS.isdisjoint({"fail", "slow", "cache", "webhook", "retry", "bus"})

    @pytest.mark.parametrize("ask", ["Any idea?", "what's wrong?", "Can you help?"])
    def test_the_sentence_introducing_the_paste_is_searched(self, ask: str) -> None:
        intro = "The payment webhook keeps firing, log below:"
        result = sanitize_prompt(f"{intro}\n{WEBHOOK_LOG}{ask}")
        assert result == SanitizedPrompt(intro, ["log lines"], "around-paste")

    def test_prose_after_the_paste_is_searched_with_the_prose_before(self) -> None:
        text = f"Webhook log:\n{WEBHOOK_LOG}It started after the stripe upgrade.\nAny idea?"
        assert sanitize_prompt(text).query == "It started after the stripe upgrade."

    def test_prose_inside_the_paste_is_not_searched(self) -> None:
        text = WEBHOOK_LOG + "the consumer lost its connection to the broker\n" + WEBHOOK_LOG
        result = sanitize_prompt(text + "Any idea?")
        assert result == SanitizedPrompt(
            "ERROR [worker-3] webhook: retry 29 failed", ["log lines"], "paste-error"
        )

    def test_without_prose_a_traceback_gives_its_exception(self) -> None:
        text = (
            "Traceback (most recent call last):\n"
            '  File "app/pay.py", line 3, in handler\n'
            "    charge(order)\n"
            "[2024-05-02 09:41:07,118] ERROR pay: charge aborted\n"
            "KeyError: 'STRIPE_KEY'\n"
            "what's wrong?"
        )
        assert sanitize_prompt(text) == SanitizedPrompt(
            "KeyError: 'STRIPE_KEY'", ["traceback", "log lines", "stack trace"], "paste-error"
        )

    def test_without_prose_compiler_output_gives_its_first_error(self) -> None:
        text = (PASTES / "rust_compile.txt").read_text().rstrip().rsplit("\n", 1)[0]
        result = sanitize_prompt(text + "\nAny idea?")
        assert result.strategy == "paste-error"
        assert result.query.startswith("error[E0502]: cannot borrow `self.index` as mutable")

    def test_a_log_one_word_ask_gives_its_last_error(self) -> None:
        result = sanitize_prompt(WEBHOOK_LOG + "Thoughts?")
        assert result.query == "ERROR [worker-3] webhook: retry 29 failed"

    def test_a_paste_saying_no_error_keeps_the_ask(self) -> None:
        text = "-const retries = 3\n+const retries = 5\n-const wait = 1\n+const wait = 2\nAny idea?"
        assert sanitize_prompt(text) == SanitizedPrompt("Any idea?", ["diff"], "question")

    def test_an_error_marker_counts_only_near_the_start_of_a_long_line(self) -> None:
        """A line is searched for its error marker up to ``_MARKER_REACH`` characters in:
        one within is the paste's error, one beyond (in a message) is not."""
        assert asks._MARKER_REACH == 400
        within = "k=v " * 98 + "ERROR pay: charge aborted"  # the marker at character 393
        beyond = "k=v " * 100 + "ERROR pay: charge aborted"  # at 401
        assert asks.telling_line([within], [False]) == "ERROR pay: charge aborted"
        assert asks.telling_line([beyond], [False]) is None


class TestNoiseFamilies:
    def test_js_stack_frames(self) -> None:
        text = (
            "TypeError: Cannot read properties of undefined (reading 'map')\n"
            "    at renderRows (webpack-internal:///./src/Table.tsx:41:23)\n"
            "    at async Promise.all (index 0)\n"
            "    at Object.<anonymous> (/app/src/index.js:3:1)\n"
            "    at new Promise (<anonymous>)\n"
            "Why are rows undefined on the first render?"
        )
        result = sanitize_prompt(text)
        assert result.query == "Why are rows undefined on the first render?"
        assert "stack trace" in result.removed

    def test_typescript_both_formats(self) -> None:
        text = (
            "src/x.ts(12,5): error TS2345: Argument of type 'number' is not assignable.\n"
            "src/y.ts:3:9 - error TS2304: Cannot find name 'foo'.\n"
            "fix the imports in the shared types package"
        )
        result = sanitize_prompt(text)
        assert result == SanitizedPrompt(
            "fix the imports in the shared types package", ["compiler errors"], "prose-line"
        )

    def test_gcc_and_mypy_locations(self) -> None:
        text = (
            "src/io.c:88:14: warning: unused variable 'n' [-Wunused-variable]\n"
            'app/models.py:12: error: Incompatible return value type (got "int")\n'
            "clean up the warnings in the io layer"
        )
        assert sanitize_prompt(text).query == "clean up the warnings in the io layer"

    def test_log_levels_timestamps_and_logfmt(self) -> None:
        text = (
            "2024-05-02 09:41:07,118 ERROR worker: job failed after all the retries ran out\n"
            "[12:03:44] WARN cache miss storm detected on the primary shard again\n"
            "ERROR:root:connection reset by peer while reading the response body\n"
            'ts=2024-05-02T09:41:07Z level=error msg="could not flush the queue to disk"\n'
            "E0502 09:41:07.118000 1 reflector.go:138] watch of the pods failed\n"
            "May  2 09:54:01 app-7 kernel: out of memory: killed the worker process\n"
        )
        result = sanitize_prompt(text)
        assert result == SanitizedPrompt("", ["log lines"], "empty")

    def test_diff_headers_and_hunks(self) -> None:
        text = (
            "diff --git a/a.py b/a.py\n"
            "index 1111111..2222222 100644\n"
            "--- a/a.py\n"
            "+++ b/a.py\n"
            "@@ -1,3 +1,3 @@\n"
            " def handle the request and return the response body():\n"
            "-    return the old value that was wrong for the cache\n"
            "+    return the new value that is right for the cache\n"
            "\n"
            "Does the new return value break the cache contract?"
        )
        result = sanitize_prompt(text)
        assert result.query == "Does the new return value break the cache contract?"
        assert result.removed == ["diff"]

    def test_plus_minus_lines_without_headers(self) -> None:
        text = "-const retries = 3\n+const retries = 5\nbump the retries for flaky uploads"
        result = sanitize_prompt(text)
        assert result.query == "bump the retries for flaky uploads"
        assert result.removed == ["diff"]

    def test_markdown_bullets_are_kept(self) -> None:
        text = "- rename the upload helper\n- keep the retry budget\n"
        result = sanitize_prompt(text)
        assert result.query == "- rename the upload helper - keep the retry budget"
        assert result.removed == []

    def test_hunk_without_counts_runs_to_a_blank_line(self) -> None:
        text = "@@ fix @@\n a\n-removed line of code here\n+added line of code here\n\nok?"
        result = sanitize_prompt(text)
        assert result.removed == ["diff"]
        assert "added" not in result.query

    def test_python_traceback_without_indentation(self) -> None:
        text = (
            'File "app/main.py", line 3, in handler\n'
            "return load_the_config_from_the_environment(now)\n"
            "KeyError: 'DATABASE_URL'\n"
            "Where should DATABASE_URL be set for the worker?"
        )
        result = sanitize_prompt(text)
        assert result.query == "Where should DATABASE_URL be set for the worker?"
        assert "traceback" in result.removed

    def test_pytest_report(self) -> None:
        text = (
            "=================================== FAILURES ===================================\n"
            "______________________________ test_rename_atomic ______________________________\n"
            ">       assert dst.read_text() == 'new'\n"
            "E       AssertionError: assert 'old' == 'new'\n"
            "tests/test_io.py:41: AssertionError\n"
            "FAILED tests/test_io.py::test_rename_atomic - AssertionError: assert 'old' == 'new'\n"
            "why is the destination still holding the old content?"
        )
        result = sanitize_prompt(text)
        assert result.query == "why is the destination still holding the old content?"
        assert "test output" in result.removed

    def test_indented_code_dropped_but_indented_prose_kept(self) -> None:
        text = (
            "    for row in rows:\n"
            "        total += row.amount\n"
            "        counted[row.kind] = counted.get(row.kind, 0) + 1\n"
            "    explain the loop above"
        )
        result = sanitize_prompt(text)
        assert result.query == "explain the loop above"
        assert result.removed == ["indented code"]


class TestFallbacks:
    def test_plain_prose_line(self) -> None:
        result = sanitize_prompt("Add a retry budget to the upload client")
        assert result == SanitizedPrompt("Add a retry budget to the upload client", [], "prose")

    def test_last_prose_line_of_a_paste_wins(self) -> None:
        text = "first describe the cache layer\n" + LOG_LINES + "then fix the flush ordering bug"
        result = sanitize_prompt(text + "\n$ make test")
        assert result == SanitizedPrompt(
            "then fix the flush ordering bug", ["log lines"], "prose-line"
        )

    def test_short_non_prose_text_is_used_whole(self) -> None:
        result = sanitize_prompt("safeRename auth/middleware.ts\n")
        assert result == SanitizedPrompt("safeRename auth/middleware.ts", [], "whole")

    def test_long_non_prose_text_gives_empty(self) -> None:
        text = "\n".join(f"src/module_{i}/file_{i}.ts" for i in range(40))
        result = sanitize_prompt(text)
        assert len(text) > WHOLE_MAX_CHARS
        assert result == SanitizedPrompt("", [], "empty")

    @pytest.mark.parametrize("text", ["", "   \n\t\n", "\n\n\n"])
    def test_blank_input(self, text: str) -> None:
        assert sanitize_prompt(text) == SanitizedPrompt("", [], "empty")

    def test_only_noise_gives_empty_with_kinds(self) -> None:
        text = (
            '```\ncode\n```\nTraceback (most recent call last):\n  File "x.py", line 1\nValueError'
        )
        assert sanitize_prompt(text) == SanitizedPrompt("", ["code fence", "traceback"], "empty")


STRATEGIES = {"prose", "question", "prose-line", "around-paste", "paste-error", "whole", "empty"}
SAFE_ALPHABET = st.characters(blacklist_characters="`~", blacklist_categories=("Cs",))


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=2000))
def test_any_text_gives_a_well_formed_result(text: str) -> None:
    result = sanitize_prompt(text)
    assert result.strategy in STRATEGIES
    assert (result.query == "") == (result.strategy == "empty")
    assert len(result.query) <= QUERY_MAX_CHARS
    assert result.query == result.query.strip()
    for token in result.query.split():
        assert token in text


NOISY_LINES = st.sampled_from(
    [
        "Traceback (most recent call last):",
        '  File "/srv/app/x.py", line 12, in run',
        "    return go(now)",
        "ValueError: bad thing happened",
        "    at fn (/app/src/a.ts:1:2)",
        "src/a.ts(1,2): error TS2322: Type 'x' is not assignable.",
        "2024-01-01T00:00:00Z INFO started",
        "@@ -1,2 +1,2 @@",
        "-old",
        "+new",
        "diff --git a/x b/x",
        "",
        "plain words in a line",
        "x = y ? 1 : 2",
    ]
)
QUESTIONS = st.sampled_from(
    [
        "Why does the upload retry forever?",
        "How do I rotate the signing key?",
        "is the cache flushed before shutdown?",
        "What breaks if I rename safeRename to atomicRename?",
    ]
)


@settings(max_examples=300)
@given(
    st.lists(st.one_of(NOISY_LINES, st.text(SAFE_ALPHABET, max_size=80)), max_size=30), QUESTIONS
)
def test_question_after_any_fence_free_paste_is_found(lines: list[str], question: str) -> None:
    text = "\n".join(lines) + "\n\n" + question
    result = sanitize_prompt(text)
    assert result.query.endswith(question)
    if result.strategy != "prose":  # a paste: its question alone
        assert result == SanitizedPrompt(question, result.removed, "question")


@settings(max_examples=300)
@given(
    st.text(SAFE_ALPHABET, max_size=300),
    st.text(st.characters(blacklist_characters="`", blacklist_categories=("Cs",)), max_size=200),
    st.text(SAFE_ALPHABET, max_size=300),
    st.sampled_from([("```", "```"), ("````", "`````"), ("```python", "```"), ("~~~ts", "~~~")]),
)
def test_fence_content_never_reaches_the_query(
    before: str, body: str, after: str, fences: tuple[str, str]
) -> None:
    marker = "QZXFENCEMARKER"
    fence, closing = fences
    if fence[0] == "~":
        body = body.replace("~", "")
    text = f"{before}\n{fence}\n{body} {marker} {body}\n{closing}\n{after}"
    result = sanitize_prompt(text)
    assert marker not in result.query
    assert "code fence" in result.removed


def test_megabyte_paste_completes() -> None:
    paste = (PASTES / "python_traceback.txt").read_text()
    text = (paste * (1_000_000 // len(paste) + 1))[:1_000_000] + "\nWhy is the lock held?"
    result = sanitize_prompt(text)
    assert result.query == "Why is the lock held?"


@pytest.mark.parametrize(
    "text",
    [
        " " * 1_000_000 + "x?",
        "word " * 200_000,
        "?" * 300_000,
        "why?\n" * 50_000,
        "a." * 150_000,
        "at " + "x:1" * 100_000,
        "a" + ".b" * 150_000,
        " |" * 150_000,
        "~" * 300_000,
        "`" * 300_000,
        "```\n" * 60_000,
        "+x\n-y\n" * 40_000,
        "@@ -1,9 +1,9 @@\n" + " x\n" * 100_000,
        "the cache drops writes after the flush\n" * 8_000,
        "Why. " * 60_000,
        "import " + " " * 300_000 + "(",
        "E  " + " ." * 150_000,
    ],
    ids=lambda t: repr(t[:12]),
)
def test_pathological_inputs_stay_linear(text: str) -> None:
    result = sanitize_prompt(text)
    assert result.strategy in STRATEGIES
    assert len(result.query) <= QUERY_MAX_CHARS

"""Prompts as agents send them: pasted tracebacks and text hostile to FTS5's query syntax.

A 3 KB traceback with the question on its last line must retrieve by the question, not by
the frame paths and exception names above it. No prompt, however hostile to FTS5's MATCH
syntax (operators, quotes, unbalanced parentheses, NUL, emoji, lone surrogates), may raise.
"""

from __future__ import annotations

import pytest

from .world import World, describe, hit_of, ids

QUESTION = "why does a crash while saving leave a half-written session file?"


def traceback_paste(question: str, size: int = 3000) -> str:
    """A Python traceback of about ``size`` characters, chained, with ``question`` last."""
    frames = []
    n = 0
    while sum(len(f) for f in frames) < size:
        frames.append(
            f'  File "/srv/shop/store/store_{n}.py", line {100 + n}, in flush_batch\n'
            f"    self._write_payload(path, handle, batch_{n})\n"
        )
        n += 1
    return (
        "Traceback (most recent call last):\n"
        + "".join(frames)
        + "OSError: [Errno 28] No space left on device while writing payload batch\n"
        + "\nDuring handling of the above exception, another exception occurred:\n\n"
        + "Traceback (most recent call last):\n"
        + '  File "/srv/shop/jobs/flush.py", line 91, in run\n'
        + '    log.error("flush failed", exc_info=True)\n'
        + "ValueError: I/O operation on closed file handle during flush batch\n"
        + question
    )


def test_a_pasted_traceback_retrieves_by_the_question_on_its_last_line(world: World) -> None:
    world.history([["src/store.py", "src/jobs.py", "src/io.py"]])
    answer = world.remember(
        "session save must go through safeRename",
        "src/store.py",
        details="A crash while saving leaves a half-written session file unless written "
        "to a temp file and renamed.",
    )
    noise = [
        world.remember("flush batch payload: write the handle path per batch", "src/jobs.py"),
        world.remember("OSError errno 28: no space left on device while writing", "src/io.py"),
        world.remember("ValueError: I/O operation on closed file handle in flush", "src/io.py"),
        world.remember("store flush_batch writes payload batches through the handle", "src/io.py"),
    ]
    paste = traceback_paste(QUESTION)
    assert 2900 <= len(paste.encode()) <= 4000

    result = world.recall(prompt=paste)

    assert result.query_text == QUESTION
    assert ids(result)[0] == answer, describe(result)
    assert hit_of(result, answer).strong
    for memory_id in noise:
        assert memory_id not in ids(result)[:1]


HOSTILE = [
    "foo AND (bar",
    '"',
    '""""',
    "NEAR(",
    "NEAR(a b, 2",
    "a OR OR NOT b",
    "col:term summary:flush",
    "^flush *",
    "- -- ;'",
    "🔥💥🧨 flush 🙂",
    "safe_rename💥 and 💥_x",
    "nul \x00 inside \x00flush\x00",
    "\x00\x00\x00",
    "(((((((",
    'flush_"quoted"_name',
    "`backticked_name`",
    "x" * 20_000,
    "\u202eflush\u202c \u200b",
    "",
    "   \n\t  ",
]


@pytest.mark.parametrize("prompt", HOSTILE, ids=[repr(p)[:24] for p in HOSTILE])
def test_hostile_prompts_never_raise(world: World, prompt: str) -> None:
    world.history([["src/store.py"]])
    note = world.remember("flush the store before close", "src/store.py")

    result = world.recall("src/store.py", prompt=prompt)

    assert ids(result)[0] == note  # the file hit survives whatever the text says


@pytest.mark.parametrize(
    "prompt",
    [
        "why does safe_\udcffrename fail?",  # what argv gives for invalid UTF-8 (surrogateescape)
        "does flush_\ud83d break?",  # what json.loads gives for a lone "\\ud83d" escape
    ],
    ids=["argv-surrogateescape", "json-lone-surrogate"],
)
def test_prompts_with_lone_surrogates_never_raise(world: World, prompt: str) -> None:
    world.history([["src/store.py"]])
    note = world.remember("flush the store before close", "src/store.py")

    result = world.recall("src/store.py", prompt=prompt)

    assert ids(result)[0] == note

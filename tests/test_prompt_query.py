"""What a prompt searches for, seen through the public commands: a prompt of plain prose is
searched whole (its question and the sentences around it); a prompt that is mostly pasted
machine output is cut down to its question, so the paste is never searched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import make_repo, run_tether

from tests.mcp.raw_wire import INITIALIZE, INITIALIZED, line, server_answers, tool_call

GOTCHA = "the payment webhook retries forever"
# Other memories, so that the words of a prompt weigh as they do in a real store (in a store of
# one memory every word is in all of them and counts for nothing).
OTHERS = [
    ("store save must be atomic", "store.py"),
    ("buttons use the shared theme colours", "ui.py"),
    ("sessions expire after an hour of idle time", "store.py"),
]

PLAIN_PROMPTS = [
    "The payment webhook keeps firing.",
    "The payment webhook keeps firing.\nAny idea?",
    "Can you look at this? The payment webhook keeps firing.",
]
PROMPT_IDS = ["statement", "then-question", "question-first"]


@pytest.fixture
def pay_repo(tmp_path: Path) -> tuple[Path, str]:
    """A repository with a gotcha on ``pay.py`` and memories on other files: the root and the
    gotcha's id."""
    root = make_repo(tmp_path / "pay", {"pay.py": "x\n", "store.py": "y\n", "ui.py": "z\n"})
    for summary, path in OTHERS:
        other = run_tether("remember", summary, "-c", "decision", "-f", path, cwd=root)
        assert other.code == 0, other.stderr
    written = run_tether("--json", "remember", GOTCHA, "-c", "gotcha", "-f", "pay.py", cwd=root)
    assert written.code == 0, written.stderr
    return root, written.json()["id"]


def recall_json(root: Path, prompt: str) -> dict[str, object]:
    """``tether recall PROMPT --no-record --json`` in ``root``: its JSON answer."""
    done = run_tether("recall", prompt, "--no-record", "--json", cwd=root)
    assert done.code in (0, 1), done.stderr
    return done.json()


def prompt_hook(root: Path, prompt: str, session: str) -> str:
    """``tether hook prompt`` with a UserPromptSubmit input: the context it injects."""
    payload = json.dumps({"session_id": session, "cwd": str(root), "prompt": prompt})
    done = run_tether("hook", "prompt", cwd=root, stdin=payload)
    assert done.code == 0, done.stderr
    if not done.stdout:
        return ""
    return json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("prompt", PLAIN_PROMPTS, ids=PROMPT_IDS)
def test_recall_searches_all_the_prose_of_a_plain_prompt(
    pay_repo: tuple[Path, str], prompt: str
) -> None:
    root, memory_id = pay_repo
    found = recall_json(root, prompt)
    assert found["query"] == " ".join(prompt.split())
    assert [hit["id"] for hit in found["results"]] == [memory_id]  # type: ignore[union-attr]


@pytest.mark.parametrize("prompt", PLAIN_PROMPTS, ids=PROMPT_IDS)
def test_the_prompt_hook_injects_for_a_plain_prompt_with_a_question(
    pay_repo: tuple[Path, str], prompt: str
) -> None:
    root, memory_id = pay_repo
    context = prompt_hook(root, prompt, f"session-{PLAIN_PROMPTS.index(prompt)}")
    assert f"[gotcha] {memory_id} by " in context


def log_paste(lines: int) -> str:
    """``lines`` log lines about a queue, with continuation lines the log patterns do not
    recognise and that read as prose."""
    out = []
    for n in range(lines):
        out.append(f"2024-05-02T09:41:{n % 60:02d}.118Z ERROR [worker-3] queue: job {n} failed")
        if n % 20 == 0:
            out.append("the consumer lost its connection to the broker and gave up")
    return "\n".join(out)


def test_a_log_paste_with_a_question_searches_the_question_alone(
    pay_repo: tuple[Path, str],
) -> None:
    root, _ = pay_repo
    prompt = log_paste(200) + "\nwhy does this fail?"
    assert recall_json(root, prompt)["query"] == "why does this fail?"


def test_a_short_paste_in_a_prose_prompt_keeps_the_prose_around_it(
    pay_repo: tuple[Path, str],
) -> None:
    root, memory_id = pay_repo
    prose = "The payment webhook keeps firing since this morning's deploy, see the log:"
    prompt = f"{prose}\n2024-05-02 09:41:07 ERROR webhook: retry 5\nAny idea?"
    found = recall_json(root, prompt)
    assert found["query"] == f"{prose} Any idea?"
    assert [hit["id"] for hit in found["results"]] == [memory_id]  # type: ignore[union-attr]


def test_memory_recall_searches_all_the_prose_of_a_plain_prompt(
    pay_repo: tuple[Path, str],
) -> None:
    root, memory_id = pay_repo
    prompt = "Can you look at this? The payment webhook keeps firing."
    sent = [INITIALIZE, INITIALIZED, tool_call(2, "memory_recall", {"prompt": prompt})]
    answers = {a.get("id"): a for a in server_answers(root, b"".join(line(m) for m in sent))}
    found = answers[2]["result"]["structuredContent"]
    assert found["query"] == prompt
    assert [hit["id"] for hit in found["results"]] == [memory_id]


def inject_json(root: Path, prompt: str) -> dict[str, object]:
    """``tether inject --no-record --json`` with ``prompt`` on stdin in ``root``: its answer."""
    done = run_tether("inject", "--no-record", "--json", cwd=root, stdin=prompt)
    assert done.code == 0, done.stderr
    return done.json()


@pytest.mark.parametrize("ask", ["Any idea?", "what's wrong?"])
def test_inject_searches_the_prose_introducing_a_paste_whose_ask_names_nothing(
    pay_repo: tuple[Path, str], ask: str
) -> None:
    root, memory_id = pay_repo
    prompt = f"The payment webhook keeps firing, log below:\n{log_paste(200)}\n{ask}"
    found = inject_json(root, prompt)
    assert [hit["id"] for hit in found["results"]] == [memory_id]  # type: ignore[union-attr]


def test_inject_searches_the_error_of_a_paste_with_no_prose_and_an_empty_ask(
    pay_repo: tuple[Path, str],
) -> None:
    root, memory_id = pay_repo
    trace = (
        "Traceback (most recent call last):\n"
        '  File "app/pay.py", line 41, in handle\n'
        "    dispatch(event)\n"
        "RuntimeError: payment webhook retries exhausted\n"
    )
    found = inject_json(root, f"{log_paste(40)}\n{trace}Any idea?")
    assert [hit["id"] for hit in found["results"]] == [memory_id]  # type: ignore[union-attr]

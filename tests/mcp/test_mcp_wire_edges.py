"""The MCP server at the edges of the stdio wire, spoken to with raw lines: a client that
closes its input right after its requests still gets every answer; a malformed request is
answered naming what is wrong; a tool's error starts with the tool's name; a prompt that
holds nothing to search for says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.mcp.raw_wire import INITIALIZE, INITIALIZED, line, server_answers, tool_call


def _exchange(repo: Path, sent: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    """Write every message to a fresh ``tether mcp`` and close its input at once; every
    answer it writes before it exits, by id (the process must exit 0)."""
    answers = server_answers(repo, b"".join(line(message) for message in sent))
    return {a.get("id"): a for a in answers}


def _call(msg_id: int, tool: str, arguments: Any) -> dict[str, Any]:
    return tool_call(msg_id, tool, arguments)


def _text(answer: dict[str, Any]) -> str:
    return answer["result"]["content"][0]["text"]


def test_requests_sent_just_before_the_input_ends_are_answered(repo: Path) -> None:
    write = {"summary": "the pool must be closed first", "category": "gotcha"}
    sent = [
        INITIALIZE,
        INITIALIZED,
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        _call(3, "memory_recall", {"prompt": "how is the pool closed?"}),
        _call(4, "memory_write", {**write, "files": ["src/app.py"]}),
    ]
    answers = _exchange(repo, sent)
    assert sorted(k for k in answers if k is not None) == [1, 2, 3, 4]
    assert not answers[3]["result"]["isError"]
    written = json.loads(_text(answers[4]))
    assert (repo / ".tether" / "memories" / f"{written['id']}.md").exists()


def test_malformed_requests_are_answered_saying_what_is_wrong(repo: Path) -> None:
    sent = [
        _call(9, "memory_recall", {"prompt": "x"}),  # before initialize
        INITIALIZE,
        INITIALIZED,
        {"jsonrpc": "2.0", "id": 51},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": 5}},
        _call(4, "memory_get", "c069"),
    ]
    answers = _exchange(repo, sent)
    errors = {k: (a["error"]["code"], a["error"]["message"]) for k, a in answers.items() if k != 1}
    assert errors[9][0] == -32602 and "send initialize" in errors[9][1]
    assert errors[51] == (
        -32600,
        "a request needs a 'method' (a string); a response needs 'result' or 'error'",
    )
    assert errors[3] == (-32602, "tools/call: 'params.name' must be a string, not an integer")
    assert errors[4] == (
        -32602,
        "tools/call: 'params.arguments' must be an object, not a string",
    )


def test_an_id_that_is_no_id_is_answered_with_id_null(repo: Path) -> None:
    sent = [INITIALIZE, INITIALIZED, {"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}]
    answers = _exchange(repo, sent)
    assert answers[None]["error"] == {
        "code": -32600,
        "message": "'id' must be a string or an integer, not an object",
    }


def test_tool_errors_start_with_the_tool_name(repo: Path) -> None:
    answers = _exchange(repo, [INITIALIZE, INITIALIZED, _call(2, "memory_recall", {})])
    assert answers[2]["result"]["isError"]
    assert _text(answers[2]) == (
        "memory_recall: give a prompt, files, or both: recall ranks memories by them"
    )


def test_a_prompt_with_nothing_to_search_for_says_so(repo: Path) -> None:
    pasted = "x" * 2_000_000
    answers = _exchange(
        repo, [INITIALIZE, INITIALIZED, _call(2, "memory_recall", {"prompt": pasted})]
    )
    found = answers[2]["result"]["structuredContent"]
    assert found["query"] == ""
    [note] = found["notes"]
    assert note.startswith("the prompt held nothing to search for:")
    assert "no question and no line of prose" in note
    traceback = "Traceback (most recent call last):\n" + '  File "a.py", line 1, in f\n' * 5000
    answers = _exchange(
        repo, [INITIALIZE, INITIALIZED, _call(2, "memory_recall", {"prompt": traceback})]
    )
    [note] = answers[2]["result"]["structuredContent"]["notes"]
    assert "once its machine output (" in note


def test_a_lone_surrogate_in_a_request_is_answered_under_its_own_id(repo: Path) -> None:
    """JSON allows ``\\ud800`` alone (an emoji a client cut in two, as JSON.stringify writes
    it), the SDK's reader does not: the request was answered as unreadable, under id null,
    and its client waited. A recall's prompt takes the half as U+FFFD, as the hooks take it;
    a write is refused naming the argument (tests/mcp/test_mcp_broken_text.py)."""
    write = {"summary": "cut emoji \ud83d here", "category": "gotcha", "files": ["src/app.py"]}
    sent = [
        INITIALIZE,
        INITIALIZED,
        _call(18, "memory_recall", {"prompt": "\ud800 lone surrogate retry"}),
        _call(19, "memory_write", write),
        _call(20, "memory_recall", {"prompt": "a whole pair \U0001f600 is kept"}),
    ]
    answers = _exchange(repo, sent)
    assert None not in answers, answers.get(None)
    assert not answers[18]["result"]["isError"]
    assert answers[19]["error"]["code"] == -32602
    assert not list((repo / ".tether" / "memories").glob("*.md"))
    assert not answers[20]["result"]["isError"]

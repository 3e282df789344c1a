"""Text that is not valid UTF-8 in a tool's arguments (a lone surrogate, as JSON may carry
one, or bytes that are not UTF-8) is refused naming the argument, never written as U+FFFD;
only a recall's prompt, which is searched and never written, is read with U+FFFD."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.mcp.raw_wire import INITIALIZE, INITIALIZED, line, server_answers, tool_call


def _call(msg_id: int, tool: str, **arguments: Any) -> dict[str, Any]:
    return tool_call(msg_id, tool, arguments)


def _answers(repo: Path, sent: bytes) -> dict[Any, dict[str, Any]]:
    return {answer.get("id"): answer for answer in server_answers(repo, sent)}


def _refused(answer: dict[str, Any], tool: str, named: str) -> None:
    assert answer["error"]["code"] == -32602, answer
    said = answer["error"]["message"]
    assert said.startswith(f"{tool}: {named} is not valid UTF-8 text"), said
    assert "send the text whole, as UTF-8" in said


def test_broken_text_in_a_tool_s_arguments_is_refused_naming_it(repo: Path) -> None:
    gotcha = {"category": "gotcha", "files": ["src/app.py"]}
    not_utf8 = line(_call(4, "memory_write", summary="bytes BROKEN here", **gotcha))
    sent = (
        line(INITIALIZE)
        + line(INITIALIZED)
        + line(_call(2, "memory_write", summary="cut emoji \ud83d here", **gotcha))
        + line(_call(3, "memory_write", summary="a b c", category="gotcha", files=["\udc80.py"]))
        + not_utf8.replace(b"BROKEN", b"\xff\xfe")
        + line(_call(5, "memory_recall", prompt="half \ud83d of an emoji"))
        + line(_call(6, "memory_write", summary="a whole pair \U0001f600 is kept", **gotcha))
    )
    answers = _answers(repo, sent)
    _refused(answers[2], "memory_write", "argument 'summary'")
    _refused(answers[3], "memory_write", "argument 'files' (at files[0])")
    _refused(answers[4], "memory_write", "argument 'summary'")
    assert not answers[5]["result"]["isError"]  # a prompt is searched, as a hook's is
    written = json.loads(answers[6]["result"]["content"][0]["text"])
    [path] = (repo / ".tether" / "memories").glob("*.md")
    assert path.name == f"{written['id']}.md"
    assert "a whole pair \U0001f600 is kept" in path.read_text(encoding="utf-8")


def test_an_id_with_broken_text_is_refused_under_its_mended_id(repo: Path) -> None:
    call = _call(0, "memory_write", summary="a b c", category="gotcha", files=["src/app.py"])
    sent = line(INITIALIZE) + line(INITIALIZED) + line({**call, "id": "x\ud800"})
    [_, answer] = server_answers(repo, sent)
    assert answer["id"] == "x\ufffd"
    _refused(answer, "memory_write", "'id'")
    assert not list((repo / ".tether" / "memories").glob("*.md"))


def test_an_id_refused_for_its_shape_is_free_again(repo: Path) -> None:
    shapeless = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": "half \ud83d"}
    sent = (
        line(INITIALIZE)
        + line(INITIALIZED)
        + line(shapeless)
        + line(_call(7, "memory_recall", prompt="retry the upload"))
    )
    [_, refused, answered] = server_answers(repo, sent)
    assert (refused["id"], refused["error"]["code"]) == (7, -32600)
    assert answered["id"] == 7
    assert not answered["result"]["isError"], answered

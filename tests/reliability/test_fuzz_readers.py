"""Property-based fuzzing of the two readers that take machine input: ``tether recall --batch``
(one JSON query per line) and the agent hook JSON (``recall.hooks``).

Any input gives a result or a clear error, never an exception escaping, and never a changed
memory: the memory files are hashed before and compared after every example. Both run
in-process against one seeded repository, so hundreds of inputs take seconds.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import remember
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recall import hooks
from recall.cli import cmd_recall
from recall.cli.context import CommandContext
from recall.cli.main import build_parser
from recall.store import MemoryStore

BATCH_EXAMPLES = 300
HOOK_PARSE_EXAMPLES = 500
HOOK_RUN_EXAMPLES = 200
SHARED = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Values of every JSON type, small, including the awkward strings: paths that escape,
# NUL bytes, lone surrogates, bidi controls.
awkward_text = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        [
            "src/app.py",
            "../outside.py",
            "/etc/passwd",
            "src/\x00app.py",
            "\ud800",
            "src/\u202eyp.ppa",
            "C:\\Windows\\x.py",
            "",
            " ",
            "~/.ssh/id_rsa",
            "src/" + "a" * 300 + ".py",
        ]
    ),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | awkward_text,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(awkward_text, children, max_size=4)
    ),
    max_leaves=12,
)


def _query_records() -> st.SearchStrategy[dict[str, Any]]:
    """Objects shaped like batch queries, with every field of every type."""
    return st.fixed_dictionaries(
        {},
        optional={
            "prompt": json_values,
            "files": st.one_of(st.lists(awkward_text, max_size=4), json_values),
            "limit": st.one_of(st.integers(-5, 10**12), json_values),
        },
    )


def _batch_line() -> st.SearchStrategy[bytes]:
    return st.one_of(
        _query_records().map(lambda r: json.dumps(r).encode()),
        json_values.map(lambda v: json.dumps(v).encode()),
        st.text(max_size=80).map(lambda t: t.encode("utf-8", "surrogatepass")),
        st.binary(max_size=80),
    )


def _memory_hashes(repo: Path) -> dict[str, str]:
    folder = repo / ".tether" / "memories"
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


@pytest.fixture
def seeded(repo: Path, store: MemoryStore) -> dict[str, str]:
    """A store with a few memories; returns the hashes of their files."""
    remember(store, "session save must go through safeRename")
    remember(store, "retry the upload with backoff", category="decision", files=["src/util.py"])
    remember(store, "docs use sentence case", category="pref", files=["docs/guide.md"])
    store.close()
    return _memory_hashes(store.location.repo_root)


def test_batch_reader_answers_every_line_or_names_its_error(
    repo: Path, seeded: dict[str, str], tmp_path: Path
) -> None:
    ctx = CommandContext(json_output=True, cwd=repo)
    recaller = cmd_recall._recaller(ctx, "all", short_lived=False)
    batch = tmp_path / "batch.jsonl"
    count = [0]

    @settings(SHARED, max_examples=BATCH_EXAMPLES)
    @given(st.lists(_batch_line(), min_size=1, max_size=6))
    def check(lines: list[bytes]) -> None:
        data = b"\n".join(lines)
        batch.write_bytes(data)
        args = build_parser().parse_args(["recall", "--batch", str(batch), "--scope", "all"])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = cmd_recall._run_batch(args, ctx, recaller)
        answers = [json.loads(line) for line in out.getvalue().splitlines()]
        assert len(answers) == sum(1 for raw in data.split(b"\n") if raw.strip())
        errors = [a for a in answers if "error" in a]
        for answer in answers:
            if "error" in answer:
                assert isinstance(answer["error"], str) and answer["error"]
                assert isinstance(answer["line"], int) and answer["line"] >= 1
            else:
                assert isinstance(answer["results"], list)
        assert code == (2 if errors else 0)
        assert _memory_hashes(repo) == seeded
        count[0] += 1

    try:
        check()
    finally:
        ctx.close()
    print(f"\n[fuzz] recall --batch: {count[0]} inputs")


def _hook_objects() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "session_id": st.one_of(awkward_text, json_values, st.text(min_size=199, max_size=201)),
            "cwd": json_values,
            "hook_event_name": json_values,
            "prompt": json_values,
            "tool_name": st.one_of(st.sampled_from(["Edit", "Write", "Bash", "Read"]), json_values),
            "tool_input": st.one_of(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "file_path": awkward_text,
                        "notebook_path": json_values,
                        "command": st.one_of(st.just("tether recall -f x"), json_values),
                    },
                ),
                json_values,
            ),
        },
    )


def _hook_raw() -> st.SearchStrategy[str]:
    return st.one_of(
        _hook_objects().map(json.dumps),
        json_values.map(json.dumps),
        st.text(max_size=200),
    )


def test_hook_input_parses_or_is_skipped(repo: Path) -> None:
    count = [0]

    @settings(SHARED, max_examples=HOOK_PARSE_EXAMPLES)
    @given(_hook_raw(), st.sampled_from(hooks.EVENTS))
    def check(raw: str, event: str) -> None:
        try:
            parsed = hooks.parse_input(raw, event)
        except hooks.Skip:
            count[0] += 1
            return
        assert isinstance(parsed, hooks.HookInput)
        # '' when the input sends none usable: the hook still decides its guards
        session = parsed.session_id
        assert session == "" or (session.strip() and "\x00" not in session)
        count[0] += 1

    check()
    print(f"\n[fuzz] hook parse_input: {count[0]} inputs")


def test_hook_calls_never_fail_and_never_change_a_memory(
    repo: Path, seeded: dict[str, str]
) -> None:
    """Whole hook calls, with the cwd mostly pointing into the repository so the handlers run:
    ``run`` swallows every error by design, so the hooks log must stay free of them too."""
    count = [0]
    in_repo = st.sampled_from([str(repo), str(repo / "src"), str(repo / "nowhere")])

    @settings(SHARED, max_examples=HOOK_RUN_EXAMPLES)
    @given(
        _hook_objects(), in_repo, st.text(min_size=1, max_size=12), st.sampled_from(hooks.EVENTS)
    )
    def check(record: dict[str, Any], cwd: str, session: str, event: str) -> None:
        record.setdefault("session_id", f"fuzz-{session}")
        record.setdefault("cwd", cwd)
        out = hooks.run(event, json.dumps(record))
        assert isinstance(out, str)
        if out:
            payload = json.loads(out)
            assert isinstance(payload["hookSpecificOutput"]["additionalContext"], str)
        assert _memory_hashes(repo) == seeded
        count[0] += 1

    check()
    log = repo / ".tether" / hooks.LOG_NAME
    logged = log.read_text(encoding="utf-8") if log.exists() else ""
    assert "Traceback" not in logged, logged[-3000:]
    print(f"\n[fuzz] hook run: {count[0]} calls")


def test_lone_surrogates_in_hook_json_are_skipped_or_cleaned(repo: Path) -> None:
    """Found by the fuzzer: JSON may carry a lone surrogate (``"\\ud800"``), which no file
    system or SQLite text can hold; a session id or path with one used to reach SQLite."""
    base = {"session_id": "s-1", "cwd": str(repo), "prompt": "what about \ud800 this?"}
    parsed = hooks.parse_input(json.dumps(base), "prompt")
    assert parsed.prompt == "what about \ufffd this?"
    with pytest.raises(hooks.Skip):
        hooks.parse_input(json.dumps({**base, "cwd": "\ud800"}), "prompt")
    assert (
        hooks.parse_input(json.dumps({**base, "session_id": "\ud800"}), "prompt").session_id == ""
    )
    edit = {**base, "tool_name": "Edit", "tool_input": {"file_path": "src/\ud800.py"}}
    assert hooks.parse_input(json.dumps(edit), "pre-edit").file_path is None

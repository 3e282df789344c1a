"""The edit hooks answer wherever the edit lands and whatever the disk allows: on a read-only
checkout, on a full disk, through a link inside the repository, and in a nested repository
inside the session's one (never in another repository). A log that cannot be written never
costs an answer nor prints a word on stderr."""

from __future__ import annotations

import json
import logging
import os
import resource
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import make_repo, remember, run_tether

from recall import hooks
from recall.locations import project_location
from recall.safe_log import one_line_file_handler
from recall.store import MemoryStore
from tests.reliability.procs import make_read_only, make_writable, read_only_mount, unprivileged

SUMMARY = "save() must hold the store lock"
SAVE = "def save(x):\n    return x\n"


def _edit(cwd: Path, file_path: str | Path, session: str = "reach-1") -> dict[str, Any]:
    return {
        "session_id": session,
        "cwd": str(cwd),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {
            "file_path": str(file_path),
            "old_string": "    return x",
            "new_string": "y",
        },
    }


def _decision(out: str) -> dict[str, Any]:
    assert out, "the hook said nothing"
    return dict(json.loads(out)["hookSpecificOutput"])


def _guard(root: Path, path: str, summary: str = SUMMARY, *extra: str) -> str:
    """A guarded gotcha on ``path`` written by ``tether remember --guard`` in ``root``."""
    done = run_tether(
        "remember", summary, "-c", "gotcha", "-f", path, "--guard", "--json", *extra, cwd=root
    )
    assert done.code == 0, done.stderr
    return str(json.loads(done.stdout)["id"])


def _run_hook(
    repo: Path, payload: dict[str, Any], **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*kwargs.pop("prefix", []), sys.executable, "-m", "recall", "hook", "pre-edit"],
        cwd=repo,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=dict(os.environ),
        timeout=120,
        check=False,
        **kwargs,
    )


@pytest.fixture
def guarded(tmp_path: Path) -> tuple[Path, str]:
    """A repository whose ``src/persist store.py`` is guarded; (root, memory id)."""
    root = make_repo(tmp_path / "r1", {"src/persist store.py": SAVE, "README.md": "r\n"})
    return root, _guard(root, "src/persist store.py")


# -- a log that cannot be written ---------------------------------------------------------


def _assert_asks(done: subprocess.CompletedProcess[str], memory_id: str) -> None:
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    decision = _decision(done.stdout)
    assert decision["permissionDecision"] == "ask"
    assert f"[{memory_id}] covers src/persist store.py" in decision["permissionDecisionReason"]


def test_a_read_only_mount_still_asks_and_logs_its_notice_to_the_global_folder(
    guarded: tuple[Path, str], tether_home: Path
) -> None:
    root, memory_id = guarded
    with read_only_mount(root):
        done = _run_hook(root, _edit(root, root / "src/persist store.py"))
    _assert_asks(done, memory_id)
    assert not (root / ".tether" / hooks.LOG_NAME).exists()
    logged = (tether_home / hooks.LOG_NAME).read_text(encoding="utf-8")
    assert "read-only store" in logged and "Traceback" not in logged


def test_a_store_without_write_permission_still_asks(guarded: tuple[Path, str]) -> None:
    """The same through file modes, for root too (the capabilities that bypass them dropped);
    the project's hooks.log exists and cannot be opened."""
    root, memory_id = guarded
    tether = root / ".tether"
    (tether / hooks.LOG_NAME).write_text("", encoding="utf-8")
    make_read_only([tether, tether / "memories", *tether.iterdir()])
    try:
        done = _run_hook(root, _edit(root, root / "src/persist store.py"), prefix=unprivileged())
    finally:
        make_writable(tether)
    _assert_asks(done, memory_id)
    assert (tether / hooks.LOG_NAME).read_text(encoding="utf-8") == ""


def test_a_pipe_at_the_logs_name_never_stalls_the_hook(
    guarded: tuple[Path, str], tether_home: Path
) -> None:
    """A pipe in place of ``.tether/hooks.log`` (from an archive or a shared folder) would hold
    each hook that logs until something reads it: the agent's edit waits out its hook's time
    and the guard is never asked. The log is a plain file or none: the global one is used."""
    root, memory_id = guarded
    os.mkfifo(root / ".tether" / hooks.LOG_NAME)
    (root / ".tether" / "config.toml").write_text("bogus_key = 1\n", encoding="utf-8")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "recall", "hook", "pre-edit"],
            cwd=root,
            input=json.dumps(_edit(root, root / "src/persist store.py")),
            capture_output=True,
            text=True,
            encoding="utf-8",
            env=dict(os.environ),
            timeout=60,  # a bound against the stall itself, not a timing
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the hook waited on the pipe at hooks.log")
    _assert_asks(done, memory_id)
    logged = (tether_home / hooks.LOG_NAME).read_text(encoding="utf-8")
    assert "unknown key 'bogus_key'" in logged


def test_a_full_disk_still_asks_and_prints_nothing_on_stderr(guarded: tuple[Path, str]) -> None:
    """No file may grow (RLIMIT_FSIZE 0, as a disk with no room left): neither the index nor
    either hooks.log takes a byte, and the answer is the same."""
    root, memory_id = guarded

    def no_room() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))

    done = _run_hook(root, _edit(root, root / "src/persist store.py"), preexec_fn=no_room)
    _assert_asks(done, memory_id)
    assert "Logging error" not in done.stderr


@pytest.fixture
def hooks_logger() -> Iterator[logging.Logger]:
    """The hooks' logger with no handler, its handlers closed and dropped afterwards."""
    log = logging.getLogger(hooks.LOGGER)
    kept = list(log.handlers)
    log.handlers = []
    yield log
    for handler in log.handlers:
        handler.close()
    log.handlers = kept


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_log_whose_writes_fail_goes_to_its_fallback_quietly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], hooks_logger: logging.Logger
) -> None:
    """/dev/full refuses every write with ENOSPC: the record goes to the fallback file, and
    with no fallback it is dropped; nothing raised, nothing on stderr."""
    fallback = tmp_path / "fallback.log"
    asked: list[int] = []

    def other() -> Path:
        asked.append(1)
        return fallback

    hooks_logger.setLevel(logging.INFO)
    hooks_logger.addHandler(one_line_file_handler(Path("/dev/full"), fallback=other))
    hooks_logger.warning("first")
    hooks_logger.warning("second")
    assert fallback.read_text(encoding="utf-8").count(" WARNING ") == 2
    assert asked == [1]
    for handler in hooks_logger.handlers:
        handler.close()
    hooks_logger.handlers = [one_line_file_handler(Path("/dev/full"))]
    hooks_logger.warning("dropped")
    hooks_logger.handlers[0].close()
    hooks_logger.handlers = [one_line_file_handler(tmp_path / "no-such-folder" / "x.log")]
    hooks_logger.error("dropped too")
    assert capsys.readouterr() == ("", "")


def test_a_notice_that_cannot_be_logged_costs_nothing(
    tmp_path: Path, hooks_logger: logging.Logger, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notice path itself: a log that raises on open is swallowed, in-process too."""
    from recall.hooks import logfile

    monkeypatch.setattr(logfile, "_global_log", lambda: tmp_path / "missing" / "hooks.log")
    logfile._notice_cwd[0] = tmp_path
    logfile._notice("a notice nobody can read")  # no repository: the global log, unwritable


# -- links inside the repository ------------------------------------------------------------


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    """A repository with ``real.py``, ``src/mod.py`` and committed links to them
    (``alias.py -> real.py``, ``srcalias -> src``) and out of it (``out.py``, ``outdir``)."""
    outside = make_repo(tmp_path / "elsewhere", {"real.py": SAVE})
    _guard(outside, "real.py", "the outside guard")
    root = make_repo(tmp_path / "linked", {"real.py": SAVE, "src/mod.py": SAVE})
    (root / "alias.py").symlink_to("real.py")
    (root / "srcalias").symlink_to("src")
    (root / "out.py").symlink_to(outside / "real.py")
    (root / "outdir").symlink_to(outside)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "links"], cwd=root, check=True)
    return root


def test_an_edit_through_a_link_is_asked_about_as_an_edit_of_its_target(linked: Path) -> None:
    real = _guard(linked, "real.py")
    mod = _guard(linked, "src/mod.py", "mod guard", "--anchor", "src/mod.py::save")
    decision = _decision(hooks.run("pre-edit", json.dumps(_edit(linked, linked / "alias.py"))))
    assert decision["permissionDecision"] == "ask"
    assert (
        f"[{real}] covers real.py (edited through the link alias.py);"
        in (decision["permissionDecisionReason"])
    )
    assert f"[{real}]" in decision["additionalContext"]
    payload = _edit(linked, linked / "srcalias" / "mod.py")
    decision = _decision(hooks.run("pre-edit", json.dumps(payload)))
    assert (
        f"[{mod}] covers src/mod.py (symbol save; edited through the link srcalias/mod.py);"
        in (decision["permissionDecisionReason"])
    )
    # allowed through the link: the file itself is allowed for the session, by either name
    post = {**_edit(linked, linked / "alias.py"), "hook_event_name": "PostToolUse"}
    hooks.run("post-edit", json.dumps(post))
    out = hooks.run("pre-edit", json.dumps(_edit(linked, linked / "real.py")))
    assert "permissionDecision" not in out


def test_links_leading_outside_the_repository_are_still_refused(linked: Path) -> None:
    for path in ("out.py", "outdir/real.py"):
        assert hooks.run("pre-edit", json.dumps(_edit(linked, linked / path))) == ""


def test_a_memory_naming_the_link_keeps_its_name_and_still_warns(linked: Path) -> None:
    done = run_tether(
        "remember",
        "the alias is for old imports",
        "-c",
        "gotcha",
        "-f",
        "alias.py",
        "--json",
        cwd=linked,
    )
    assert done.code == 0, done.stderr
    memory_id = json.loads(done.stdout)["id"]
    shown = run_tether("show", memory_id, "--json", cwd=linked)
    assert json.loads(shown.stdout)["files"] == ["alias.py"]  # as typed, not the target
    out = hooks.run("pre-edit", json.dumps(_edit(linked, linked / "alias.py")))
    assert f"[{memory_id}]" in _decision(out)["additionalContext"]


def test_recall_after_an_edit_through_a_link_finds_the_targets_memories(linked: Path) -> None:
    store = MemoryStore(project_location(linked), notice=lambda _m: None)
    try:
        memory_id = remember(
            store, "mod saves are idempotent", category="decision", files=["src/mod.py"]
        )
    finally:
        store.close()
    post = {**_edit(linked, linked / "srcalias" / "mod.py"), "hook_event_name": "PostToolUse"}
    hooks.run("post-edit", json.dumps(post))
    prompt = {"session_id": "reach-1", "cwd": str(linked), "prompt": "what next?"}
    out = hooks.run("prompt", json.dumps(prompt))
    assert f"{memory_id}" in json.loads(out)["hookSpecificOutput"]["additionalContext"]


# -- nested repositories ------------------------------------------------------------------------


@pytest.fixture
def nested(guarded: tuple[Path, str]) -> tuple[Path, Path, str]:
    """``guarded``'s repository with a nested one at ``vendor/sub`` whose ``lib.py`` is guarded
    in its own store: (outer root, nested root, the nested guard's id)."""
    root, _memory_id = guarded
    sub = make_repo(root / "vendor" / "sub", {"lib.py": SAVE})
    return root, sub, _guard(sub, "lib.py", "sub guard")


@pytest.mark.parametrize("cwd", [".", "vendor/sub", "src"])
def test_a_nested_repositorys_guard_asks_from_any_folder_of_the_outer_one(
    nested: tuple[Path, Path, str], cwd: str
) -> None:
    root, sub, memory_id = nested
    decision = _decision(hooks.run("pre-edit", json.dumps(_edit(root / cwd, sub / "lib.py"))))
    assert decision["permissionDecision"] == "ask"
    assert f"[{memory_id}] covers lib.py;" in decision["permissionDecisionReason"]


def test_the_outer_repositorys_file_is_outside_a_session_in_a_nested_one(
    nested: tuple[Path, Path, str],
) -> None:
    """A session in the nested repository: the outer one's file lies outside it, so no store
    answers (the outer store is the nested session's no more than any other folder's)."""
    root, sub, _memory_id = nested
    done = _run_hook(sub, _edit(sub, root / "src" / "persist store.py"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_a_link_into_a_nested_repository_is_its_file(nested: tuple[Path, Path, str]) -> None:
    root, _sub, memory_id = nested
    (root / "sublink.py").symlink_to("vendor/sub/lib.py")
    decision = _decision(hooks.run("pre-edit", json.dumps(_edit(root, root / "sublink.py"))))
    assert f"[{memory_id}] covers lib.py;" in decision["permissionDecisionReason"]


def test_a_nested_repository_without_a_store_is_answered_by_the_outer_one(
    guarded: tuple[Path, str],
) -> None:
    root, _memory_id = guarded
    make_repo(root / "vendor" / "plain", {"lib.py": SAVE})
    memory_id = _guard(root, "vendor/plain/lib.py", "outer guard on vendored code")
    payload = _edit(root, root / "vendor" / "plain" / "lib.py")
    decision = _decision(hooks.run("pre-edit", json.dumps(payload)))
    assert f"[{memory_id}] covers vendor/plain/lib.py;" in decision["permissionDecisionReason"]


def test_a_file_of_another_repository_is_answered_by_no_store(
    guarded: tuple[Path, str], tmp_path: Path
) -> None:
    """Another repository's store is neither read nor written for a session's edit: the edit
    gets nothing, as any path outside the session's repository does."""
    root, _memory_id = guarded
    other = make_repo(tmp_path / "other", {"lib.py": SAVE})
    _guard(other, "lib.py", "other guard")
    index = other / ".tether" / "index.db"
    index.unlink()
    done = _run_hook(root, _edit(root, other / "lib.py"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert not index.exists()
    assert hooks.run("pre-edit", json.dumps(_edit(root, "/etc/passwd"))) == ""

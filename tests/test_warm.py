"""The warm engine (``tether warm``): real engine processes, real repositories, the real CLI.

Every answer is compared with the same command run in its own process (``TETHER_WARM=0``),
and the engine's request count shows the warm one really was served warm. Each test stops
the engines it started (the fixture kills any left, by the pid in its lock file).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo, pty_run, run_tether

from recall.hooks.input import EVENTS
from recall.warm import client, control, protocol, server

COLD = {"TETHER_WARM": "0"}
GOTCHA = "login KeyError user_id: sessions from the old SSO lack user_id, fall back to sub"
PROMPT = "Why does login raise a KeyError for user_id?"


def held(lock: Path) -> bool:
    """Whether a running engine still holds its lock file."""
    with lock.open("rb") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
    return False


@pytest.fixture
def runtime(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A short private runtime folder (socket paths are limited to 108 bytes), the engine
    turned back on; every engine started under it is killed at the end."""
    base = Path(tempfile.mkdtemp(prefix="tw"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(base))
    monkeypatch.delenv("TETHER_WARM")
    yield base
    folder = base / "tether"
    for lock in folder.glob("*.lock") if folder.is_dir() else []:
        if not held(lock):  # the engine that wrote its pid has gone; the pid may be reused
            continue
        text = lock.read_text().strip()
        if text.isdigit() and int(text) > 1:  # never 0: that would signal this process group
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(text), signal.SIGKILL)
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def project(repo: Path, runtime: Path) -> Path:
    """A repository with a store holding a gotcha on src/app.py and a decision."""
    for args in (
        ("remember", GOTCHA, "-c", "gotcha", "--file", "src/app.py"),
        ("remember", "docs are built with mkdocs", "-c", "decision", "--file", "docs/guide.md"),
    ):
        assert run_tether(*args, cwd=repo, env=COLD).code == 0
    return repo


def tether(*args: str, cwd: Path, stdin: str = "", cold: bool = False) -> CliResult:
    return run_tether(*args, cwd=cwd, stdin=stdin, env=COLD if cold else None)


def status(repo: Path) -> dict:
    done = tether("warm", "--status", "--json", cwd=repo)
    return done.json()


def hook_json(repo: Path, event: str, session: str, cwd: Path | None = None) -> str:
    base = {"session_id": session, "cwd": str(cwd or repo)}
    if event == "prompt":
        return json.dumps({**base, "hook_event_name": "UserPromptSubmit", "prompt": PROMPT})
    if event == "session-start":
        return json.dumps({**base, "hook_event_name": "SessionStart"})
    name = "PreToolUse" if event == "pre-edit" else "PostToolUse"
    tool_input = {"file_path": str(repo / "src/app.py"), "old_string": "a", "new_string": "b"}
    return json.dumps(
        {**base, "hook_event_name": name, "tool_name": "Edit", "tool_input": tool_input}
    )


def same_warm_and_cold(repo: Path, cwd: Path | None = None) -> list[CliResult]:
    """Every served command run warm then cold (hooks in sessions of their own, so the hint
    policy starts afresh for each); asserts each pair is identical and was served warm."""
    where = cwd or repo
    before = status(repo)["requests"]
    pairs = [(("inject", "--no-record", "--file", "src/app.py"), PROMPT)]
    pairs += [(("hook", event), "") for event in EVENTS]
    results = []
    for number, (args, stdin) in enumerate(pairs):
        runs = []
        for side in ("warm", "cold"):
            text = stdin or hook_json(repo, args[1], f"{side}-{number}-{time.time_ns()}", where)
            runs.append(tether(*args, cwd=where, stdin=text, cold=side == "cold"))
        assert runs[0] == runs[1], args
        results.append(runs[0])
    assert status(repo)["requests"] == before + len(pairs)
    return results


def test_warm_answers_are_the_cold_ones_and_see_every_change(project: Path) -> None:
    started = tether("warm", "--json", cwd=project)
    assert (started.code, started.json()["state"]) == (0, "started"), started.stderr
    again = tether("warm", "--json", cwd=project)
    assert (again.code, again.json()["state"]) == (0, "already running")
    first = same_warm_and_cold(project)
    inject, _prompt, pre_edit = first[0], first[1], first[2]
    assert "login KeyError" in inject.stdout and "login KeyError" in pre_edit.stdout
    # inject ranks on the engine its warm-up built; each change below is seen by a kept one
    reused = status(project)["engine_reused"]
    assert reused >= 1

    # a memory written by another process
    added = tether(
        "remember",
        "the audit log rotates nightly",
        "-c",
        "gotcha",
        "--file",
        "src/app.py",
        "--json",
        cwd=project,
        cold=True,
    )
    assert added.code == 0, added.stderr
    inject = same_warm_and_cold(project)[0]
    assert "audit log rotates" in inject.stdout
    assert status(project)["engine_reused"] >= reused + 2  # inject and the prompt hook
    reused = status(project)["engine_reused"]

    # a memory file rewritten in place (same name, same size class, no rename)
    files = project.joinpath(".tether/memories").glob("*.md")
    path = next(p for p in files if "audit log" in p.read_text(encoding="utf-8"))
    text = path.read_text(encoding="utf-8")
    with path.open("r+", encoding="utf-8") as handle:
        handle.write(text.replace("audit log", "AUDIT LOG"))
    changed = same_warm_and_cold(project)[0]
    assert "AUDIT LOG" in changed.stdout
    assert status(project)["engine_reused"] >= reused + 2
    reused = status(project)["engine_reused"]

    # a new commit, and a subfolder
    (project / "src/app.py").write_text("print('app v2')\n", encoding="utf-8")
    git(project, "commit", "-qam", "app v2")
    same_warm_and_cold(project)
    assert status(project)["engine_reused"] >= reused + 2
    same_warm_and_cold(project, cwd=project / "src")

    # a changed setting (the user's own file), read by the very next request
    home = Path(os.environ["TETHER_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('embedder = "no_such_module:Embedder"\n', encoding="utf-8")
    told = same_warm_and_cold(project)[0]
    assert "no_such_module" in told.stderr
    assert tether("warm", "--stop", cwd=project).code == 0


def test_a_quiet_memory_folder_is_not_checked_again_and_an_edit_is_still_seen(
    project: Path,
) -> None:
    memories = sorted(project.joinpath(".tether/memories").glob("*.md"))
    for path in memories:  # written long ago: no file within the index's racy window
        os.utime(path, ns=(10**18, 10**18))
    assert tether("warm", cwd=project).code == 0
    inject = ("inject", "--no-record", "--file", "src/app.py", PROMPT)
    for _ in range(3):
        assert tether(*inject, cwd=project) == tether(*inject, cwd=project, cold=True)
    checks = status(project)["folder_checks"]
    assert checks["watched"] and checks["skipped"] >= 2, checks
    path = next(p for p in memories if "login KeyError" in p.read_text(encoding="utf-8"))
    text = path.read_text(encoding="utf-8")
    with path.open("r+", encoding="utf-8") as handle:  # same size, no rename, no new entry
        handle.write(text.replace("login KeyError", "LOGIN KEYERR!"))
    warm = tether(*inject, cwd=project)
    assert "LOGIN KEYERR!" in warm.stdout and warm == tether(*inject, cwd=project, cold=True)
    assert status(project)["folder_checks"]["skipped"] == checks["skipped"]
    shown = " ".join(tether("warm", "--status", cwd=project).stdout.split())  # lines wrapped
    assert "memory folders watched:" in shown and "checks skipped" in shown


def test_hook_client_list_of_events_is_the_hooks_own() -> None:
    assert client.HOOK_EVENTS == EVENTS


def test_idle_time_is_a_quarter_hour() -> None:
    assert server.IDLE_EXIT_S == 15 * 60


def test_a_starting_engine_is_looked_at_every_twentieth_of_a_second() -> None:
    assert control.POLL_S == 0.05


def test_another_repository_is_not_served(project: Path, tmp_path: Path) -> None:
    other = make_repo(tmp_path / "other")
    remembered = tether(
        "remember", GOTCHA, "-c", "gotcha", "--file", "src/app.py", cwd=other, cold=True
    )
    assert remembered.code == 0
    assert tether("warm", cwd=project).code == 0
    warm = tether("inject", "--no-record", "--file", "src/app.py", cwd=other, stdin=PROMPT)
    cold = tether(
        "inject", "--no-record", "--file", "src/app.py", cwd=other, stdin=PROMPT, cold=True
    )
    assert warm == cold and "login KeyError" in warm.stdout
    assert status(project)["requests"] == 0
    # asked directly on this project's socket, about a folder of the other repository
    base = protocol.private_folder(create=False)
    assert base is not None
    path = protocol.socket_path(base, protocol.project_id(str(project), dict(os.environ)))
    sock = protocol.connect(path, 2.0)
    try:
        request = {
            "op": "run",
            "protocol": protocol.PROTOCOL,
            "code": list(protocol.code_key()),
            "text": protocol.text_key(),
            "argv": ["inject", "--no-record", "x"],
            "cwd": str(other),
            "env": dict(os.environ),
            "umask": 0o022,
            "root": str(project),
            "streams": [["utf-8", "strict", False]] * 3,
        }
        protocol.send(sock, request)
        answer = protocol.receive(sock)
    finally:
        sock.close()
    assert (answer["status"], answer["reason"]) == (
        "declined",
        "a folder outside this engine's project",
    )
    assert status(project)["declined"] == 1
    # a client whose modules would come from elsewhere is not served either
    elsewhere = run_tether(
        "inject",
        "--no-record",
        "--file",
        "src/app.py",
        cwd=project,
        stdin=PROMPT,
        env={"PYTHONUSERBASE": str(other)},
    )
    assert "login KeyError" in elsewhere.stdout
    assert (status(project)["requests"], status(project)["declined"]) == (0, 2)
    assert tether("warm", "--stop", cwd=project).code == 0


def test_a_killed_engine_falls_back_and_is_replaced(project: Path) -> None:
    assert tether("warm", cwd=project).code == 0
    pid = status(project)["pid"]
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    sockets = list((Path(os.environ["XDG_RUNTIME_DIR"]) / "tether").glob("*.sock"))
    assert sockets  # left behind: stale
    warm = tether("inject", "--no-record", "--file", "src/app.py", cwd=project, stdin=PROMPT)
    cold = tether(
        "inject", "--no-record", "--file", "src/app.py", cwd=project, stdin=PROMPT, cold=True
    )
    assert warm == cold and "login KeyError" in warm.stdout
    edit = hook_json(project, "pre-edit", "after-kill")
    warm = tether("hook", "pre-edit", cwd=project, stdin=edit)
    cold = tether(
        "hook", "pre-edit", cwd=project, stdin=edit.replace("after-kill", "cold"), cold=True
    )
    assert warm == cold and "login KeyError" in warm.stdout  # the hook's input was handed on
    gone = tether("warm", "--status", "--json", cwd=project)
    assert (gone.code, gone.json()["running"]) == (1, False)
    started = tether("warm", "--json", cwd=project)
    assert started.json()["state"] == "started" and started.json()["pid"] != pid
    assert tether("warm", "--stop", cwd=project).code == 0


def test_stop_and_status_exit_codes(project: Path) -> None:
    assert tether("warm", "--stop", cwd=project).code == 1
    assert tether("warm", "--status", cwd=project).code == 1
    assert tether("warm", cwd=project).code == 0
    assert tether("warm", "--status", cwd=project).code == 0
    stopped = tether("warm", "--stop", "--json", cwd=project)
    assert (stopped.code, stopped.json()["state"]) == (0, "stopped")
    assert tether("warm", "--status", cwd=project).code == 1
    off = run_tether("warm", cwd=project, env=COLD)
    assert off.code == 2 and "TETHER_WARM=0" in off.stderr


def test_several_starts_at_once_all_succeed_with_one_engine(project: Path) -> None:
    starts = [
        subprocess.Popen(
            [sys.executable, "-m", "recall", "warm"],
            cwd=project,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    try:
        ran = [(p.wait(timeout=120), *p.communicate()) for p in starts]
        ran = [(code, " ".join(out.split()), err) for code, out, err in ran]  # unwrapped
    finally:
        for p in starts:
            if p.poll() is None:
                p.kill()
    try:
        assert [code for code, _out, _err in ran] == [0, 0, 0], ran
        lines = sorted(out.strip().split(" (pid")[0] for _code, out, _err in ran)
        where = f"for {project}"
        assert lines == [
            f"warm engine already running {where}",
            f"warm engine already running {where}",
            f"warm engine started {where}",
        ], ran
        pids = {out.split("(pid ")[1].split(",")[0] for _code, out, _err in ran}
        assert pids == {str(status(project)["pid"])}  # one engine, named by all three
    finally:
        tether("warm", "--stop", cwd=project)


def test_a_failed_start_says_so_on_stderr_and_prints_json_only_when_asked(
    project: Path,
) -> None:
    base = protocol.private_folder(create=True)
    assert base is not None
    ident = protocol.project_id(str(project.resolve()), os.environ)
    lock = protocol.lock_path(base, ident)
    os.mkdir(lock)  # the engine cannot open its lock: it fails
    try:
        failed = tether("warm", cwd=project)
        as_json = tether("warm", "--json", cwd=project)
    finally:
        os.rmdir(lock)
    assert failed.code == 3, failed.stderr
    assert failed.stdout == ""
    assert "the warm engine did not start" in failed.stderr
    assert as_json.code == 3
    assert as_json.json() == {"state": "failed", "root": str(project.resolve()), "running": False}


def test_starts_at_once_whose_engines_fail_while_starting_each_say_so(
    project: Path, runtime: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A runtime folder so deep that the engine's socket path is longer than a socket may
    have: every engine fails as it binds, after taking the lock and warming up. Each of the
    starters racing then says its engine exited (the ones that lost the race take over from
    the one that won, fail the same way and say so), none waits out its whole wait."""
    deep = runtime / ("d" * 100)
    deep.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(deep))
    starts = [
        subprocess.Popen(
            [sys.executable, "-m", "recall", "warm"],
            cwd=project,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    try:
        ran = [(p.wait(timeout=120), *p.communicate()) for p in starts]
    finally:
        for p in starts:
            if p.poll() is None:
                p.kill()
    said = "the warm engine did not start: it exited with code 1"
    assert [(code, out, said in err) for code, out, err in ran] == [(3, "", True)] * 3, ran
    lock = next((deep / "tether").glob("*.lock"))
    assert not held(lock)  # no engine left behind


def wait_until(check: Callable[[], bool], seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return False


def exited(pid: int) -> bool:
    """Whether the process ``pid`` is gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # an ended engine nobody has reaped yet (a container without an init) is a zombie
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] == "Z"


def test_an_idle_engine_exits(project: Path) -> None:
    started = run_tether("warm", "--json", cwd=project, env={protocol.ENV_IDLE: "3"})
    assert started.json()["idle_limit_s"] == 3
    assert wait_until(lambda: tether("warm", "--status", cwd=project).code == 1)


def test_an_engine_exits_when_its_store_folder_goes(project: Path) -> None:
    assert tether("warm", cwd=project).code == 0
    pid = status(project)["pid"]
    shutil.rmtree(project / ".tether")
    (project / ".tether").mkdir()  # a new store: not the one the engine was started for
    shutil.rmtree(project / ".tether")
    inject = tether("inject", "--no-record", "x", cwd=project)
    assert inject.code != 0 or inject.stdout == ""
    assert wait_until(lambda: exited(pid))


def test_a_socket_folder_others_can_enter_is_not_used(project: Path) -> None:
    assert tether("warm", cwd=project).code == 0
    folder = Path(os.environ["XDG_RUNTIME_DIR"]) / "tether"
    folder.chmod(0o755)
    try:
        warm = tether("inject", "--no-record", "--file", "src/app.py", cwd=project, stdin=PROMPT)
        assert "login KeyError" in warm.stdout
        refused = tether("warm", "--status", cwd=project)
        assert refused.code == 3 and "mode 755" in refused.stderr
    finally:
        folder.chmod(0o700)
    assert status(project)["requests"] == 0  # the inject above ran in its own process
    assert tether("warm", "--stop", cwd=project).code == 0


def test_session_start_starts_the_engine_unless_turned_off(project: Path) -> None:
    start = hook_json(project, "session-start", "s-1")
    assert run_tether("hook", "session-start", cwd=project, stdin=start, env=COLD).code == 0
    assert tether("warm", "--status", cwd=project).code == 1
    (project / ".tether/config.toml").write_text("warm_engine = false\n", encoding="utf-8")
    assert tether("hook", "session-start", cwd=project, stdin=start).code == 0
    assert tether("warm", "--status", cwd=project).code == 1
    (project / ".tether/config.toml").unlink()
    assert tether("hook", "session-start", cwd=project, stdin=start).code == 0
    assert wait_until(lambda: tether("warm", "--status", cwd=project).code == 0)
    assert tether("warm", "--stop", cwd=project).code == 0


def test_a_session_start_on_a_held_index_still_starts_the_engine(project: Path) -> None:
    """Another process (an import, a reindex) holds the index past the hook's wait: the
    session-start pass is left for the next session, said on one line in the hooks' log, and
    the engine is started all the same."""
    past = time.time() - 60  # at rest: the store opens without writing
    folder = project / ".tether" / "memories"
    for path in (*folder.iterdir(), folder):
        os.utime(path, (past, past))
    assert tether("list", cwd=project, cold=True).code == 0  # the index in step with them
    holder = sqlite3.connect(project / ".tether" / "index.db", isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        start = hook_json(project, "session-start", "s-held")
        done = tether("hook", "session-start", cwd=project, stdin=start)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert (done.code, done.stdout) == (0, "")
    log = (project / ".tether" / "hooks.log").read_text(encoding="utf-8")
    assert "the session-start pass" in log and "another process holds the index" in log
    assert "Traceback" not in log
    assert wait_until(lambda: tether("warm", "--status", cwd=project).code == 0)
    assert tether("warm", "--stop", cwd=project).code == 0


def test_a_hook_after_the_engine_left_for_idleness_starts_it_again(project: Path) -> None:
    """The session goes on after a long pause: the first hook runs in its own process and
    starts the engine again for the next ones, unless the setting says not to; an engine
    stopped by hand is not started again by a hook."""
    for setting in ("warm_engine = false\n", ""):
        prompt = hook_json(project, "prompt", f"s-idle-{len(setting)}")
        started = run_tether("warm", "--json", cwd=project, env={protocol.ENV_IDLE: "2"})
        pid = started.json()["pid"]
        assert wait_until(lambda pid=pid: exited(pid))  # left for want of requests
        (project / ".tether/config.toml").write_text(setting, encoding="utf-8")
        alone = tether("hook", "prompt", cwd=project, stdin=prompt)
        assert alone.code == 0 and "login KeyError" in alone.stdout, alone.stderr
        if setting:
            time.sleep(1)
            assert tether("warm", "--status", cwd=project).code == 1
    assert wait_until(lambda: tether("warm", "--status", cwd=project).code == 0)
    assert status(project)["pid"] != pid
    assert tether("warm", "--stop", cwd=project).code == 0
    assert tether("hook", "prompt", cwd=project, stdin=prompt).code == 0
    time.sleep(1)
    assert tether("warm", "--status", cwd=project).code == 1


def on_terminal(*args: str, cwd: Path, columns: int, cold: bool) -> tuple[int, str, str]:
    """``tether ARGS`` with stdout on a terminal ``columns`` wide: exit code, what it showed
    there and its stderr."""
    return pty_run(*args, cwd=cwd, env=COLD if cold else {}, columns=columns)


def widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def test_help_and_usage_errors_are_laid_out_to_the_clients_terminal(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    narrow = run_tether("warm", cwd=project, env={"COLUMNS": "50"})  # the engine's own width
    assert narrow.code == 0, narrow.stderr
    monkeypatch.delenv("COLUMNS", raising=False)
    before = status(project)["requests"]
    runs = (("inject", "--help"), ("inject", "--no-such-option"))
    for args in runs:
        warm, cold = (on_terminal(*args, cwd=project, columns=200, cold=c) for c in (False, True))
        assert warm == cold, args
    assert widest(warm[2]) > 80  # the usage error, at the width of the terminal on stdout
    assert status(project)["requests"] == before + len(runs)
    # not a terminal: 80 columns; COLUMNS given: that width; each as a fresh process has it
    for env in ({}, {"COLUMNS": "61"}):
        warm, cold = (
            run_tether("inject", "--help", cwd=project, env={**env, **c}) for c in ({}, COLD)
        )
        assert warm == cold, env
        assert widest(warm.stdout) <= int(env.get("COLUMNS", "80")) - 2
    assert status(project)["requests"] == before + len(runs) + 2
    assert tether("warm", "--stop", cwd=project).code == 0


def test_a_warm_hook_imports_only_the_client(project: Path, tmp_path: Path) -> None:
    """What a hook served warm loads in its own process: the client and its protocol, none of
    the engine (the point of the warm engine is to skip those imports)."""
    from test_lean_imports import edit_input, run_probed

    assert tether("warm", cwd=project).code == 0
    run = run_probed(project, tmp_path / "m.json", "hook", "pre-edit", stdin=edit_input(project))
    assert run.code == 0 and "login KeyError" in run.stdout
    assert "recall.warm.client" in run.modules
    heavy = {"recall.cli.main", "recall.store", "recall.hooks", "sqlite3", "typing", "socket"}
    assert sorted(heavy & run.modules) == []
    assert status(project)["requests"] == 1
    assert tether("warm", "--stop", cwd=project).code == 0


def test_an_engine_exits_when_its_code_changes(project: Path) -> None:
    """A file of the installed package touched (its modification time moved): the next
    request is declined, run by its own process, and the engine exits."""
    assert tether("warm", cwd=project).code == 0
    pid = status(project)["pid"]
    touched = Path(protocol.__file__).parent / "__init__.py"
    before = touched.stat()
    os.utime(touched, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    try:
        warm = tether("inject", "--no-record", "--file", "src/app.py", cwd=project, stdin=PROMPT)
    finally:
        os.utime(touched, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert "login KeyError" in warm.stdout
    assert wait_until(lambda: exited(pid))


def test_an_engine_exits_when_a_library_is_upgraded_under_it(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A distribution on the module search path changes version (its ``.dist-info`` folder
    renamed, as pip does): the next request runs in its own process and the engine exits."""
    libs = tmp_path / "libs"
    (libs / "somelib-1.0.dist-info").mkdir(parents=True)
    paths = [str(libs), *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))
    assert tether("warm", cwd=project).code == 0
    pid = status(project)["pid"]
    (libs / "somelib-1.0.dist-info").rename(libs / "somelib-2.0.dist-info")
    warm = tether("inject", "--no-record", "--file", "src/app.py", cwd=project, stdin=PROMPT)
    assert "login KeyError" in warm.stdout
    assert wait_until(lambda: exited(pid))


def test_a_malformed_request_leaves_the_engine_serving(project: Path) -> None:
    assert tether("warm", cwd=project).code == 0
    root = protocol.find_root(str(project))
    base = protocol.private_folder(create=False)
    assert root is not None and base is not None
    path = protocol.socket_path(base, protocol.project_id(root, dict(os.environ)))
    sock = protocol.connect(path, 5)
    request = {  # what a client sends, but for its umask
        "op": "run",
        "protocol": protocol.PROTOCOL,
        "code": list(protocol.code_key()),
        "text": protocol.text_key(),
        "argv": ["inject", "--no-record"],
        "cwd": str(project),
        "env": dict(os.environ),
        "root": root,
        "streams": [["utf-8", "strict", False]] * 3,
        "stdin": PROMPT.encode(),
    }
    try:
        protocol.send(sock, request)
        sock.settimeout(10)
        sock.recv(1)  # answered or dropped, never left hanging
    finally:
        sock.close()
    assert tether("warm", "--status", cwd=project).code == 0  # still running
    warm = tether("inject", "--no-record", "--file", "src/app.py", cwd=project, stdin=PROMPT)
    cold = tether(
        "inject", "--no-record", "--file", "src/app.py", cwd=project, stdin=PROMPT, cold=True
    )
    assert (warm.code, warm.stdout) == (cold.code, cold.stdout)
    assert status(project)["requests"] == 1  # the inject above was served warm


def test_a_request_whose_client_gave_up_while_it_waited_is_not_run(project: Path) -> None:
    """A client whose wait ran out has run its command itself; its request, still queued
    behind a slow one, must not be run a second time (its bookkeeping would count twice)."""
    assert tether("warm", cwd=project).code == 0
    root = protocol.find_root(str(project))
    base = protocol.private_folder(create=False)
    assert root is not None and base is not None
    path = protocol.socket_path(base, protocol.project_id(root, dict(os.environ)))
    mask = os.umask(0o022)
    os.umask(mask)
    request = {  # what a client sends
        "op": "run",
        "protocol": protocol.PROTOCOL,
        "code": list(protocol.code_key()),
        "text": protocol.text_key(),
        "argv": ["inject"],
        "cwd": str(project),
        "env": dict(os.environ),
        "root": root,
        "umask": mask,
        "streams": [["utf-8", "strict", False]] * 3,
        "stdin": PROMPT.encode(),
    }
    slow = protocol.connect(path, 5)  # the engine is busy reading this one, which says nothing
    try:
        time.sleep(0.5)
        queued = protocol.connect(path, 5)
        protocol.send(queued, request)
        queued.close()  # gave up
    finally:
        slow.close()
    assert status(project)["requests"] == 0  # a status question is answered after it, in turn
    answered = protocol.connect(path, 5)  # the same request from a client that waits is run
    try:
        protocol.send(answered, request)
        answered.settimeout(30)
        assert protocol.receive(answered)["status"] == "done"
    finally:
        answered.close()
    assert status(project)["requests"] == 1


def test_the_engine_keeps_no_descriptor_of_the_process_that_started_it(project: Path) -> None:
    read_end, write_end = os.pipe()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "recall", "warm"],
            cwd=project,
            pass_fds=(write_end,),
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        os.close(write_end)
        write_end = -1
        # a wrapper waiting for the pipe to close is not held up by the engine
        ready, _, _ = select.select([read_end], [], [], 20)
        assert ready and os.read(read_end, 1) == b""
        assert tether("warm", "--status", cwd=project).code == 0  # and the engine runs on
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)


@pytest.mark.parametrize(
    "leading",
    [
        ("--json",),
        ("--wait", "5"),
        ("-C", "."),
        ("-C", "src", "--json", "-C", "."),  # the last -C alone, as the parser keeps it
        ("--wait", "soon"),  # refused by the engine as by a fresh process
    ],
    ids=["json", "wait", "C", "C twice", "bad wait"],
)
def test_inject_after_the_options_every_command_takes_is_served_warm(
    project: Path, leading: tuple[str, ...]
) -> None:
    assert tether("warm", cwd=project).code == 0
    before = status(project)["requests"]
    args = (*leading, "inject", "--no-record", "--file", "src/app.py", PROMPT)
    warm, cold = tether(*args, cwd=project), tether(*args, cwd=project, cold=True)
    assert warm == cold
    assert status(project)["requests"] == before + 1
    assert tether("warm", "--stop", cwd=project).code == 0


def test_inject_with_C_is_answered_for_that_folder_not_the_callers(
    project: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert tether("warm", cwd=project).code == 0
    before = status(project)["requests"]
    args = ("-C", str(project / "src"), "inject", "--no-record", "--file", "app.py", PROMPT)
    warm, cold = tether(*args, cwd=elsewhere), tether(*args, cwd=elsewhere, cold=True)
    assert warm == cold and "login KeyError" in warm.stdout
    assert status(project)["requests"] == before + 1
    for folder, said in ((str(elsewhere / "gone"), "does not exist"), ("", "-C")):
        refused = tether("-C", folder, "inject", PROMPT, cwd=project)
        assert refused.code == 2 and said in refused.stderr  # said by the command here
    assert status(project)["requests"] == before + 1
    assert tether("warm", "--stop", cwd=project).code == 0

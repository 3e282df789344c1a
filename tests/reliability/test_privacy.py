"""The global store is private: folders 0700, files 0600 (memory files, the index and its -wal
and -shm files, the lock, the hooks log, the vector cache), even under a permissive umask; a
folder loosened since is reported by ``tether doctor`` with the command that fixes it."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from recall import privacy
from recall.locations import global_location
from recall.store import MemoryStore
from tests.reliability.procs import run_cli


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _no_umask() -> None:
    os.umask(0)  # the most permissive a user could run with: every bit asked for is given


def _modes(base: Path) -> dict[str, int]:
    return {
        p.relative_to(base).as_posix() or ".": _mode(p)
        for p in [base, *sorted(base.rglob("*"))]
        if not p.is_symlink()
    }


def test_global_store_is_created_owner_only(repo: Path, tether_home: Path) -> None:
    done = run_cli(repo, "remember", "--json", "--global", "-c", "pref", "tabs", preexec=_no_umask)
    assert done.returncode == 0, done.stderr
    memory_id = json.loads(done.stdout)["id"]
    pinned = run_cli(repo, "pin", memory_id, preexec=_no_umask)  # a rewrite keeps the mode
    assert pinned.returncode == 0, pinned.stderr
    # Hold the index open from a process with no umask, so its -wal and -shm files exist.
    code = (
        "import os, sys\n"
        "os.umask(0)\n"
        "from pathlib import Path\n"
        "from recall.locations import global_location\n"
        "from recall.store import MemoryStore\n"
        "from recall.policy.usage import record_action\n"
        "store = MemoryStore(global_location(Path.cwd()))\n"
        f"record_action(store.conn, {memory_id!r})\n"
        "print(sorted(p.name for p in store.location.base.iterdir()), flush=True)\n"
        "sys.stdin.read()\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=repo,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    try:
        assert holder.stdout is not None
        names = json.loads(holder.stdout.readline().replace("'", '"'))
        assert {"index.db", "index.db-wal", "index.db-shm", "write.lock", "memories"} <= set(names)
        modes = _modes(tether_home)
    finally:
        holder.communicate("", timeout=30)
    print(f"\n[privacy] modes in the global store: { {k: oct(v) for k, v in modes.items()} }")
    for name, mode in modes.items():
        wanted = privacy.DIR_MODE if (tether_home / name).is_dir() else privacy.FILE_MODE
        assert mode == wanted, f"{name} is {oct(mode)}, wanted {oct(wanted)}"
    assert f"memories/{memory_id}.md" in modes


def test_recall_keeps_its_vector_cache_private(repo: Path, tether_home: Path) -> None:
    """Recall by prompt caches the global store's vectors in it: owner-only like the rest, so
    ``tether doctor`` has nothing to warn about afterwards."""
    note = "indent with tabs in every repository"
    done = run_cli(repo, "remember", "--json", "--global", "-c", "pref", note, preexec=_no_umask)
    assert done.returncode == 0, done.stderr
    memory_id = json.loads(done.stdout)["id"]
    asked = "should I indent with tabs?"
    recalled = run_cli(repo, "recall", "--json", "--scope", "global", asked, preexec=_no_umask)
    assert recalled.returncode == 0, recalled.stderr
    assert memory_id in {r["id"] for r in json.loads(recalled.stdout)["results"]}
    assert len(list((tether_home / "cache").glob("*.npy"))) == 2  # rowids and vectors
    modes = _modes(tether_home)
    for name, mode in modes.items():
        wanted = privacy.DIR_MODE if (tether_home / name).is_dir() else privacy.FILE_MODE
        assert mode == wanted, f"{name} is {oct(mode)}, wanted {oct(wanted)}"
    doctor = run_cli(repo, "doctor", "--json", "--scope", "global")
    assert doctor.returncode == 0, doctor.stdout


def test_hook_log_in_the_global_folder_is_private(tmp_path: Path, tether_home: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    from recall import hooks

    hooks.log.handlers.clear()
    try:
        hooks._log_to(outside)
        hooks.log.warning("a line")
    finally:
        for handler in hooks.log.handlers:
            handler.close()
        hooks.log.handlers.clear()
    assert _mode(tether_home) == privacy.DIR_MODE
    assert _mode(tether_home / hooks.LOG_NAME) == privacy.FILE_MODE


def test_doctor_warns_about_a_loosened_global_store(repo: Path, tether_home: Path) -> None:
    store = MemoryStore(global_location(repo), notice=lambda _m: None)
    try:
        draft = store.prepare_memory(summary="personal note", category="pref", files=[])
        written = store.remember(draft)
    finally:
        store.close()
    assert privacy.warning(global_location(repo)) is None
    tether_home.chmod(0o755)
    written.path.chmod(0o644)
    done = run_cli(repo, "doctor", "--json", "--scope", "global")
    assert done.returncode == 1, done.stderr
    (entry,) = [e for e in json.loads(done.stdout) if e.get("kind") == "permissions"]
    fix = f"chmod -R go-rwx {tether_home}"
    assert fix in entry["message"] and "2 paths" in entry["message"]
    text = run_cli(repo, "doctor", "--scope", "global")
    assert fix in text.stdout
    subprocess.run(fix.split(), check=True)
    assert run_cli(repo, "doctor", "--json", "--scope", "global").returncode == 0


def test_doctor_counts_one_loosened_path_in_the_singular(repo: Path, tether_home: Path) -> None:
    store = MemoryStore(global_location(repo), notice=lambda _m: None)
    try:
        draft = store.prepare_memory(summary="personal note", category="pref", files=[])
        written = store.remember(draft)
    finally:
        store.close()
    written.path.chmod(0o644)
    text = run_cli(repo, "doctor", "--scope", "global")
    assert text.returncode == 1, text.stderr
    assert f"can be read by other users (1 path: {written.path});" in text.stdout

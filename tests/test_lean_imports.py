"""What an agent's per-prompt and per-edit commands import: only what their path needs.

``tether hook prompt`` and ``tether hook pre-edit`` run as whole processes before every prompt
and every edit, and ``tether inject`` and ``tether recall`` likewise, inside a 250 ms budget of
which start-up imports are a large share. Each test here runs the real command (``python -m
recall`` as an agent does, the hook JSON on stdin) against a small store in a fresh process,
checks that it did its work, and then names the modules it must not have imported.

The modules named are real ones, each loaded where it is needed: the last tests run the slow
paths (writes, a stale genome, settings files and a notice) and see every one of them load,
so a misspelt name or a path that silently did nothing cannot make the lean checks pass.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

import pytest
from conftest import git, remember

from recall.store import MemoryStore

MEMORY_FILES = ("recall.frontmatter", "recall.records")
"""A memory file's front matter read or written, its fields checked: the index holds what a
read needs, so only a changed file, a write or a rebuild loads them."""

WRITE_RESULTS = ("recall.store.results",)
"""What a write reports back (its id, the duplicate it met, the files it lacks)."""

WRITE_ONLY = (
    "yaml",
    "recall.secrets_scan",
    "secrets",
    "recall.index.keep",
    *MEMORY_FILES,
    *WRITE_RESULTS,
)
"""Parsing or writing a memory file, choosing its id, rebuilding the index, reporting a write:
a store whose files are unchanged since they were indexed parses none and writes none."""

GENOME_REFRESH = (
    "recall.genome.refresh",
    "recall.genome.history_index",
    "recall.genome.tree_index",
    "recall.genome.imports",
    "recall.genome.gitcmd",
    "recall.genome.summary",
    "subprocess",
)
"""The genome's refresh: the history reader, the tree listing, the import scanners, git, and
the summary of what it read. A fresh genome is queried from the index alone."""

SYMBOL_PARSE = ("recall.genome.symbols.extract", "tree_sitter")
"""The symbol parser (tree-sitter and its grammars): ``tether index`` and the language server
read the symbol index; a hook's refresh of a stale genome leaves it for them."""

RARELY = ("logging", "tomllib", "difflib", "shlex")
"""The hooks' log (written only for a notice or an error), the settings file reader (no
settings file here), the closest-key suggestion for a misspelt key, a command setting."""

EDIT_ONLY = ("hashlib", "recall.genome.genome", "recall.ranking.engine")
"""Hashing (writes and dedupe), the genome's queries and the ranking: an edit warning needs
none (it asks only whether the history lags HEAD, read from ``.git``: RENAMES_AS_OF_HEAD)."""

RENAMES_AS_OF_HEAD = ("recall.genome.catch_up",)
"""Whether git's renames in the index lag HEAD: an edit hook checks it before it reads them,
and catches up with a commit since (GENOME_REFRESH), as a recall would."""

RANKING_LATER: tuple[str, ...] = ("numpy",)
"""What a one-query recall (the prompt hook, inject, recall) leaves out once the vector cache
is current: the semantic channel reads the query's columns in plain Python
(recall.ranking.lean_semantic). The recall that first writes the cache does load it."""

OPENSSL_HASHES = ("hashlib", "_hashlib")
"""hashlib loads OpenSSL at import; the hash-bag embedder's blake2b comes from its own module,
so a recall that only ranks hashes nothing through it (writes and dedupe do)."""

SYMBOL_MOVES = ("recall.ranking.symbol_moves", "recall.genome.symbols.lookup")
"""Memories whose anchored symbol moved into a touched file: only a store where some memory
anchors a symbol looks for them."""

PARSER = ("argparse", "gettext")
"""The argument parser and its messages' translations: a hook's command line as agents'
settings write it (``hook EVENT``) is read without them."""

TERMINAL_SIZING = "shutil"
"""What argparse imports to size its help to the terminal, for every option a parser is given
(with the compression modules it imports in turn); recall.cli.parser measures the terminal
itself, so a command line parsed without printing help loads it nowhere."""

HINT_POLICY = ("recall.policy.hints",)
"""The hint policy (which warnings a session was shown): an edit of a file that no memory warns
about consults none."""

DEAD_REFERENCES = ("recall.lifecycle.dead",)
"""Memories whose every file is gone, and the new names git saw: the maintenance commands and
the cleanup ask; a recall marks drift only."""

LEAN = (*WRITE_ONLY, *GENOME_REFRESH, *SYMBOL_PARSE, *RARELY, *SYMBOL_MOVES, *DEAD_REFERENCES)
"""Never loaded by any of the four commands on a quiet store with a fresh genome."""

PROMPT_LOADS = ("recall.genome.genome", "recall.ranking.engine")
"""What a prompt's recall does load (so the prompt test knows the genome was opened)."""

WRITES = {
    "remember": (
        ("remember", "retries are capped at five", "-c", "decision", "--file", "src/util.py"),
        ("yaml", "recall.secrets_scan", "secrets", *OPENSSL_HASHES, *MEMORY_FILES, *WRITE_RESULTS),
    ),
    "reindex": (
        ("reindex",),
        ("recall.index.keep", "yaml", "hashlib", *MEMORY_FILES, *DEAD_REFERENCES),
    ),
}
"""Commands that write, and what each of them loads."""

GOTCHA = "login KeyError user_id: sessions from the old SSO lack user_id, fall back to sub"
PROMPT = "Why does login raise a KeyError for user_id?"

# Runs ``python -m recall ARGS`` in this process (as ``-m`` does) and, at exit, writes the
# names of every module imported and whether the cyclic garbage collector was on to the file
# named first.
PROBE = """
import atexit, gc, json, runpy, sys

out = sys.argv[1]


def dump():
    with open(out, "w", encoding="utf-8") as handle:
        json.dump({"modules": sorted(sys.modules), "collector": gc.isenabled()}, handle)


atexit.register(dump)
sys.argv = ["tether", *sys.argv[2:]]
runpy.run_module("recall", run_name="__main__", alter_sys=True)
"""


class Run(NamedTuple):
    """One command's exit code, output, the modules it had imported when it ended and whether
    the cyclic garbage collector was on then."""

    code: int
    stdout: str
    stderr: str
    modules: frozenset[str]
    collector: bool


def run_probed(repo: Path, out: Path, *args: str, stdin: str = "") -> Run:
    """Run ``tether ARGS`` in a fresh interpreter in ``repo``."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(out), *args],
        cwd=repo,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=dict(os.environ),
        timeout=120,
        check=False,
    )
    seen = json.loads(out.read_text(encoding="utf-8"))
    return Run(
        done.returncode, done.stdout, done.stderr, frozenset(seen["modules"]), seen["collector"]
    )


def hook_input(repo: Path, event: str, **fields: object) -> str:
    return json.dumps(
        {"session_id": "lean-1", "cwd": str(repo), "hook_event_name": event, **fields}
    )


def edit_input(repo: Path) -> str:
    tool_input = {"file_path": str(repo / "src/app.py"), "old_string": "a", "new_string": "b"}
    return hook_input(repo, "PreToolUse", tool_name="Edit", tool_input=tool_input)


def loaded(run: Run, names: tuple[str, ...]) -> list[str]:
    return sorted(set(names) & run.modules)


@pytest.fixture
def quiet(repo: Path, store: MemoryStore, tmp_path: Path) -> str:
    """A store holding a gotcha on src/app.py, as an agent finds it between edits: its files
    unchanged since they were indexed, and its genome fresh; the gotcha's id."""
    memory_id = remember(store, GOTCHA, files=["src/app.py"])
    remember(store, "docs are built with mkdocs", category="decision", files=["docs/guide.md"])
    # Files written within the last seconds are re-read by every sync until they age (see
    # recall.index.sync.RACY_WINDOW_NS): date them an hour back, and let one run index them.
    past = time.time() - 3600
    for path in store.folder.path.iterdir():
        os.utime(path, (past, past))
    warm = run_probed(repo, tmp_path / "warm.json", "index")
    assert warm.code == 0, warm.stderr
    refreshed = (*GENOME_REFRESH, *SYMBOL_PARSE)
    assert loaded(warm, refreshed) == sorted(refreshed)  # it was stale: refreshed
    first = run_probed(repo, tmp_path / "first.json", "recall", PROMPT, "--json", "--no-record")
    assert first.code == 0, first.stderr
    assert loaded(first, RANKING_LATER) == sorted(RANKING_LATER)  # it wrote the vector cache
    return memory_id


def test_pre_edit_warns_without_loading_writes_the_genome_or_logging(
    repo: Path, quiet: str, tmp_path: Path
) -> None:
    run = run_probed(repo, tmp_path / "m.json", "hook", "pre-edit", stdin=edit_input(repo))
    assert (run.code, run.stderr) == (0, "")
    assert f"[{quiet}]" in run.stdout  # the gotcha warning: the store was read
    assert "recall.hooks" in run.modules
    assert loaded(run, RENAMES_AS_OF_HEAD) == sorted(RENAMES_AS_OF_HEAD)
    assert loaded(run, LEAN) == []
    assert loaded(run, EDIT_ONLY) == []
    assert loaded(run, PARSER) == []
    assert loaded(run, HINT_POLICY) == sorted(HINT_POLICY)  # a warning: the policy chose it


def test_pre_edit_of_a_file_without_warnings_leaves_the_hint_policy_out(
    repo: Path, quiet: str, tmp_path: Path
) -> None:
    tool_input = {"file_path": str(repo / "src/util.py"), "old_string": "a", "new_string": "b"}
    payload = hook_input(repo, "PreToolUse", tool_name="Edit", tool_input=tool_input)
    run = run_probed(repo, tmp_path / "m.json", "hook", "pre-edit", stdin=payload)
    assert (run.code, run.stdout, run.stderr) == (0, "", "")
    assert "recall.hooks.events" in run.modules  # the hook ran its edit handler
    assert loaded(run, HINT_POLICY) == []


def test_prompt_recalls_from_a_fresh_genome_without_its_refresh(
    repo: Path, quiet: str, tmp_path: Path
) -> None:
    payload = hook_input(repo, "UserPromptSubmit", prompt=PROMPT)
    run = run_probed(repo, tmp_path / "m.json", "hook", "prompt", stdin=payload)
    assert (run.code, run.stderr) == (0, "")
    assert quiet in run.stdout  # injected: the ranking ran
    assert loaded(run, PROMPT_LOADS) == sorted(PROMPT_LOADS)  # the genome was opened
    assert loaded(run, LEAN) == []
    assert loaded(run, RANKING_LATER) == []
    assert loaded(run, OPENSSL_HASHES) == []
    assert loaded(run, PARSER) == []


@pytest.mark.parametrize(
    "args",
    [
        ("inject", PROMPT, "--no-record"),
        ("inject", PROMPT, "--no-record", "--file", "src/app.py"),
        ("recall", PROMPT, "--json", "--no-record"),
    ],
    ids=["inject", "inject-file", "recall"],
)
def test_inject_and_recall_load_as_little(
    repo: Path, quiet: str, tmp_path: Path, args: tuple[str, ...]
) -> None:
    run = run_probed(repo, tmp_path / "m.json", *args)
    assert (run.code, run.stderr) == (0, "")
    assert quiet in run.stdout
    assert loaded(run, PARSER) == sorted(PARSER)  # options to parse: the parser is built
    assert importlib.util.find_spec(TERMINAL_SIZING) is not None  # a real module, left out
    assert TERMINAL_SIZING not in run.modules
    assert loaded(run, PROMPT_LOADS) == sorted(PROMPT_LOADS)
    assert loaded(run, LEAN) == []
    assert loaded(run, RANKING_LATER) == []
    assert loaded(run, OPENSSL_HASHES) == []


MASKED_ARRAYS = "numpy.ma"
"""numpy's masked arrays: ``np.unique`` and ``np.isin`` import them on first use (a sixth of a
first recall's time); the long-lived engine's array code does without them."""


def test_a_long_lived_recall_ranks_with_numpy_but_without_its_masked_arrays(
    repo: Path, quiet: str, tmp_path: Path
) -> None:
    lines = "\n".join(
        json.dumps({"prompt": prompt, "files": ["src/app.py"]})
        for prompt in (PROMPT, "where are the docs built")
    )
    run = run_probed(repo, tmp_path / "m.json", "recall", "--batch", "-", "--json", stdin=lines)
    assert (run.code, run.stderr) == (0, "")
    assert quiet in run.stdout
    assert "recall.ranking.postings" in run.modules  # the kept word counts scored the text
    assert "numpy" in run.modules
    assert importlib.util.find_spec(MASKED_ARRAYS) is not None  # a real module, left out
    assert MASKED_ARRAYS not in run.modules


# -- the same names do load where they are needed ---------------------------------------------


@pytest.mark.parametrize("name", sorted(WRITES))
def test_writes_load_what_the_reads_leave_out(
    repo: Path, quiet: str, tmp_path: Path, name: str
) -> None:
    args, needs = WRITES[name]
    run = run_probed(repo, tmp_path / "m.json", *args)
    assert run.code == 0, run.stderr
    assert loaded(run, needs) == sorted(needs)


def defined(store: MemoryStore, path: str) -> list[str] | None:
    """The names the symbol index holds for ``path`` (None: it holds no such file)."""
    conn = store.conn
    if conn.execute("SELECT 1 FROM genome_symbol_files WHERE path = ?", (path,)).fetchone() is None:
        return None
    rows = conn.execute(
        "SELECT s.name FROM genome_symbols s JOIN genome_symbol_files f ON f.key = s.key "
        "WHERE f.path = ?",
        (path,),
    )
    return [row[0] for row in rows]


def test_a_stale_genome_loads_its_refresh_and_leaves_the_symbols_to_index(
    repo: Path, store: MemoryStore, quiet: str, tmp_path: Path
) -> None:
    (repo / "src" / "new.py").write_text("import util\n\n\ndef fresh():\n    return util\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a new file")
    payload = hook_input(repo, "UserPromptSubmit", prompt=PROMPT)
    run = run_probed(repo, tmp_path / "m.json", "hook", "prompt", stdin=payload)
    assert (run.code, run.stderr) == (0, "")
    assert quiet in run.stdout
    assert loaded(run, GENOME_REFRESH) == sorted(GENOME_REFRESH)
    assert loaded(run, SYMBOL_PARSE) == []  # the hook parsed nothing
    assert defined(store, "src/new.py") is None
    again = run_probed(repo, tmp_path / "again.json", "hook", "prompt", stdin=payload)
    assert loaded(again, GENOME_REFRESH) == []  # lagging symbols do not make a hook refresh
    index = run_probed(repo, tmp_path / "index.json", "index")
    assert index.code == 0, index.stderr
    assert loaded(index, SYMBOL_PARSE) == sorted(SYMBOL_PARSE)
    assert defined(store, "src/new.py") == ["fresh"]


def test_pre_edit_after_a_commit_reads_the_commits_since_and_no_symbols(
    repo: Path, store: MemoryStore, quiet: str, tmp_path: Path
) -> None:
    git(repo, "mv", "src/util.py", "src/helpers.py")
    git(repo, "commit", "-q", "-m", "util.py becomes helpers.py")
    run = run_probed(repo, tmp_path / "m.json", "hook", "pre-edit", stdin=edit_input(repo))
    assert (run.code, run.stderr) == (0, "")
    assert f"[{quiet}]" in run.stdout
    assert loaded(run, GENOME_REFRESH) == sorted(GENOME_REFRESH)  # the renames caught up
    assert loaded(run, SYMBOL_PARSE) == []  # the hook parsed nothing
    assert loaded(run, PROMPT_LOADS) == []  # nor queried the genome beyond its renames
    assert defined(store, "src/helpers.py") is None
    again = run_probed(repo, tmp_path / "again.json", "hook", "pre-edit", stdin=edit_input(repo))
    assert (again.code, again.stderr) == (0, "")
    assert loaded(again, GENOME_REFRESH) == []  # caught up once: read from the index since


STAGED_RENAMES = ("subprocess",)
"""git run to ask for a rename staged into the edited file: only for a file HEAD's tree does not
hold under its name as the genome indexed it (new, or the target of a rename not committed yet,
even onto a name an earlier commit deleted)."""


def test_pre_edit_asks_git_for_a_staged_rename_only_of_a_file_history_does_not_know(
    repo: Path, quiet: str, tmp_path: Path
) -> None:
    git(repo, "mv", "src/util.py", "src/helpers.py")  # staged, not committed
    known = run_probed(repo, tmp_path / "k.json", "hook", "pre-edit", stdin=edit_input(repo))
    assert (known.code, known.stderr) == (0, "")
    assert f"[{quiet}]" in known.stdout
    assert loaded(known, STAGED_RENAMES) == []  # src/app.py has history: no git
    assert loaded(known, LEAN) == []
    tool_input = {"file_path": str(repo / "src/helpers.py"), "old_string": "a", "new_string": "b"}
    payload = hook_input(repo, "PreToolUse", tool_name="Edit", tool_input=tool_input)
    renamed = run_probed(repo, tmp_path / "r.json", "hook", "pre-edit", stdin=payload)
    assert (renamed.code, renamed.stderr) == (0, "")
    assert loaded(renamed, STAGED_RENAMES) == sorted(STAGED_RENAMES)  # one git call
    assert loaded(renamed, GENOME_REFRESH[:-1]) == []  # and no refresh: nothing committed


def test_pre_edit_asks_git_of_a_rename_staged_onto_a_deleted_name_and_not_of_a_tracked_file(
    repo: Path, quiet: str, tmp_path: Path
) -> None:
    (repo / "src" / "gone.py").write_text("def gone():\n    return 0\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "add gone.py")
    git(repo, "rm", "-q", "src/gone.py")
    git(repo, "commit", "-q", "-m", "delete gone.py")
    assert run_probed(repo, tmp_path / "i.json", "index").code == 0
    git(repo, "mv", "src/util.py", "src/gone.py")  # staged onto a name the history knows
    known = run_probed(repo, tmp_path / "k.json", "hook", "pre-edit", stdin=edit_input(repo))
    assert (known.code, known.stderr) == (0, "")
    assert loaded(known, STAGED_RENAMES) == []  # src/app.py is a file of HEAD: no git
    tool_input = {"file_path": str(repo / "src/gone.py"), "old_string": "a", "new_string": "b"}
    payload = hook_input(repo, "PreToolUse", tool_name="Edit", tool_input=tool_input)
    renamed = run_probed(repo, tmp_path / "r.json", "hook", "pre-edit", stdin=payload)
    assert (renamed.code, renamed.stderr) == (0, "")
    assert loaded(renamed, STAGED_RENAMES) == sorted(STAGED_RENAMES)  # one git call


def test_pre_edit_loads_the_parser_only_for_a_file_with_a_guard_on_a_symbol(
    repo: Path, quiet: str, tmp_path: Path
) -> None:
    summary = "helper returns one"
    guard = ("remember", summary, "-c", "decision", "--guard", "--anchor", "src/util.py::helper")
    assert run_probed(repo, tmp_path / "w.json", *guard).code == 0
    elsewhere = run_probed(repo, tmp_path / "a.json", "hook", "pre-edit", stdin=edit_input(repo))
    assert f"[{quiet}]" in elsewhere.stdout
    assert loaded(elsewhere, SYMBOL_PARSE) == []
    tool_input = {"file_path": str(repo / "src/util.py"), "old_string": "return 1"}
    payload = hook_input(repo, "PreToolUse", tool_name="Edit", tool_input=tool_input)
    guarded = run_probed(repo, tmp_path / "u.json", "hook", "pre-edit", stdin=payload)
    assert '"permissionDecision": "ask"' in guarded.stdout
    assert loaded(guarded, SYMBOL_PARSE) == sorted(SYMBOL_PARSE)
    # a store with a symbol anchor: a recall on a touched file looks for moved symbols
    inject = ("inject", "helper", "--no-record", "--file", "src/app.py")
    anchored = run_probed(repo, tmp_path / "i.json", *inject)
    assert (anchored.code, anchored.stderr) == (0, "")
    assert loaded(anchored, SYMBOL_MOVES) == sorted(SYMBOL_MOVES)


def test_settings_files_and_a_notice_load_their_readers_and_the_log(
    repo: Path, quiet: str, tmp_path: Path, tether_home: Path
) -> None:
    (repo / ".tether" / "config.toml").write_text("max_per_fiel = 2\n", encoding="utf-8")
    tether_home.mkdir(parents=True, exist_ok=True)
    (tether_home / "config.toml").write_text(
        'distill_command = "llm-distill --json"\n', encoding="utf-8"
    )
    run = run_probed(repo, tmp_path / "m.json", "hook", "pre-edit", stdin=edit_input(repo))
    assert (run.code, run.stderr) == (0, "")
    assert f"[{quiet}]" in run.stdout
    assert "max_per_fiel" in (repo / ".tether" / "hooks.log").read_text(encoding="utf-8")
    assert loaded(run, RARELY) == sorted(RARELY)


OTHER_COMMANDS = ("recall.cli.cmd_browse", "recall.cli.cmd_cleanup", "recall.cli.cmd_distill")
"""Command modules a bulk import or export has no use for (the full parser loads them)."""


def test_import_and_export_parse_with_their_own_module_only(
    repo: Path, store: MemoryStore, tmp_path: Path
) -> None:
    line = {"summary": "retries are capped at five", "category": "decision", "files": ["a.py"]}
    run = run_probed(repo, tmp_path / "i.json", "import", "-", "--json", stdin=json.dumps(line))
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["status"] == "created"
    assert "recall.cli.cmd_io" in run.modules
    assert loaded(run, OTHER_COMMANDS) == []
    exported = run_probed(repo, tmp_path / "e.json", "export")
    assert exported.code == 0, exported.stderr
    assert "retries are capped at five" in exported.stdout
    assert loaded(exported, OTHER_COMMANDS) == []
    full = run_probed(repo, tmp_path / "f.json", "list", "--json")
    assert full.code == 0, full.stderr
    assert loaded(full, OTHER_COMMANDS) == sorted(OTHER_COMMANDS)


def test_every_module_named_is_seen_loading_somewhere() -> None:
    """Each name the lean tests rule out is one that a test above sees load, so none of them
    can be a misspelt or dead name that is trivially absent."""
    seen = {*GENOME_REFRESH, *SYMBOL_PARSE, *RARELY, *PROMPT_LOADS, *SYMBOL_MOVES}
    seen.update(RENAMES_AS_OF_HEAD)
    seen.update(PARSER, HINT_POLICY)  # inject parses its options; a warning consults the policy
    for _args, needs in WRITES.values():
        seen.update(needs)
    assert {*LEAN, *EDIT_ONLY, *OPENSSL_HASHES, *PARSER, *HINT_POLICY} <= seen


def test_per_prompt_and_per_edit_commands_run_without_the_cyclic_collector(
    repo: Path, quiet: str, tmp_path: Path
) -> None:
    """inject and the hooks end within a fraction of a second: the collector's passes are
    only cost to them; every other command, servers and bulk imports among them, keeps it."""
    inject = run_probed(repo, tmp_path / "i.json", "inject", PROMPT, "--no-record")
    assert (inject.code, inject.stderr) == (0, "")
    assert quiet in inject.stdout
    assert inject.collector is False
    payload = hook_input(repo, "UserPromptSubmit", prompt=PROMPT)
    hook = run_probed(repo, tmp_path / "h.json", "hook", "prompt", stdin=payload)
    assert (hook.code, hook.stderr) == (0, "")
    assert hook.collector is False
    listed = run_probed(repo, tmp_path / "l.json", "list", "--json")
    assert listed.code == 0, listed.stderr
    assert listed.collector is True

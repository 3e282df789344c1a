"""The Neovim configurations `tether editor-config` prints, loaded as a user's init.lua is, with
the paths users have: a repository folder with a space and a comma in its name, a command under
a folder with a non-ASCII name, Neovim started from outside the repository, a command that
cannot start. The snippet finds the repository by itself (no root is handed to it), and every
byte of the command reaches Neovim as it was given.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.editors.clients import emacs_with_eglot, system_nvim, venv_nvim
from tests.editors.test_real_editors import HERE, assert_gotcha_and_card, run_editor
from tests.lsp.workspace import build

# Each byte class a Lua string literal must carry: quotes, a backslash, a newline, a tab, other
# control characters, DEL, a digit after an escaped byte, UTF-8 text and a byte that is not UTF-8
# (a file name Python holds as a lone surrogate).
AWKWARD = ['it\'s "quoted"', "back\\slash", "two\nlines\ttab", "\x01" + "7\x1f\x7f", "café 🙂"]
PROBE_FIRST = "lua dofile(os.getenv('PROBE_LUA'))"
NOT_UTF8 = os.fsdecode(b"caf\xe9")


def printed(editor: str, command: list[str]) -> str:
    """What `tether editor-config EDITOR --command ... --allow-missing` prints for ``command``
    (some commands here are made up, or meant not to start)."""
    line = shlex.join(command)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "recall",
            "editor-config",
            editor,
            "--command",
            line,
            "--allow-missing",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def run_printed(
    nvim: str | Path, probe: str, config: str, opened: Path, tmp_path: Path, cwd: Path, **env: str
) -> dict:
    """Neovim with the printed ``config`` as its whole init.lua, ``probe`` loaded before it
    (so that a config which fails to load is reported, not waited on), editing ``opened``."""
    init = tmp_path / "init.lua"
    init.write_text(config, encoding="utf-8")
    return run_editor(
        [str(nvim), "--headless", "--clean", "--cmd", PROBE_FIRST, "-u", str(init), str(opened)],
        tmp_path / "nvim.json",
        {"PROBE_LUA": str(HERE / probe), **env},
        cwd,
    )


def elsewhere(tmp_path: Path) -> Path:
    """A folder outside every repository, to start Neovim in."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    return folder


def launcher(folder: Path) -> Path:
    """A ``tether`` program in ``folder`` that runs this checkout's server, as a venv's does."""
    folder.mkdir(parents=True)
    program = folder / "tether"
    program.write_text('#!/bin/sh\nexec "$PROBE_PY" -m recall "$@"\n', encoding="utf-8")
    program.chmod(0o755)
    return program


@pytest.mark.parametrize(
    ("repo_name", "program_folder"),
    [("repo", "café"), ("my repo, v2", "bin")],
    ids=["non-ascii-command", "space-and-comma-repository"],
)
def test_neovim_07_printed_snippet_finds_the_repository(
    tmp_path: Path, repo_name: str, program_folder: str
) -> None:
    """Neovim 0.7 started outside the repository, with the snippet as its init.lua and nothing
    else telling it where the repository is: the gotcha and its hover card arrive."""
    nvim = system_nvim()
    ws = build(tmp_path / repo_name)
    config = printed("neovim-0.7", [str(launcher(tmp_path / program_folder)), "lsp"])
    result = run_printed(nvim, "probe.lua", config, ws.store_py, tmp_path, elsewhere(tmp_path))
    assert result["errors"] == []
    assert_gotcha_and_card(result, ws)


def test_neovim_07_printed_snippet_with_a_command_that_cannot_start(tmp_path: Path) -> None:
    """A command that does not exist: one message from Tether naming it and what to do, and
    no Lua error on the file opened nor on each file opened after it."""
    nvim = system_nvim()
    ws = build(tmp_path / "repo")
    missing = tmp_path / "no such venv" / "bin" / "tether"
    config = printed("neovim-0.7", [str(missing), "lsp"])
    more = f"{ws.app_py}\n{ws.notes}\n"
    result = run_printed(nvim, "probe.lua", config, ws.store_py, tmp_path, ws.root, PROBE_OPEN=more)
    assert result.get("error") is None, result["error"]
    assert result["errors"] == []
    assert result["attached"] is False
    ours = [n for n in result["notices"] if n["message"].startswith("Tether")]
    assert len(ours) == 1, result["notices"]
    assert str(missing) in ours[0]["message"]
    assert "--command" in ours[0]["message"]
    assert ours[0]["level"] == 4  # vim.log.levels.ERROR


def test_neovim_011_printed_config_with_paths_users_have(tmp_path: Path) -> None:
    """Neovim 0.11 with the printed config, its command under a non-ASCII folder and the
    repository's name holding a space and a comma, started outside it: the gotcha arrives."""
    nvim = venv_nvim()
    ws = build(tmp_path / "my repo, v2")
    config = printed("neovim", [str(launcher(tmp_path / "café")), "lsp"])
    result = run_printed(nvim, "probe_011.lua", config, ws.store_py, tmp_path, elsewhere(tmp_path))
    assert_gotcha_and_card(result, ws)


@pytest.mark.parametrize("editor", ["neovim", "neovim-0.7"])
def test_printed_command_reaches_neovim_byte_for_byte(tmp_path: Path, editor: str) -> None:
    """Every byte of an awkward command survives the Lua literals: Neovim reads back the very
    bytes given (0.11's own LuaJIT reads both snippets; the client it would start is asked for
    nothing, since no file is opened)."""
    nvim = venv_nvim()
    command = [*AWKWARD, NOT_UTF8]
    init = tmp_path / "init.lua"
    init.write_text(printed(editor, command), encoding="utf-8")
    capture = tmp_path / "capture.lua"
    capture.write_text(
        "pcall(function()\n"
        "  local seen = vim.lsp.config and vim.lsp.config.tether and vim.lsp.config.tether.cmd\n"
        "  if not seen then\n"  # the 0.7 snippet: the cmd is in its start_client call
        "    local start = vim.lsp.start_client\n"
        "    vim.lsp.start_client = function(config) seen = config.cmd; return nil end\n"
        "    vim.api.nvim_exec_autocmds('BufNewFile', { pattern = 'x.py' })\n"
        "    vim.lsp.start_client = start\n"
        "  end\n"
        "  local bytes = table.concat(seen, '\\0')\n"
        "  local handle = io.open(os.getenv('PROBE_OUT'), 'wb')\n"
        "  handle:write(bytes)\n"
        "  handle:close()\n"
        "end)\n"
        "vim.cmd('qa!')\n",
        encoding="utf-8",
    )
    out = tmp_path / "cmd.bin"
    done = subprocess.run(
        [str(nvim), "--headless", "--clean", "-u", str(init), "-c", PROBE_FIRST],
        cwd=tmp_path,
        env={**os.environ, "PROBE_OUT": str(out), "PROBE_LUA": str(capture)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.exists(), f"the config did not load:\n{done.stdout}\n{done.stderr}"
    assert out.read_bytes() == b"\0".join(os.fsencode(part) for part in command)


def test_printed_command_reaches_emacs_byte_for_byte(tmp_path: Path) -> None:
    """Every byte of an awkward command survives the Emacs Lisp literals (an emoji is one
    escape, not two halves of a UTF-16 pair; a byte that is not UTF-8 stays that byte): Emacs
    reads back, from the printed snippet, the very bytes given."""
    emacs = emacs_with_eglot()
    command = [*AWKWARD, NOT_UTF8 + "beef"]  # hex digits right after the raw byte
    init = tmp_path / "init.el"
    init.write_text(printed("emacs", command), encoding="ascii")
    out = tmp_path / "cmd.bin"
    capture = tmp_path / "capture.el"  # only the reader is asked for: no eglot is loaded
    capture.write_text(
        "(defvar eglot-server-programs nil)\n"
        "(provide 'eglot)\n"
        f"(load {json.dumps(str(init))} nil t)\n"
        "(let ((coding-system-for-write 'binary)\n"
        "      (parts (cdr (assoc '(prog-mode text-mode) eglot-server-programs))))\n"
        '  (with-temp-file (getenv "PROBE_OUT")\n'
        "    (set-buffer-multibyte nil)\n"
        "    (insert (mapconcat (lambda (part) (encode-coding-string part 'utf-8-emacs))\n"
        "                       parts (string 0)))))\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [emacs, "--batch", "-Q", "-l", str(capture)],
        cwd=tmp_path,
        env={**os.environ, "PROBE_OUT": str(out)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.exists(), f"the snippet did not load:\n{done.stdout}\n{done.stderr}"
    assert out.read_bytes() == b"\0".join(os.fsencode(part) for part in command)


def test_the_emacs_snippet_opens_memory_files_and_drafts_in_a_mode_eglot_serves(
    tmp_path: Path,
) -> None:
    """Stock Emacs has no Markdown mode: a draft opened in fundamental-mode has no server, and
    saving it remembered nothing. With the snippet a memory file or a draft opens in
    text-mode (which the server entry covers); other Markdown files are left as they were."""
    emacs = emacs_with_eglot()
    init = tmp_path / "init.el"
    init.write_text(printed("emacs", ["tether", "lsp"]), encoding="utf-8")
    repo = tmp_path / "repo"
    for name in (".tether/drafts/1a2b3c4d.md", ".tether/memories/5e6f7a8b.md", "README.md"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text("x\n", encoding="utf-8")
    probe = tmp_path / "probe.el"
    probe.write_text(
        f"(load {json.dumps(str(init))} nil t)\n"
        '(dolist (name \'(".tether/drafts/1a2b3c4d.md" ".tether/memories/5e6f7a8b.md"\n'
        '                "README.md"))\n'
        f"  (with-current-buffer\n"
        f"      (find-file-noselect (expand-file-name name {json.dumps(str(repo))}))\n"
        '    (princ (format "%s %s\\n" name major-mode))))\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [emacs, "--batch", "-Q", "-l", str(probe)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    modes = dict(line.split() for line in done.stdout.splitlines() if line.strip())
    assert modes == {
        ".tether/drafts/1a2b3c4d.md": "text-mode",
        ".tether/memories/5e6f7a8b.md": "text-mode",
        "README.md": "fundamental-mode",
    }, done.stderr

"""Real editors, headless: Neovim 0.7 shows the gotcha and its hover; Emacs eglot receives it.

Each test skips, with the reason, when its editor is not installed (``.ci/run`` installs them).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lsp.workspace import GOTCHA, GOTCHA_DETAILS, build

HERE = Path(__file__).parent


def run_editor(command: list[str], out: Path, env: dict[str, str], cwd: Path) -> dict:
    """Run a headless editor probe and return the JSON it wrote."""
    done = subprocess.run(
        command,
        cwd=cwd,
        env={**os.environ, **env, "PROBE_OUT": str(out), "PROBE_PY": sys.executable},
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert out.exists(), f"the probe wrote nothing:\n{done.stdout}\n{done.stderr}"
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.skipif(shutil.which("nvim") is None, reason="nvim is not installed (apt neovim)")
def test_neovim_shows_the_gotcha_and_its_hover(tmp_path: Path) -> None:
    ws = build(tmp_path / "repo")
    result = run_editor(
        ["nvim", "--headless", "--clean", "-u", str(HERE / "probe.lua"), str(ws.store_py)],
        tmp_path / "nvim.json",
        {"PROBE_ROOT": str(ws.root)},
        ws.root,
    )
    assert result.get("error") is None, result["error"]
    (diagnostic,) = result["diagnostics"]
    assert diagnostic["message"] == f'gotcha "{GOTCHA}" [{ws.gotcha}] — review before editing'
    assert diagnostic["source"] == "tether"
    assert diagnostic["severity"] == 2  # vim.diagnostic.severity.WARN
    line = ws.store_py.read_text().splitlines().index("def save_session(path, data):")
    assert (diagnostic["lnum"], diagnostic["col"]) == (line, 4)
    assert GOTCHA in result["hover"]
    assert GOTCHA_DETAILS in result["hover"]


@pytest.mark.skipif(shutil.which("emacs") is None, reason="emacs is not installed (apt emacs-nox)")
@pytest.mark.skipif(
    not Path("/usr/share/emacs/site-lisp/elpa").is_dir()
    or not any(Path("/usr/share/emacs/site-lisp/elpa").glob("eglot-*")),
    reason="eglot is not installed (apt elpa-eglot)",
)
def test_emacs_eglot_receives_the_gotcha(tmp_path: Path) -> None:
    ws = build(tmp_path / "repo")
    result = run_editor(
        ["emacs", "--batch", "-Q", "-l", str(HERE / "probe.el")],
        tmp_path / "emacs.json",
        {"PROBE_FILE": str(ws.store_py), "HOME": str(tmp_path)},
        ws.root,
    )
    assert result["uri"].endswith("/src/store.py")
    (diagnostic,) = result["diagnostics"]
    assert diagnostic["message"] == f'gotcha "{GOTCHA}" [{ws.gotcha}] — review before editing'
    assert diagnostic["source"] == "tether"
    assert diagnostic["code"] == ws.gotcha
    assert diagnostic["severity"] == 2

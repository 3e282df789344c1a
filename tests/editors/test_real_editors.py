"""Real editors, headless: Neovim 0.11 (with the configuration docs/editors.md gives) shows
the gotcha, its hover card and its quick fixes; Neovim 0.7 shows the gotcha and its hover; Emacs
eglot receives it. Neovim's empty Lua tables in a user's config (sent as JSON ``[]``) are empty
settings: the gotcha and its card arrive, and the server says nothing about its settings.

Neovim 0.11 comes with the dev dependencies. The others skip, with the reason, when their
editor is not installed, except on CI, where they fail (``.ci/run`` installs them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.editors.clients import emacs_with_eglot, system_nvim, venv_nvim
from tests.lsp.workspace import GOTCHA, GOTCHA_DETAILS, Workspace, build

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


def settings_complaints(result: dict) -> list[str]:
    """The warnings and errors about its settings the server showed or logged in the editor."""
    return [
        m["message"]
        for m in result["messages"]
        if m["type"] <= 2 and "settings" in m["message"].lower()  # 1 error, 2 warning
    ]


def assert_gotcha_and_card(result: dict, ws: Workspace) -> None:
    """The editor got the gotcha diagnostic on save_session and the card on hovering it."""
    assert result.get("error") is None, result["error"]
    (diagnostic,) = result["diagnostics"]
    assert diagnostic["message"] == f'gotcha "{GOTCHA}" [{ws.gotcha}] — review before editing'
    assert (diagnostic["source"], diagnostic["severity"]) == ("tether", 2)  # 2: WARN
    line = ws.store_py.read_text().splitlines().index("def save_session(path, data):")
    assert (diagnostic["lnum"], diagnostic["col"]) == (line, 4)
    assert result["hover"] is not None, "no hover card came back"
    assert GOTCHA in result["hover"] and GOTCHA_DETAILS in result["hover"]


def test_neovim_011_with_the_documented_config(tmp_path: Path) -> None:
    """The config `tether editor-config neovim` prints (the one docs/editors.md shows), loaded
    as a user's init.lua would: the gotcha, the hover card and the quick fixes arrive, its
    empty tables are sent as JSON objects and the server has nothing to say about them."""
    nvim = venv_nvim()
    ws = build(tmp_path / "repo")
    config = subprocess.run(
        [sys.executable, "-m", "recall", "editor-config", "neovim"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "vim.lsp.config('tether'" in config and "vim.lsp.enable('tether')" in config
    init = tmp_path / "init.lua"
    init.write_text(f"{config}\ndofile({json.dumps(str(HERE / 'probe_011.lua'))})\n")
    result = run_editor(
        [str(nvim), "--headless", "--clean", "-u", str(init), str(ws.store_py)],
        tmp_path / "nvim.json",
        {},
        ws.root,
    )
    assert result.get("error") is None, result["error"]
    assert result["client"] == "tether"
    (diagnostic,) = result["diagnostics"]
    assert diagnostic["message"] == f'gotcha "{GOTCHA}" [{ws.gotcha}] — review before editing'
    assert (diagnostic["source"], diagnostic["code"], diagnostic["severity"]) == (
        "tether",
        ws.gotcha,
        2,
    )
    line = ws.store_py.read_text().splitlines().index("def save_session(path, data):")
    assert (diagnostic["lnum"], diagnostic["col"]) == (line, 4)
    assert GOTCHA in result["hover"] and GOTCHA_DETAILS in result["hover"]
    assert f"Tether: pin gotcha {ws.gotcha}" in result["actions"]
    assert f"Tether: show details of gotcha {ws.gotcha}" in result["actions"]
    assert "Tether: remember something about this file…" in result["actions"]
    assert settings_complaints(result) == []
    # The printed config's empty tables reach the server as JSON objects, not Lua's [].
    assert result["encoded"] == {"init_options": "{}", "settings": '{"tether":{}}'}


def test_neovim_011_documented_config_saves_a_user_wide_draft_in_the_same_server(
    tmp_path: Path, tether_home: Path
) -> None:
    """Superseding a user-wide memory from the documented config: the draft opens under
    ``TETHER_HOME``, where no root marker is; it goes to the server already running (root
    markers alone start a second one, with no folder, for it), and saving it supersedes the
    memory."""
    from recall.locations import global_location
    from recall.store import MemoryStore

    nvim = venv_nvim()
    ws = build(tmp_path / "repo")
    store = MemoryStore(global_location(ws.root), notice=lambda message: None)
    try:
        old = store.remember(
            store.prepare_memory(summary="use the v2 API", category="gotcha", files=["src/app.py"])
        ).id
    finally:
        store.close()
    config = subprocess.run(
        [sys.executable, "-m", "recall", "editor-config", "neovim"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    init = tmp_path / "init.lua"
    init.write_text(f"{config}\ndofile({json.dumps(str(HERE / 'probe_supersede.lua'))})\n")
    result = run_editor(
        [str(nvim), "--headless", "--clean", "-u", str(init), str(ws.app_py)],
        tmp_path / "nvim.json",
        {"PROBE_MEMORY": old, "PROBE_SUMMARY": "use the v3 API"},
        ws.root,
    )
    assert result.get("error") is None, result["error"]
    assert Path(result["draft"]).parent == tether_home / "drafts"
    assert any("remembered in" in m for m in result["messages"]), result["messages"]
    assert result["clients"] == 1, "the draft started a Tether server of its own"
    store = MemoryStore(global_location(ws.root), notice=lambda message: None)
    try:
        store.refresh()
        replaced = store.find(old)
        assert replaced is not None and replaced.status == "superseded"
        assert store.find(replaced.superseded_by or "").summary == "use the v3 API"
    finally:
        store.close()


@pytest.mark.parametrize(
    "empty",
    [
        "init_options = {}",
        "settings = { tether = {} }",
        "settings = { tether = { severity = {}, clientSeverity = {} } }",
    ],
)
def test_neovim_011_empty_settings_tables_are_empty_settings(tmp_path: Path, empty: str) -> None:
    """A config written as users do, with an empty table where vim.empty_dict() would be exact:
    Neovim 0.11 sends it as ``[]`` (in initialize, or as its answer to the settings pull), and
    the server takes it as no settings. A bare ``settings = {}`` is left out: Neovim sends no
    table for it (it answers the pull with null)."""
    nvim = venv_nvim()
    ws = build(tmp_path / "repo")
    init = tmp_path / "init.lua"
    init.write_text(
        "vim.lsp.config('tether', { cmd = { os.getenv('PROBE_PY'), '-m', 'recall', 'lsp' },\n"
        f"  root_markers = {{ '.tether', '.git' }}, {empty} }})\n"
        "vim.lsp.enable('tether')\n"
        f"dofile({json.dumps(str(HERE / 'probe_011.lua'))})\n"
    )
    result = run_editor(
        [str(nvim), "--headless", "--clean", "-u", str(init), str(ws.store_py)],
        tmp_path / "nvim.json",
        {},
        ws.root,
    )
    assert_gotcha_and_card(result, ws)
    assert result["configuration_answers"] > 0, "the server never asked Neovim for its settings"
    assert settings_complaints(result) == []


def test_neovim_07_shows_the_gotcha_and_its_hover(tmp_path: Path) -> None:
    nvim = system_nvim()
    ws = build(tmp_path / "repo")
    result = run_editor(
        [nvim, "--headless", "--clean", "-u", str(HERE / "probe.lua"), str(ws.store_py)],
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


def test_neovim_07_empty_init_options_are_empty_settings(tmp_path: Path) -> None:
    """``init_options = {}`` given to Neovim 0.7's ``vim.lsp.start_client`` arrives as ``[]``:
    the server takes it as no settings. (Neovim 0.7 sends its ``settings`` neither pushed nor
    pulled, so ``settings = { tether = {} }`` never reaches the server.)"""
    nvim = system_nvim()
    ws = build(tmp_path / "repo")
    init = tmp_path / "init.lua"
    init.write_text(
        f"PROBE_CLIENT = {{ init_options = {{}} }}\ndofile({json.dumps(str(HERE / 'probe.lua'))})\n"
    )
    result = run_editor(
        [nvim, "--headless", "--clean", "-u", str(init), str(ws.store_py)],
        tmp_path / "nvim.json",
        {"PROBE_ROOT": str(ws.root)},
        ws.root,
    )
    assert_gotcha_and_card(result, ws)
    assert settings_complaints(result) == []


def test_emacs_eglot_receives_the_gotcha(tmp_path: Path) -> None:
    emacs = emacs_with_eglot()
    ws = build(tmp_path / "repo")
    result = run_editor(
        [emacs, "--batch", "-Q", "-l", str(HERE / "probe.el")],
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

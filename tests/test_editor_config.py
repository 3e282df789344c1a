"""`tether editor-config`: snippets that parse, cover every Helix language, keep its defaults."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from recall.cli.helix_languages import LANGUAGES
from recall.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """Run the CLI in-process; return (exit code, stdout)."""
    code = main(["editor-config", *args])
    return code, capsys.readouterr().out


def test_helix_covers_every_language_and_keeps_defaults(capsys) -> None:
    given = ("--command", "/opt/venv/bin/tether lsp", "--allow-missing")
    code, out = run(capsys, "helix", *given)
    assert code == 0
    config = tomllib.loads(out)
    assert config["language-server"]["tether"] == {
        "command": "/opt/venv/bin/tether",
        "args": ["lsp"],
    }
    languages = {entry["name"]: entry["language-servers"] for entry in config["language"]}
    assert len(languages) == len(LANGUAGES) > 300
    assert languages["python"] == ["ty", "ruff", "jedi", "pylsp", "zuban", "tether"]
    assert languages["json5"] == ["tether"]
    erlang = languages["erlang"]
    assert erlang[0] == {
        "name": "erlang-ls",
        "except-features": ["document-symbols", "workspace-symbols"],
    }
    assert all(servers[-1] == "tether" for servers in languages.values())


def test_helix_only_some_languages(capsys) -> None:
    code, out = run(capsys, "helix", "--only", "rust", "--only", "json5")
    assert code == 0
    languages = {e["name"]: e["language-servers"] for e in tomllib.loads(out)["language"]}
    assert languages == {"rust": ["rust-analyzer", "tether"], "json5": ["tether"]}


@pytest.mark.parametrize("editor", ["sublime", "claude-code", "opencode"])
def test_json_snippets_parse(capsys, editor: str) -> None:
    code, out = run(capsys, editor)
    assert code == 0
    config = json.loads(out)
    text = json.dumps(config)
    assert '"lsp"' in text and "tether" in text
    if editor == "claude-code":
        assert config["tether"]["extensionToLanguage"][".py"] == "python"
        assert "restartOnCrash" not in config["tether"]
    if editor == "opencode":  # OpenCode shows its agent errors only and does not name itself
        assert config["lsp"]["tether"]["initialization"] == {"severity": "error"}


@pytest.mark.parametrize(
    ("editor", "expected"),
    [
        ("neovim", "vim.lsp.enable('tether')"),
        ("neovim-0.7", "vim.lsp.start_client"),
        ("emacs", "eglot-server-programs"),
    ],
)
def test_other_snippets(capsys, editor: str, expected: str) -> None:
    given = ("--command", "tether lsp --log-level INFO", "--allow-missing")
    code, out = run(capsys, editor, *given)
    assert code == 0
    assert expected in out
    assert '"--log-level"' in out


def test_bad_input(capsys) -> None:
    assert main(["editor-config", "neovim", "--only", "rust"]) == 2
    assert main(["editor-config", "helix", "--command", ""]) == 2
    assert "--only applies to helix only" in capsys.readouterr().err


def test_the_cli_does_not_load_the_server_until_asked() -> None:
    probe = (
        "import sys; from recall.cli.main import build_parser; build_parser(); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('lsp_server', 'pygls')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


TETHER = Path(sys.executable).parent / "tether"
"""The console script of the installation under test (``make`` installs it in the venv)."""


def tether_with_path(path_dirs: list[str], *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run the installed ``tether`` by its absolute path with PATH set to ``path_dirs``."""
    env = {**os.environ, "PATH": os.pathsep.join(path_dirs)}
    return subprocess.run(
        [str(TETHER), *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def system_dirs() -> list[str]:
    """PATH entries without any ``tether`` on them."""
    return [d for d in os.environ["PATH"].split(os.pathsep) if d and not Path(d, "tether").exists()]


def test_the_running_tether_is_written_when_tether_is_not_on_path(tmp_path: Path) -> None:
    assert TETHER.is_file(), "the tests run from an installed checkout (make installs it)"
    done = tether_with_path(system_dirs(), "editor-config", "neovim", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f'cmd = {{ "{TETHER}", "lsp" }}' in done.stdout
    assert f"server command written is {TETHER} lsp (tether is not on PATH" in done.stderr
    done = tether_with_path(system_dirs(), "agent-config", "opencode", cwd=tmp_path)
    assert json.loads(done.stdout)["mcp"]["tether"]["command"] == [str(TETHER), "mcp"]
    assert "tether is not on PATH" in done.stderr
    done = tether_with_path(system_dirs(), "--json", "agent-config", "claude-code", cwd=tmp_path)
    report = json.loads(done.stdout)
    assert report["command"] == [str(TETHER)]
    hooks = json.loads((tmp_path / "tether-claude-plugin/hooks/hooks.json").read_text())
    first = hooks["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert first == f"{TETHER} hook session-start"


def test_plain_tether_is_written_when_it_is_on_path(tmp_path: Path) -> None:
    done = tether_with_path(
        [str(TETHER.parent), *system_dirs()], "editor-config", "emacs", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert '("tether" "lsp")' in done.stdout
    assert "(tether is on PATH)" in done.stderr
    given = tether_with_path(
        system_dirs(),
        "editor-config",
        "emacs",
        "--command",
        "tt lsp",
        "--allow-missing",
        cwd=tmp_path,
    )
    assert '("tt" "lsp")' in given.stdout and "given with --command" in given.stderr


def test_the_claude_code_plugin_has_a_license_an_author_and_an_icon(tmp_path: Path) -> None:
    given = ["--command", "tether", "--allow-missing"]
    assert main(["-C", str(tmp_path), "agent-config", "claude-code", *given]) == 0
    folder = tmp_path / "tether-claude-plugin"
    manifest = json.loads((folder / ".claude-plugin/plugin.json").read_text())
    assert manifest["license"] == "MIT" and manifest["author"]["name"]
    icon = (folder / manifest["icon"]).read_bytes()
    assert icon[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", icon[16:24])
    assert width == height == 512  # square, 512 to 2048 px: what the plugin directory accepts

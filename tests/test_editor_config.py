"""`tether editor-config`: snippets that parse, cover every Helix language, keep its defaults."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib

import pytest

from recall.cli.helix_languages import LANGUAGES
from recall.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """Run the CLI in-process; return (exit code, stdout)."""
    code = main(["editor-config", *args])
    return code, capsys.readouterr().out


def test_helix_covers_every_language_and_keeps_defaults(capsys) -> None:
    code, out = run(capsys, "helix", "--command", "/opt/venv/bin/tether lsp")
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
    code, out = run(capsys, "helix", "--only", "rust", "--only", "brand-new-lang")
    assert code == 0
    languages = {e["name"]: e["language-servers"] for e in tomllib.loads(out)["language"]}
    assert languages == {"rust": ["rust-analyzer", "tether"], "brand-new-lang": ["tether"]}


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


@pytest.mark.parametrize(
    ("editor", "expected"),
    [
        ("neovim", "vim.lsp.enable('tether')"),
        ("neovim-0.7", "vim.lsp.start_client"),
        ("emacs", "eglot-server-programs"),
    ],
)
def test_other_snippets(capsys, editor: str, expected: str) -> None:
    code, out = run(capsys, editor, "--command", "tether lsp --log-level INFO")
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

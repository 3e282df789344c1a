"""A ``TETHER_HOME`` inside a workspace folder's repository: the folder goes without the
user-wide store, said where the user sees it, and the server goes on (it answers, and serves
the other folders). A folder with no repository either is left without memories, said once."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import make_repo
from tests.lsp.raw import raw_server


def test_a_home_inside_the_repository_leaves_the_user_wide_store_out_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    other = make_repo(tmp_path / "other", {"b.py": "y = 1\n"})
    monkeypatch.setenv("TETHER_HOME", str(repo / ".tether"))
    with raw_server(repo) as client:
        answer = client.request(
            "initialize",
            {
                "processId": None,
                "rootUri": repo.as_uri(),
                "capabilities": {},
                "workspaceFolders": [
                    {"uri": repo.as_uri(), "name": "repo"},
                    {"uri": other.as_uri(), "name": "other"},
                ],
            },
        )
        assert "result" in client.response(answer)  # not an internal error
        client.notify("initialized", {})
        shown = client.shown_messages(at_most=2)
        assert any("TETHER_HOME" in m and str(repo) in m for m in shown), shown
        listed = client.response(
            client.request(
                "workspace/executeCommand", {"command": "tether.list", "arguments": [{}]}
            )
        )
        assert "result" in listed, listed  # the server still answers


def test_a_refused_only_folder_does_not_turn_on_roots_found_from_documents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client named a folder with no repository and no usable user-wide store: its files
    stay without memories, the refusal said once, rather than each opened document trying
    the folder's stores again."""
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "a.py").write_text("x = 1\n", encoding="utf-8")
    home = tmp_path / "home-file"
    home.write_text("not a folder\n", encoding="utf-8")
    monkeypatch.setenv("TETHER_HOME", str(home))
    with raw_server(folder) as client:
        client.initialize(folder)
        for version in (1, 2):
            client.notify(
                "textDocument/didOpen",
                {
                    "textDocument": {
                        "uri": (folder / "a.py").as_uri(),
                        "languageId": "python",
                        "version": version,
                        "text": "x = 1\n",
                    }
                },
            )
        client.barrier()
        shown = [m for m in client.shown_messages(at_most=2) if "TETHER_HOME" in m]
        assert len(shown) == 1, shown
        logged = [
            m["params"]["message"]
            for m in client.received
            if m.get("method") == "window/logMessage" and "TETHER_HOME" in m["params"]["message"]
        ]
        assert len(logged) == 1, logged

"""The look for nested repositories, made each time a command's memory id is in no known store,
lists only the folders changed since the last one: an editor asking for unknown ids again and
again does not walk the whole tree each time, and a repository set up between two looks is
still found."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from lsp_server.workspace_roots import Roots
from recall.errors import NotFound
from recall.folder_watch import RACY_NS
from tests.lsp.workspace import SECOND_GOTCHA, Workspace, build_second


def _settle(folders: list[Path]) -> None:
    """Wait until the times of ``folders`` are old enough to be trusted (a look lists a folder
    changed too recently again, whatever its times say)."""
    newest = max(max(f.stat().st_mtime_ns, f.stat().st_ctime_ns) for f in folders)
    time.sleep(max(0.0, (newest + RACY_NS) / 1e9 - time.time()) + 0.05)


def test_a_look_for_an_unknown_id_lists_only_the_folders_changed_since_the_last(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = ws.root / "build"
    folders = [tree / f"d{n}" / "obj" for n in range(30)]
    for folder in folders:
        folder.mkdir(parents=True)
    listed: list[Path] = []
    scandir = os.scandir

    def counted(path: str) -> object:
        listed.append(Path(path))
        return scandir(path)

    roots = Roots(session="s", notice=lambda message: None, shown=lambda key, message: None)
    try:
        assert roots.add(ws.root) is not None
        _settle([ws.root, tree, *folders, *(f.parent for f in folders)])
        monkeypatch.setattr(os, "scandir", counted)

        def look() -> list[Path]:
            listed.clear()
            with pytest.raises(NotFound):
                roots.find("0badc0de")
            return [p for p in listed if p.is_relative_to(tree)]

        assert len(look()) == 1 + 2 * len(folders)  # the first look lists every folder
        assert look() == []  # nothing changed: nothing listed again
        nested = build_second(ws.root / "vendor" / "billing")
        (memory_file,) = (nested / ".tether" / "memories").glob("*.md")
        root, _, memory = roots.find(memory_file.stem)
        assert (root.repo_root, memory.summary) == (nested, SECOND_GOTCHA)
        assert [p for p in listed if p.is_relative_to(tree)] == []  # build/ did not change
    finally:
        roots.close()

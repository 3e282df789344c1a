"""Anchor states read from a real genome: the choice of a new home among several, a name too
common to follow, and the pinned limits behind those choices."""

from __future__ import annotations

from pathlib import Path

from conftest import git, make_repo

from recall.anchors.states import CHANGED, CURRENT, GONE, RELOCATED, UNKNOWN, resolve
from recall.anchors.symbols import SymbolAnchor
from recall.anchors.write import record_anchors
from recall.genome import Genome, limits
from recall.genome.symbols.model import body_hash
from recall.index.db import open_checked


def genome_of(root: Path, tmp_path: Path) -> Genome:
    genome = Genome(root, open_checked(tmp_path / "genome.db")[0])
    genome.refresh()
    return genome


def test_the_limits_are_pinned() -> None:
    assert limits.MAX_RELOCATION_CANDIDATES == 8
    assert limits.PARSE_THREADS == 2
    assert limits.PARALLEL_PARSE_MIN == 64


def test_a_moved_symbol_goes_to_the_file_with_its_body_else_the_nearest(tmp_path: Path) -> None:
    body = "def tick():\n    return 1\n"
    root = make_repo(
        tmp_path / "repo",
        {
            "app/clock.py": "def other():\n    pass\n",
            "app/timer.py": "def tick():\n    return 2\n",  # same name, another body
            "lib/far/clock.py": body,  # the same body, farther away
        },
    )
    genome = genome_of(root, tmp_path)
    recorded = SymbolAnchor("app/clock.py", "tick", body_hash(body.encode()))
    state = resolve(genome.conn, recorded, genome.renamed_to)
    assert (state.state, state.found and state.found.path, state.changed) == (
        RELOCATED,
        "lib/far/clock.py",
        False,
    )
    # no body known while app/clock.py is still there: nothing says this tick moved
    unrecorded = SymbolAnchor("app/clock.py", "tick")
    assert resolve(genome.conn, unrecorded, genome.renamed_to).state == GONE
    gone_file = SymbolAnchor("app/old/clock.py", "tick")  # no such file: the nearest one
    state = resolve(genome.conn, gone_file, genome.renamed_to)
    assert state.found is not None and state.found.path == "lib/far/clock.py"  # same file name
    nearest = resolve(genome.conn, SymbolAnchor("app/x.py", "tick"), genome.renamed_to)
    assert nearest.found is not None and nearest.found.path == "app/timer.py"  # same folder


def test_a_name_defined_everywhere_is_not_followed(tmp_path: Path) -> None:
    files = {
        f"m{n}/setup.py": f"def setup():\n    return {n}\n"
        for n in range(limits.MAX_RELOCATION_CANDIDATES + 1)
    }
    root = make_repo(tmp_path / "repo", {**files, "main.py": "def setup():\n    pass\n"})
    git(root, "rm", "-q", "main.py")
    git(root, "commit", "-q", "-m", "drop main")
    genome = genome_of(root, tmp_path)
    assert resolve(genome.conn, SymbolAnchor("main.py", "setup"), genome.renamed_to).state == GONE
    assert (
        resolve(genome.conn, SymbolAnchor("README.md", "setup"), genome.renamed_to).state == UNKNOWN
    )


ELSEWHERE = "def save():\n    return 'elsewhere'\n"


def test_a_file_still_there_that_cannot_answer_is_unknown_never_relocated(
    tmp_path: Path,
) -> None:
    two_saves = (
        "class Store:\n    def save(self):\n        pass\n\n"
        "class Cache:\n    def save(self):\n        pass\n"
    )
    root = make_repo(
        tmp_path / "repo",
        {
            "big.py": "def save():\n    pass\n" + "# padding\n" * (limits.MAX_SCAN_BYTES // 10 + 1),
            "blob.py": "def save():\n    pass\n\0\n",
            "two.py": two_saves,
            "other/save.py": ELSEWHERE,
        },
    )
    genome = genome_of(root, tmp_path)
    for anchor in (
        SymbolAnchor("big.py", "save"),  # over the size limit: skipped by the index
        SymbolAnchor("blob.py", "save"),  # binary: skipped
        SymbolAnchor("two.py", "save"),  # Store.save or Cache.save
    ):
        state = resolve(genome.conn, anchor, genome.renamed_to)
        assert (state.state, state.found) == (UNKNOWN, None), anchor
    qualified = resolve(genome.conn, SymbolAnchor("two.py", "Cache.save"), genome.renamed_to)
    assert (qualified.state, qualified.found and qualified.found.first_line) == (CURRENT, 6)


def test_a_file_read_by_the_fallback_is_matched_by_the_last_name_part(tmp_path: Path) -> None:
    kotlin = "class Store {\n  fun save() {}\n}\n"
    root = make_repo(tmp_path / "repo", {"src/Store.kt": kotlin, "src/Other.kt": "fun save() {}\n"})
    genome = genome_of(root, tmp_path)
    anchor = SymbolAnchor("src/Store.kt", "Store.save", "000000000000")
    state = resolve(genome.conn, anchor, genome.renamed_to)
    assert (state.state, state.found and state.found.path) == (CHANGED, "src/Store.kt")
    # a write records the body the same way, so the new anchor is current
    [written], notes = record_anchors(root, [("src/Store.kt", "Store.save")])
    assert notes == [] and written.body is not None
    assert resolve(genome.conn, written, genome.renamed_to).state == CURRENT


def test_a_function_deleted_from_a_file_still_there_is_gone(tmp_path: Path) -> None:
    save = "def save():\n    return 0\n"
    root = make_repo(
        tmp_path / "repo",
        {"app/clock.py": save + "\ndef keep():\n    pass\n", "app/timer.py": ELSEWHERE},
    )
    anchor = SymbolAnchor("app/clock.py", "save", body_hash(save.encode()))
    (root / "app/clock.py").write_text("def keep():\n    pass\n")
    git(root, "commit", "-qam", "drop save")
    genome = genome_of(root, tmp_path)
    # another file's save, with another body, is not where this one went
    assert resolve(genome.conn, anchor, genome.renamed_to).state == GONE


def test_an_anchor_made_at_the_cursor_is_current(tmp_path: Path) -> None:
    """The name under the cursor is the index's name; the anchor made from it is found again,
    for a JavaScript private method and a C++ call operator too."""
    from lsp_server.symbol_at import symbol_at

    files = {
        "src/a.js": "class Foo {\n  #priv() {\n    return 1;\n  }\n}\n",
        "src/a.cpp": "struct Foo {\n  int operator()(int a) {\n    return a;\n  }\n};\n",
    }
    root = make_repo(tmp_path / "repo", files)
    genome = genome_of(root, tmp_path)
    for path, text in files.items():
        name = symbol_at(path, text, 2)
        assert name is not None
        [anchor], notes = record_anchors(root, [(path, name)])
        assert notes == [] and anchor.body is not None, (path, name)
        state = resolve(genome.conn, anchor, genome.renamed_to)
        assert (state.state, state.found and state.found.first_line) == (CURRENT, 2), name

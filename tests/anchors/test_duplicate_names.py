"""Anchors to a name a file defines in several parts (overloads: one symbol) or twice (a
redefinition, both sides of an ``#ifdef``: ambiguous), read from a real genome."""

from __future__ import annotations

from pathlib import Path

from conftest import git, make_repo

from recall.anchors.states import CHANGED, CURRENT, UNKNOWN, resolve
from recall.anchors.symbols import SymbolAnchor
from recall.anchors.write import record_anchors
from recall.genome import Genome
from recall.genome.symbols.lookup import defined_in
from recall.index.db import open_checked

APP_TS = (
    "function over(a: number): number;\n"
    "function over(a: string): string;\n"
    "function over(a: any): any {\n  return a;\n}\n"
    "function solo(): number {\n  return 1;\n}\n"
)
DUP_PY = "def dup():\n    return 1\n\n\ndef dup():\n    return 2\n\n\ndef keep():\n    return 0\n"
PICK_C = (
    "#ifdef FAST\nstatic int pick(void) { return 1; }\n"
    "#else\nstatic int pick(void) { return 2; }\n#endif\n"
)


def genome_of(root: Path, db: Path) -> Genome:
    genome = Genome(root, open_checked(db)[0])
    genome.refresh()
    return genome


def edit_and_commit(root: Path, path: str, old: str, new: str) -> None:
    target = root / path
    target.write_text(target.read_text().replace(old, new))
    git(root, "commit", "-qam", f"edit {path}")


def test_an_overloaded_typescript_function_follows_its_implementation(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"src/app.ts": APP_TS})
    (over, solo), notes = record_anchors(root, [("src/app.ts", "over"), ("src/app.ts", "solo")])
    assert notes == [] and over.body is not None
    state = resolve(genome_of(root, tmp_path / "g1.db").conn, over)
    assert (state.state, state.found and (state.found.first_line, state.found.last_line)) == (
        CURRENT,
        (1, 5),
    )
    edit_and_commit(root, "src/app.ts", "return a;", "return a + 1;")
    genome = genome_of(root, tmp_path / "g2.db")
    assert resolve(genome.conn, over).state == CHANGED
    assert resolve(genome.conn, solo).state == CURRENT  # the lone function is untouched


def test_a_name_defined_twice_is_ambiguous_when_written_and_unknown_after(
    tmp_path: Path,
) -> None:
    root = make_repo(tmp_path / "repo", {"src/dup.py": DUP_PY, "src/pick.c": PICK_C})
    pairs = [("src/dup.py", "dup"), ("src/pick.c", "pick"), ("src/dup.py", "keep")]
    (dup, pick, keep), notes = record_anchors(root, pairs)
    assert (dup.body, pick.body) == (None, None)  # kept, with no hash of either definition
    assert keep.body is not None
    assert len(notes) == 2
    assert "dup is ambiguous in src/dup.py (defined 2 times, at lines 1, 5)" in notes[0]
    assert "pick is ambiguous in src/pick.c (defined 2 times, at lines 2, 4)" in notes[1]
    assert all("name the file instead" in note for note in notes)
    edit_and_commit(root, "src/dup.py", "return 2", "return 3")
    edit_and_commit(root, "src/pick.c", "return 2", "return 3")
    genome = genome_of(root, tmp_path / "genome.db")
    for anchor in (dup, pick, SymbolAnchor("src/dup.py", "dup", keep.body)):
        state = resolve(genome.conn, anchor, genome.renamed_to)
        assert (state.state, state.found) == (UNKNOWN, None), anchor
    assert resolve(genome.conn, keep, genome.renamed_to).state == CURRENT


def test_a_short_name_of_a_method_defined_twice_names_it_once(tmp_path: Path) -> None:
    """``f`` for a class's method defined twice is that qualified name defined twice, not a
    choice between two names that are one (``C.f, C.f``, with "give the qualified name")."""
    twice = "class C:\n    def f(self):\n        return 1\n\n    def f(self):\n        return 2\n"
    root = make_repo(tmp_path / "repo", {"src/c.py": twice})
    [anchor], [note] = record_anchors(root, [("src/c.py", "f")])
    assert anchor.body is None
    assert "C.f is ambiguous in src/c.py (defined 2 times, at lines 2, 5)" in note
    assert "C.f, C.f" not in note and "give the qualified name" not in note


def test_an_ambiguous_name_in_a_renamed_file_is_unknown(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"src/dup.py": DUP_PY})
    git(root, "mv", "src/dup.py", "src/twice.py")
    git(root, "commit", "-qm", "rename")
    genome = genome_of(root, tmp_path / "genome.db")
    state = resolve(genome.conn, SymbolAnchor("src/dup.py", "dup"), genome.renamed_to)
    assert (state.state, state.found) == (UNKNOWN, None)
    keep = resolve(genome.conn, SymbolAnchor("src/dup.py", "keep"), genome.renamed_to)
    assert keep.found is not None and keep.found.path == "src/twice.py"


def test_a_fallback_defined_in_a_try_block_can_be_anchored(tmp_path: Path) -> None:
    source = (
        "try:\n    from fastjson import dumps\n"
        "except ImportError:\n    def dumps(value):\n        return str(value)\n"
    )
    root = make_repo(tmp_path / "repo", {"src/compat.py": source})
    [anchor], notes = record_anchors(root, [("src/compat.py", "dumps")])
    assert notes == [] and anchor.body is not None
    genome = genome_of(root, tmp_path / "genome.db")
    state = resolve(genome.conn, anchor, genome.renamed_to)
    assert (state.state, state.found and state.found.first_line) == (CURRENT, 4)


def test_definitions_stored_by_an_older_reader_are_read_anew(tmp_path: Path) -> None:
    """An index built before overloads were one symbol holds the first signature alone under
    the bare blob id: the next refresh parses the file again rather than reuse it."""
    root = make_repo(tmp_path / "repo", {"src/app.ts": APP_TS})
    genome = genome_of(root, tmp_path / "genome.db")
    with genome.conn:
        genome.conn.execute("UPDATE genome_symbol_files SET key = substr(key, 1, 40)")
        genome.conn.execute("UPDATE genome_symbols SET key = substr(key, 1, 40)")
        genome.conn.execute("UPDATE genome_symbols SET last_line = 1 WHERE name = 'over'")
    (root / "README").write_text("a new commit for the refresh to read\n")
    git(root, "add", "README")
    git(root, "commit", "-qm", "readme")
    genome.refresh()
    [over] = [hit for hit in defined_in(genome.conn, "src/app.ts") if hit.name == "over"]
    assert (over.first_line, over.last_line) == (1, 5)

"""The symbol index: definitions read by tree-sitter (regex where no grammar loads), stored per
content key in the genome and parsed again only for contents not seen before."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from recall.genome import Genome
from recall.genome.limits import PARALLEL_PARSE_MIN
from recall.genome.symbols import grammars
from recall.genome.symbols.extract import REGEX, SKIPPED_BINARY, SKIPPED_HUGE, TREE_SITTER, extract
from recall.genome.symbols.lookup import defined_in, find_anywhere, find_in
from recall.genome.symbols.model import (
    body_hash,
    code_hashes,
    normalize_name,
    python_hash,
    same_code,
    tight_hash,
)

from .gitrepo import GitRepo

C_SOURCE = b"""#include <stdio.h>
static int foo(int a)
{
    return a;
}
struct s { int x; };
struct s *ptr;
int (*bar(void))(int) { return 0; }
#ifdef X
void inside_ifdef(void)
{
}
#endif
#define MAX(a, b) ((a) > (b) ? (a) : (b))
"""

SAMPLES = {
    "a.py": (
        b"class Store:\n    def save(self):\n        pass\n\n    @property\n"
        b"    def name(self):\n        return 1\n\ndef top():\n    pass\n",
        ["Store", "Store.save", "Store.name", "top"],
    ),
    "a.cpp": (
        b"namespace ns { class Foo { void inl() {} void decl(); };\nvoid Foo::decl() {} }\n"
        b"namespace { int hidden() { return 0; } }\n",
        ["ns", "ns.Foo", "ns.Foo.inl", "ns.Foo.decl", "hidden"],
    ),
    "a.ts": (
        b"export function f() {}\nexport const g = () => 1;\nexport class K { m() {} }\n"
        b"interface I { x: number }\ntype T = string;\nconst notAFunction = 3;\n",
        ["f", "g", "K", "K.m", "I", "T"],
    ),
    "a.js": (b"function f() {}\nclass K { m() {} }\n", ["f", "K", "K.m"]),
    "a.go": (
        b"package x\nfunc A() {}\nfunc (s *Store) Save() {}\ntype Store struct {}\n",
        ["A", "Store.Save", "Store"],
    ),
    "a.rs": (
        b"fn a() {}\nstruct S;\nimpl<T> Store<T> { fn save(&self) {} }\nmod m { fn inner() {} }\n",
        ["a", "S", "Store", "Store.save", "m", "m.inner"],
    ),
    "A.java": (
        b"class A { void m() {} A() {} class B { int n() { return 1; } } }\n",
        ["A", "A.m", "A.A", "A.B", "A.B.n"],
    ),
}


def test_c_definitions_with_kinds_and_line_ranges() -> None:
    found = extract("x.c", C_SOURCE)
    assert found.parser == TREE_SITTER
    by_name = {d.name: d for d in found.definitions}
    assert list(by_name) == ["foo", "s", "bar", "inside_ifdef", "MAX"]  # `struct s *ptr` is no def
    assert (by_name["foo"].kind, by_name["foo"].start, by_name["foo"].end) == ("function", 2, 5)
    assert by_name["s"].kind == "struct"
    assert by_name["MAX"].kind == "macro"


@pytest.mark.parametrize("path", sorted(SAMPLES))
def test_every_wired_language_names_its_definitions(path: str) -> None:
    data, names = SAMPLES[path]
    found = extract(path, data)
    assert found.parser == TREE_SITTER, found.note
    assert [d.name for d in found.definitions] == names


def test_definitions_looked_up_by_name_are_read_without_hashes() -> None:
    full, light = extract("x.c", C_SOURCE), extract("x.c", C_SOURCE, hashes=False)
    assert light.parser == TREE_SITTER
    assert [(d.name, d.kind, d.start, d.end) for d in light.definitions] == [
        (d.name, d.kind, d.start, d.end) for d in full.definitions
    ]
    assert {d.body for d in light.definitions} == {""}
    assert all(d.body for d in full.definitions)


def test_body_hash_ignores_layout_but_not_code() -> None:
    assert body_hash(b"int f() {\n  return 1;\n}") == body_hash(b"int f() {\n\treturn 1;  }")
    assert body_hash(b"int f() { return 1; }") != body_hash(b"int f() { return 2; }")


def test_the_code_hash_is_blind_to_what_a_formatter_changes_but_not_to_code() -> None:
    assert tight_hash(b"x=a+b*2;") == tight_hash(b"x = a + b * 2;")
    assert tight_hash(b"f(a,\n  b,\n);") == tight_hash(b"f(a, b);")
    assert tight_hash(b"int x;") != tight_hash(b"intx;")  # a space between words is code
    assert tight_hash(b"x = a + b * 2;") != tight_hash(b"x = a + b * 3;")
    one_line = b"def f(a, b):\n    return g(a, 'k')\n"
    wrapped = b'def f(\n    a,\n    b,\n):\n    return g(\n        a,\n        "k",\n    )\n'
    assert python_hash(one_line) == python_hash(wrapped)
    assert python_hash(b"    " + one_line.replace(b"\n    ", b"\n        ")) == python_hash(
        one_line
    )
    assert python_hash(b"def f(a):\n    return (a,)\n") != python_hash(
        b"def f(a):\n    return (a)\n"
    )  # a one-element tuple keeps its comma
    block = b"def f(a):\n    if a:\n        a = 1\n        return a\n    return 0\n"
    moved = b"def f(a):\n    if a:\n        a = 1\n    return a\n    return 0\n"
    assert python_hash(block) != python_hash(moved)  # a line moved out of its block
    assert tight_hash(b"#define M(a) \\\n    f(a)") == tight_hash(b"#define M(a) f(a)")


def test_a_python_definition_reindented_to_another_step_hashes_the_same() -> None:
    """Two spaces or a tab per level, made four (as black does), is no change; a comment
    takes the depth of the code after it; a line moved out of its block still is a change."""
    four = b"def f(a):\n    # why\n    if a:\n        return 1\n    return 2\n"
    two = b"def f(a):\n  # why\n  if a:\n    return 1\n  return 2\n"
    tabs = b"def f(a):\n\t# why\n\tif a:\n\t\treturn 1\n\treturn 2\n"
    stray = b"def f(a):\n# why\n    if a:\n        return 1\n    return 2\n"
    assert python_hash(two) == python_hash(four) == python_hash(tabs) == python_hash(stray)
    moved = b"def f(a):\n  # why\n  if a:\n    return 1\n    return 2\n"
    assert python_hash(moved) != python_hash(two)
    # four spaces per level hash as when each line's own indentation was hashed
    assert python_hash(four) == "4b10a17d5647e31483b8"


@pytest.mark.parametrize(
    ("plain", "wrapped"),
    [
        (b"if a and b:\n    go()\n", b"if (\n    a\n    and b\n):\n    go()\n"),
        (b"while a > b:\n    go()\n", b"while (a > b):\n    go()\n"),
        (b"return a or b\n", b"return (\n    a or b\n)\n"),
        (b"x = a + b\n", b"x = (\n    a + b\n)\n"),
        (b"a, b = f()\n", b"(a, b) = f()\n"),
        (b"x = 1, 2\n", b"x = (1, 2)\n"),
        (b"with a as b, c as d:\n    go()\n", b"with (\n    a as b,\n    c as d,\n):\n    go()\n"),
        (b"x = 'it\\'s'\n", b'x = "it\'s"\n'),
        (b"'''The user's own \"facts\".'''\n", b'"""The user\'s own "facts"."""\n'),
    ],
)
def test_what_black_rewrites_is_layout_in_python(plain: bytes, wrapped: bytes) -> None:
    def hashed(body: bytes) -> str:
        return python_hash(
            b"def f(a, b):\n" + b"".join(b"    " + line + b"\n" for line in body.splitlines())
        )

    assert hashed(plain) == hashed(wrapped)


def test_parentheses_that_change_the_code_still_count_in_python() -> None:
    def hashed(line: bytes) -> str:
        return python_hash(b"def f(a, b):\n    " + line + b"\n")

    assert hashed(b"x = (1,)") != hashed(b"x = (1)")  # a tuple against a number
    assert hashed(b"x = (a + b) * 2") != hashed(b"x = a + b * 2")
    assert hashed(b"x == (a)") != hashed(b"x == a, b")
    assert hashed(b"return (a)(b)") != hashed(b"return a")


def test_a_hash_an_earlier_version_recorded_is_compared_in_its_own_form() -> None:
    text = b"def f(a):\n    return a\n"
    body, formers = code_hashes(text, text)
    assert same_code(body, body, formers)
    for earlier in formers.split():  # the whitespace-blind and the indentation forms
        assert len(earlier) != len(body) and same_code(earlier, body, formers)
    other, _ = code_hashes(b"def f(a):\n    return 2\n", b"def f(a):\n    return 2\n")
    assert not same_code(other, body, formers)
    assert not same_code(body_hash(b"def f(a): return 2"), body, formers)


def test_names_are_normalized_across_languages() -> None:
    assert normalize_name("Store::save") == "Store.save"
    assert normalize_name("Store#save()") == "Store.save"
    assert normalize_name(" top ") == "top"
    assert normalize_name("$el_2") == "$el_2"  # a plain name is kept as it is
    assert normalize_name("operator") == "operator"


def test_bad_files_fall_back_or_are_skipped_never_raise() -> None:
    assert extract("x.c", b"\0\1\2binary").parser == SKIPPED_BINARY
    assert extract("x.c", b"x" * ((1 << 20) + 1)).parser == SKIPPED_HUGE
    broken = extract("x.c", b"}}}} int ((( {{{ ")
    assert broken.parser == REGEX and broken.note == "x.c did not parse as c"
    # a language no grammar is wired for: the regex finder
    kotlin = extract("x.kt", b"fun main() {}\nclass X {\n  fun y() {}\n}\n")
    assert kotlin.parser == REGEX
    assert [d.name for d in kotlin.definitions] == ["main", "X", "y"]
    # odd bytes and odd names: still definitions, no exception
    odd = extract("x.py", "def caf\u00e9():\n    pass\n".encode() + b"\xff\xfe\n")
    assert [d.name for d in odd.definitions] == ["caf\u00e9"]


def test_a_grammar_that_does_not_load_gives_the_regex_finder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    grammars.forget()
    monkeypatch.setitem(grammars._GRAMMARS, ".go", ("go", "no_such_grammar_module", "language"))
    try:
        found = extract("a.go", b"package x\nfunc A() {}\n")
    finally:
        grammars.forget()
    assert found.parser == REGEX
    assert found.note is not None and "the go grammar did not load" in found.note
    assert [d.name for d in found.definitions] == ["A"]


def test_the_genome_indexes_symbols_and_reparses_only_new_contents(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    repo.write("src/a.c", C_SOURCE.decode())
    repo.write("src/b.py", "def helper():\n    return 1\n")
    repo.write("README.md", "# no symbols here\n")
    repo.commit("initial")
    genome = open_genome(repo.root)
    summary = genome.refresh()
    assert summary.symbol_files_parsed == 2
    assert summary.symbol_parsers == {TREE_SITTER: 2}
    conn = genome.conn
    assert [d.name for d in defined_in(conn, "src/a.c")][:2] == ["foo", "s"]
    foo = find_in(conn, "src/a.c", "foo")
    assert foo is not None and (foo.first_line, foo.last_line) == (2, 5)

    repo.move("src/b.py", "lib/b.py")  # a rename reuses the parse: same blob
    repo.write("src/c.py", "def helper2():\n    return 2\n")
    repo.commit("move and add")
    summary = genome.refresh()
    assert (summary.symbol_files_parsed, summary.symbol_files_reused) == (1, 2)
    assert [hit.path for hit in find_anywhere(conn, "helper")] == ["lib/b.py"]
    assert defined_in(conn, "src/b.py") == []
    # qualified names are found by their tail when it is unique in the file
    assert find_in(conn, "src/c.py", "helper2") is not None

    full = genome.refresh(full=True)
    assert full.symbol_files_parsed == 3
    assert [hit.path for hit in find_anywhere(conn, "helper")] == ["lib/b.py"]


def test_a_refresh_without_symbols_leaves_them_for_the_next_one_that_reads_them(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    repo.write("src/b.py", "def helper():\n    return 1\n")
    repo.commit("initial")
    genome = open_genome(repo.root)
    genome.refresh()
    repo.write("src/c.py", "def helper2():\n    return 2\n")
    repo.write("src/b.py", "def renamed():\n    return 1\n")
    repo.commit("a new file, and an edit")
    short = Genome(repo.root, genome.conn, symbols=False)
    assert short.is_stale()
    summary = short.refresh()
    assert (summary.mode, summary.symbol_files_parsed) == ("incremental", 0)
    assert not short.is_stale()  # a short-lived process does not refresh again for them
    assert defined_in(genome.conn, "src/c.py") == []  # left as they were: the old contents
    assert [d.name for d in defined_in(genome.conn, "src/b.py")] == ["helper"]
    assert genome.is_stale()  # a process that reads symbols catches up
    caught_up = genome.refresh()
    assert (caught_up.mode, caught_up.symbol_files_parsed) == ("unchanged", 2)
    assert [d.name for d in defined_in(genome.conn, "src/b.py")] == ["renamed"]
    assert find_in(genome.conn, "src/c.py", "helper2") is not None
    assert not genome.is_stale()


def test_many_new_files_are_parsed_on_threads_each_under_its_own_path(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    count = PARALLEL_PARSE_MIN + 6
    for n in range(count):
        repo.write(f"pkg/m{n}.py", f"def only_in_{n}():\n    return {n}\n")
    repo.write("pkg/copy.py", "def only_in_0():\n    return 0\n")  # same blob as m0.py
    repo.commit("many files")
    genome = open_genome(repo.root)
    summary = genome.refresh()
    assert (summary.symbol_files_parsed, summary.symbol_files_reused) == (count, 1)
    for n in range(count):
        assert [d.name for d in defined_in(genome.conn, f"pkg/m{n}.py")] == [f"only_in_{n}"]
    assert [hit.path for hit in find_anywhere(genome.conn, "only_in_0")] == [
        "pkg/copy.py",
        "pkg/m0.py",
    ]


def test_index_names_and_anchor_names_share_one_normalisation() -> None:
    """A JavaScript private method and a C++ operator keep the names the index gives them, so
    an anchor made from an index name (remember at the cursor) finds its definition again."""
    js = extract("a.js", b"class Foo { #priv() { return 1; } pub() {} }\n")
    cpp = extract("a.cpp", b"struct Foo { int operator()(int a) { return a; } };\n")
    js_names = [d.name for d in js.definitions]
    cpp_names = [d.name for d in cpp.definitions]
    assert "Foo.#priv" in js_names and "Foo.operator()" in cpp_names
    for name in [*js_names, *cpp_names]:
        assert normalize_name(name) == name
    assert normalize_name("Foo::operator ()") == "Foo.operator()"
    assert normalize_name("Foo::operator new") == "Foo.operator new"
    assert normalize_name("Foo#bar") == "Foo.bar"


def test_an_anchor_on_a_private_method_or_operator_is_found(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    repo.write("a.js", "class Foo {\n  #priv() { return 1; }\n}\n")
    repo.write("a.cpp", "struct Foo {\n  int operator()(int a) { return a; }\n};\n")
    repo.commit("initial")
    genome = open_genome(repo.root)
    genome.refresh()
    assert find_in(genome.conn, "a.js", "Foo.#priv") is not None
    assert find_in(genome.conn, "a.cpp", "Foo::operator()") is not None


DECORATED = (
    b"import functools\n\n\nclass Store:\n    @property\n    # the name shown\n"
    b"    def name(self):\n        return 1\n\n    @functools.lru_cache(\n        maxsize=2,\n"
    b"    )\n    def size(self):\n        return 2\n\n\n@functools.cache\ndef top():\n"
    b"    return 3\n"
)


def test_the_regex_finder_reads_python_decorators_as_tree_sitter_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Python file the grammar cannot read gets the same body hashes and decorator lines as
    one it reads: a guard's hash must not change with the reader (nor a decorator edit pass
    unseen)."""
    parsed = extract("a.py", DECORATED)
    grammars.forget()
    monkeypatch.setitem(grammars._GRAMMARS, ".py", ("python", "no_such_grammar_module", "language"))
    try:
        fallback = extract("a.py", DECORATED)
    finally:
        grammars.forget()
    assert (parsed.parser, fallback.parser) == (TREE_SITTER, REGEX)
    read = {d.name.rpartition(".")[2]: (d.start, d.head, d.body) for d in parsed.definitions}
    found = {d.name: (d.start, d.head, d.body) for d in fallback.definitions}
    assert read == found
    assert found["name"][:2] == (7, 5) and found["top"][:2] == (18, 17)


def test_a_rust_type_with_impl_blocks_is_one_symbol_of_its_name() -> None:
    """``Store`` names the struct, not also each ``impl`` block of it (which made every Rust
    type with methods ambiguous, so unanchorable); an ``impl`` of a type defined elsewhere
    is still a symbol."""
    source = (
        b"pub struct Store { a: u32 }\n\n"
        b"impl Store {\n    pub fn save(&self) -> u32 { self.a }\n}\n\n"
        b"impl Clone for Store {\n    fn clone(&self) -> Self { Store { a: self.a } }\n}\n"
    )
    found = [(d.name, d.kind, d.start) for d in extract("src/lib.rs", source).definitions]
    assert found == [
        ("Store", "struct", 1),
        ("Store.save", "function", 4),
        ("Store.clone", "function", 8),
    ]
    elsewhere = b"impl Store {\n    pub fn load(&self) -> u32 { 1 }\n}\n"
    assert [(d.name, d.kind) for d in extract("src/load.rs", elsewhere).definitions] == [
        ("Store", "impl"),
        ("Store.load", "function"),
    ]


def test_typescript_namespaces_qualify_what_they_define() -> None:
    source = (
        b"namespace Foo {\n  export function bar(): number { return 1; }\n"
        b"  export class Baz { q() {} }\n}\n"
        b"module Old { function inner() {} }\n"
        b'declare module "pkg" { export function y(): void; }\n'
        b"export namespace E.F { export const g = () => 1; }\n"
        b"run(() => { function notAName() {} });\n"
    )
    found = [(d.name, d.kind) for d in extract("src/a.ts", source).definitions]
    assert found == [
        ("Foo", "namespace"),
        ("Foo.bar", "function"),
        ("Foo.Baz", "class"),
        ("Foo.Baz.q", "method"),
        ("Old", "namespace"),
        ("Old.inner", "function"),
        ("pkg", "namespace"),
        ("pkg.y", "function"),
        ("E.F", "namespace"),
        ("E.F.g", "function"),
    ]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (b'def f(w):\n    return " ".join(w)\n', b'def f(w):\n    return "".join(w)\n'),
        (b"def f(c):\n    return c == ' '\n", b"def f(c):\n    return c == ''\n"),
        (b'def f(a, b):\n    return f"{a} {b}"\n', b'def f(a, b):\n    return f"{a}{b}"\n'),
        (b'def f(s):\n    return s.split(", ")\n', b'def f(s):\n    return s.split(",")\n'),
        (b'def f():\n    X = (\n        "a",\n    )\n', b'def f():\n    X = "a"\n'),
        (b"def f(d):\n    return d[\n        1,\n    ]\n", b"def f(d):\n    return d[1]\n"),
        (b'def f(x):\n    assert (x, "why")\n', b'def f(x):\n    assert x, "why"\n'),
        (
            b'def f():\n    return """\n    a:\n      b: 1\n    """\n',
            b'def f():\n    return """\n    a:\n    b: 1\n    """\n',
        ),
        (b"def f():\n    return r'it\\'s'\n", b'def f():\n    return r"it\'s"\n'),
    ],
    ids=[
        "join separator",
        "a space compared",
        "f-string",
        "split separator",
        "one-element tuple",
        "one-element subscript",
        "asserted tuple",
        "indentation in a string",
        "raw string",
    ],
)
def test_a_python_edit_inside_strings_or_a_lone_comma_is_still_an_edit(
    before: bytes, after: bytes
) -> None:
    assert python_hash(before) != python_hash(after)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (b'void f(int x){ printf("%d ", x); }', b'void f(int x){ printf("%d", x); }'),
        (b"function f(){ return `${a} ${b}`; }", b"function f(){ return `${a}${b}`; }"),
        (b"int f(){ return a + ++b; }", b"int f(){ return a++ + b; }"),
        (b"int f(){ x = - -y; }", b"int f(){ x = --y; }"),
        (b"fn f(){ a & &b }", b"fn f(){ a && b }"),
        (b"void f(){\n#define F (x)\n}", b"void f(){\n#define F(x)\n}"),
        (b"fn f(){ let t = (\n    x,\n); }", b"fn f(){ let t = (\n    x\n); }"),
    ],
    ids=["printf", "template", "increments", "negations", "references", "macro", "rust tuple"],
)
def test_a_c_like_edit_inside_strings_or_between_operators_is_still_an_edit(
    before: bytes, after: bytes
) -> None:
    assert tight_hash(before) != tight_hash(after)


def test_a_docstring_moves_with_its_function_and_a_formatter_may_tidy_it() -> None:
    top = b'def f():\n    """Say it.\n\n    More.\n    """\n    return 1\n'
    moved = b'    def f():\n        """Say it.\n\n        More.\n        """\n        return 1\n'
    tidied = b'def f():\n    """  Say it.   \n\n    More.\n\n    """\n    return 1\n'
    assert python_hash(top) == python_hash(moved) == python_hash(tidied)


@pytest.mark.parametrize(
    "source",
    [
        b"",
        b"\\",
        b"a\x03b\n",
        b"def f():\n    x = '\x03\x01\x08'\n",
        b"f(\x01\n)\n",
        b"def f(a,\r\n  b):\r\n    return a \\\r\n        + b\r\n",
        b"))))\n(\n",
        b'x = \'abc\n  y = """zz\n',
        b"\xff\xfe\x80 def\n",
        b"'''" + b"\\'" * 20_000,
        b'"""' + b"'\\" * 20_000,
        b"'" * 20_000,
    ],
    ids=[
        "empty",
        "lone backslash",
        "marker byte",
        "marker bytes in a string",
        "marker before a break",
        "crlf",
        "unbalanced",
        "unterminated",
        "not utf-8",
        "unterminated with escapes",
        "quotes and backslashes",
        "quotes",
    ],
)
def test_any_source_hashes_without_error(source: bytes) -> None:
    """Whatever a file holds, hashing it never raises (one file would stop the index's
    refresh), and a string left open costs one pass, not one per quote after it."""
    for hashed in (python_hash(source), tight_hash(source), *code_hashes(source, source)):
        assert hashed
    assert code_hashes(source) == code_hashes(source)

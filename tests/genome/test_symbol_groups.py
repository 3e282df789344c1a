"""Names defined in several parts or several places of one file, and definitions inside the
blocks of a module's top level: what the symbol index reads for each."""

from __future__ import annotations

from recall.genome.symbols.extract import TREE_SITTER, extract

OVERLOADS = (
    b"export function over(a: number): number;\n"
    b"export function over(a: string): string;\n"
    b"export function over(a: any): any {\n  return a;\n}\n"
    b"function solo(): number {\n  return 1;\n}\n"
    b"declare function both(a: number): void;\n"
    b"declare function both(a: string): void;\n"
)


def spans(path: str, data: bytes) -> list[tuple[str, int, int]]:
    found = extract(path, data)
    assert found.parser == TREE_SITTER, found.note
    return [(d.name, d.start, d.end) for d in found.definitions]


def test_typescript_overloads_and_their_implementation_are_one_symbol() -> None:
    assert spans("src/app.ts", OVERLOADS) == [
        ("over", 1, 5),  # the first signature to the end of the implementation
        ("solo", 6, 8),
        ("both", 9, 10),  # signatures alone (a declaration file): one symbol too
    ]
    edited_signature = OVERLOADS.replace(b"(a: string): string;", b"(a: string): number;")
    edited_body = OVERLOADS.replace(b"return a;", b"return a + 1;")
    [over, *_] = extract("src/app.ts", OVERLOADS).definitions
    assert extract("src/app.ts", edited_signature).definitions[0].body != over.body
    assert extract("src/app.ts", edited_body).definitions[0].body != over.body


def test_python_overload_stubs_and_property_accessors_are_one_symbol() -> None:
    source = (
        b"from typing import overload\n"
        b"class Box:\n"
        b"    @property\n"
        b"    def size(self):\n        return 1\n"
        b"    @size.setter\n"
        b"    def size(self, value):\n        pass\n"
        b"    @overload\n"
        b"    def get(self, a: int) -> int: ...\n"
        b"    @typing.overload\n"
        b"    def get(self, a: str) -> str: ...\n"
        b"    def get(self, a):\n        return a\n"
    )
    assert spans("box.py", source) == [("Box", 2, 14), ("Box.size", 4, 8), ("Box.get", 10, 14)]


def test_a_name_defined_twice_in_one_scope_stays_two_definitions() -> None:
    python = b"def dup():\n    return 1\n\n\ndef dup():\n    return 2\n"
    assert spans("dup.py", python) == [("dup", 1, 2), ("dup", 5, 6)]
    c = (
        b"#ifdef FAST\nstatic int pick(void) { return 1; }\n"
        b"#else\nstatic int pick(void) { return 2; }\n#endif\n"
    )
    assert spans("pick.c", c) == [("pick", 2, 2), ("pick", 4, 4)]
    # a second signature after an implementation is another function, not an overload
    twice = b"function f(): void {}\nfunction f(): void {}\n"
    assert spans("twice.ts", twice) == [("f", 1, 1), ("f", 2, 2)]


def test_a_single_definition_keeps_its_own_range_and_hash() -> None:
    """Anchors recorded before overloads were grouped hashed a lone definition's own text: it
    hashes the same beside overloads as alone, and a getter alone is its own range."""
    solo = b"function solo(): number {\n  return 1;\n}\n"
    found = {d.name: d for d in extract("src/app.ts", OVERLOADS).definitions}
    [alone] = extract("src/solo.ts", solo).definitions
    assert (found["solo"].start, found["solo"].end) == (6, 8)
    assert found["solo"].body == alone.body
    getter = b"class Box:\n    @property\n    def size(self):\n        return 1\n"
    [_, size] = extract("box.py", getter).definitions
    assert (size.name, size.start, size.end, size.head) == ("Box.size", 3, 4, 2)


def test_definitions_inside_top_level_blocks_are_module_level_names() -> None:
    python = (
        b"try:\n    from fastjson import dumps\n"
        b"except ImportError:\n    def dumps(value):\n        return str(value)\n"
        b"if FLAG:\n    def cond():\n        return 1\n"
        b"elif OTHER:\n    class Other:\n        def run(self):\n            pass\n"
        b"with context():\n    def inside():\n        pass\n"
        b"def outer():\n    if FLAG:\n        def hidden():\n            pass\n"
    )
    assert spans("dup.py", python) == [
        ("dumps", 4, 5),
        ("cond", 7, 8),
        ("Other", 10, 12),
        ("Other.run", 11, 12),
        ("inside", 14, 15),
        ("outer", 16, 19),
        ("outer.hidden", 18, 19),  # a Python function's blocks hold names of its own
    ]
    js = (
        b"if (typeof window === 'undefined') {\n  function server() {}\n"
        b"} else {\n  function client() {}\n}\n"
    )
    assert spans("env.js", js) == [("server", 2, 2), ("client", 4, 4)]


def test_a_typescript_methods_overload_signatures_are_one_symbol_with_it() -> None:
    source = (
        b"class K {\n  m(a: string): void;\n  m(a: number): void;\n"
        b"  m(a: any): void { console.log(a); }\n  other(): number { return 1; }\n}\n"
        b"interface I {\n  f(a: string): void;\n  f(a: number): void;\n}\n"
    )
    found = [(d.name, d.start, d.end) for d in extract("src/k.ts", source).definitions]
    assert found == [("K", 1, 6), ("K.m", 2, 4), ("K.other", 5, 5), ("I", 7, 10), ("I.f", 8, 9)]


def test_a_getter_and_its_setter_are_one_symbol_in_typescript_and_javascript() -> None:
    accessors = (
        b"export class Svc {\n"
        b"  get value(): number { return 1; }\n"
        b"  set value(v: number) { }\n"
        b"  get other(): number { return 2; }\n"
        b"}\n"
    )
    assert spans("src/svc.ts", accessors) == [
        ("Svc", 1, 5),
        ("Svc.value", 2, 3),
        ("Svc.other", 4, 4),
    ]
    plain = accessors.replace(b": number", b"").replace(b"export ", b"")
    assert spans("src/svc.js", plain) == [("Svc", 1, 5), ("Svc.value", 2, 3), ("Svc.other", 4, 4)]


def test_a_java_enums_methods_are_read_under_its_name() -> None:
    source = (
        b"public class J {\n    enum Color {\n        RED;\n        void paint() {}\n    }\n}\n"
    )
    assert spans("src/J.java", source) == [("J", 1, 6), ("J.Color", 2, 5), ("J.Color.paint", 4, 4)]

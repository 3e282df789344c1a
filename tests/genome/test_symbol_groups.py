"""Names defined in several parts or several places of one file, and definitions inside the
blocks of a module's top level: what the symbol index reads for each."""

from __future__ import annotations

from recall.genome.symbols.extract import TREE_SITTER, extract
from recall.genome.symbols.model import Definition

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


JAVA = (
    b"class A {\n"  # 1
    b"    A() {}\n"  # 2
    b"    int x;\n"  # 3
    b"    A(int x) { this.x = x; }\n"  # 4
    b"    void f(int x) {\n        System.out.println(x);\n    }\n"  # 5-7
    b"    void g() {}\n"  # 8
    b"    @Deprecated\n    void f(String s) {\n        System.out.println(s);\n    }\n"  # 9-12
    b"    class f {}\n"  # 13: a type, not an overload of the method
    b"}\n"
)
CPP = (
    b"void Foo::bar(int x) {\n    (void)x;\n}\n"  # 1-3
    b"int other() { return 0; }\n"  # 4
    b"void Foo::bar(const char* s) {\n    (void)s;\n}\n"  # 5-7
    b"namespace util {\nint clamp(int v) { return v; }\n}\n"  # 8-10
    b"namespace util {\ndouble clamp(double v) { return v; }\n}\n"  # 11-13
)


def by_name(path: str, data: bytes) -> dict[str, Definition]:
    found = extract(path, data)
    assert found.parser == TREE_SITTER, found.note
    return {f"{d.name}:{d.kind}": d for d in found.definitions}


def test_a_java_or_cpp_name_defined_several_times_in_a_scope_is_one_symbol() -> None:
    """Overloads are one symbol wherever they stand in their scope: from the first to the end
    of the last, with the lines of each part (annotations included) for what other code stands
    between them; a nested type of the method's name stays a symbol of its own."""
    assert spans("src/A.java", JAVA) == [
        ("A", 1, 14),
        ("A.A", 2, 4),  # the constructors, a field between them
        ("A.f", 5, 12),
        ("A.g", 8, 8),
        ("A.f", 13, 13),
    ]
    found = by_name("src/A.java", JAVA)
    assert found["A.f:method"].parts == ((5, 7), (9, 12))
    assert found["A.A:method"].parts == ((2, 2), (4, 4))
    assert found["A.g:method"].parts == ()
    assert spans("src/foo.cpp", CPP) == [
        ("Foo.bar", 1, 7),
        ("other", 4, 4),
        ("util", 8, 13),  # a namespace opened twice
        ("util.clamp", 9, 12),  # free functions overloaded in it
    ]


def test_an_overloads_hash_covers_each_part_in_no_order_and_nothing_between() -> None:
    method = by_name("src/A.java", JAVA)["A.f:method"]

    def f_of(data: bytes) -> str:
        return by_name("src/A.java", data)["A.f:method"].body

    assert f_of(JAVA.replace(b"println(s)", b"println(s + 1)")) != method.body  # the last
    assert f_of(JAVA.replace(b"println(x)", b"println(x + 1)")) != method.body  # the first
    assert f_of(JAVA.replace(b"    @Deprecated\n", b"")) != method.body  # its annotation
    first = b"    void f(int x) {\n        System.out.println(x);\n    }\n"
    assert f_of(JAVA.replace(first, b"")) != method.body  # one removed
    assert f_of(JAVA.replace(b"void g() {}", b"void g() { g(); }")) == method.body  # between
    moved = JAVA.replace(first, b"").replace(b"    class f {}\n", b"    class f {}\n" + first)
    assert f_of(moved) == method.body  # the first moved below the second: no edit
    assert f_of(JAVA.replace(b"println(x);", b"println(x) ;")) == method.body  # layout


def test_a_lone_java_or_cpp_definition_hashes_as_before() -> None:
    """A definition of one part hashes its own text as it always did, so an anchor recorded
    on a name defined once stays current."""
    found = by_name("src/A.java", JAVA)
    [alone] = extract("src/G.java", b"class G {\n    void g() {}\n}\n").definitions[1:]
    assert found["A.g:method"].body == alone.body
    [other] = extract("src/o.cpp", b"int other() { return 0; }\n").definitions
    assert by_name("src/foo.cpp", CPP)["other:function"].body == other.body


def test_a_python_propertys_setter_after_a_getter_with_a_nested_helper_is_one_symbol() -> None:
    source = (
        b"class C:\n"
        b"    @property\n"
        b"    def x(self):\n"
        b"        def helper():\n            return 1\n"
        b"        return helper()\n"
        b"    @x.setter\n"
        b"    def x(self, v):\n        pass\n"
    )
    assert spans("c.py", source) == [("C", 1, 9), ("C.x", 3, 9), ("C.x.helper", 4, 5)]

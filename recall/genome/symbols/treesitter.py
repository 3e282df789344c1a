"""Definitions read from a tree-sitter syntax tree, for every wired language.

Only the levels where definitions live are walked: the file's top level, and the bodies of
classes, namespaces, impl blocks and the like (each adds its name as a qualifier), plus the
wrappers that hide a definition (``export``, decorators, ``#ifdef`` blocks, templates, and the
``if``/``try``/``with`` blocks of those levels).
Function bodies are never entered, so a file costs about its number of definitions.

A Rust ``impl`` block of a type the same file defines is not a symbol of its own: the type's
name designates the type (its methods are ``Type.method``), where it would otherwise name the
type and each of its ``impl`` blocks at once, and so nothing anyone could anchor.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from recall.genome.symbols.grammars import INDENTED_GRAMMARS
from recall.genome.symbols.groups import grouped, scattered
from recall.genome.symbols.model import (
    SEPARATOR,
    Definition,
    code_hashes,
    normalize_name,
    parts_hashes,
)

Node = Any

# Node type → kind, per grammar. Container kinds (see _CONTAINERS) are also walked into.
_KINDS: Final[dict[str, dict[str, str]]] = {
    "c": {
        "function_definition": "function",
        "struct_specifier": "struct",
        "union_specifier": "union",
        "enum_specifier": "enum",
        "type_definition": "type",
        "preproc_function_def": "macro",
        "preproc_def": "macro",
    },
    "python": {"function_definition": "function", "class_definition": "class"},
    "javascript": {
        "function_declaration": "function",
        "generator_function_declaration": "function",
        "class_declaration": "class",
        "method_definition": "method",
        "variable_declarator": "function",
    },
    "go": {
        "function_declaration": "function",
        "method_declaration": "method",
        "type_spec": "type",
    },
    "rust": {
        "function_item": "function",
        "struct_item": "struct",
        "enum_item": "enum",
        "union_item": "union",
        "trait_item": "trait",
        "impl_item": "impl",
        "mod_item": "module",
        "macro_definition": "macro",
        "type_item": "type",
    },
    "java": {
        "class_declaration": "class",
        "interface_declaration": "interface",
        "enum_declaration": "enum",
        "record_declaration": "record",
        "annotation_type_declaration": "interface",
        "method_declaration": "method",
        "constructor_declaration": "method",
    },
}
_KINDS["cpp"] = {
    **_KINDS["c"],
    "class_specifier": "class",
    "namespace_definition": "namespace",
}
_KINDS["typescript"] = {
    **_KINDS["javascript"],
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
    "internal_module": "namespace",
    "module": "namespace",  # `module Name { }`, and `declare module "pkg" { }`
    "function_signature": "function",
    "method_signature": "method",
    "abstract_method_signature": "method",
}
_KINDS["tsx"] = _KINDS["typescript"]

# Kinds whose body holds further definitions, qualified by the container's name.
_CONTAINERS: Final = frozenset(
    {
        "class",
        "struct",
        "union",
        "namespace",
        "trait",
        "impl",
        "module",
        "interface",
        "record",
        "enum",  # a Java enum's methods
    }
)
# Grammars whose functions' bodies are walked too: a Python function's nested helpers and
# closures (and the classes it defines) are named under it (``outer.inner``); elsewhere a
# function's body holds callbacks and locals, not names a reader looks up.
_NESTING_FUNCTIONS: Final = frozenset({"python"})
# Nodes walked through without a qualifier: they wrap definitions or hold a body's list.
_WRAPPERS: Final = frozenset(
    {
        "translation_unit",
        "program",
        "module",
        "source_file",
        "export_statement",
        "decorated_definition",
        "template_declaration",
        "linkage_specification",
        "declaration_list",
        "field_declaration_list",
        "preproc_if",
        "preproc_ifdef",
        "preproc_else",
        "preproc_elif",
        "preproc_elifdef",
        "block",
        "class_body",
        "interface_body",
        "enum_body",
        "enum_body_declarations",  # a Java enum's members after its constants
        "record_declaration_body",
        "statement_block",
        "lexical_declaration",
        "variable_declaration",
        "type_declaration",
        "declaration",
        "field_declaration",
        "object_type",
        "ambient_declaration",
        "expression_statement",  # TypeScript's `namespace Name { }` statement
        # Python's `try: import x` / `except ImportError: def fallback()` and `if` blocks at the
        # top level (or in a class body) define names of that level; JavaScript's too
        "if_statement",
        "elif_clause",
        "else_clause",
        "try_statement",
        "except_clause",
        "except_group_clause",
        "catch_clause",
        "finally_clause",
        "with_statement",
    }
)
# Declarator links followed down to a C or C++ function's name.
_NAME_TYPES: Final = frozenset(
    {
        "identifier",
        "field_identifier",
        "type_identifier",
        "qualified_identifier",
        "destructor_name",
        "operator_name",
        "property_identifier",
        "private_property_identifier",
        "namespace_identifier",
        "constant",
    }
)
# Nesting past this is generated code; the walk stops there rather than recurse without end.
MAX_DEPTH: Final = 24
_FUNCTION_VALUES: Final = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function", "class"}
)


def _text(node: Node) -> str:
    return node.text.decode("utf-8", "replace")


def _declarator_name(node: Node) -> str | None:
    """Follow a C/C++ declarator chain down to the declared name."""
    seen = 0
    while node is not None and seen < 32:
        if node.type in _NAME_TYPES:
            return _text(node)
        inner = node.child_by_field_name("declarator")
        if inner is None:
            inner = next(
                (
                    c
                    for c in node.named_children
                    if c.type in _NAME_TYPES or c.type.endswith("_declarator")
                ),
                None,
            )
        node = inner
        seen += 1
    return None


def _go_receiver(node: Node) -> str | None:
    receiver = node.child_by_field_name("receiver")
    if receiver is None:
        return None
    for part in receiver.named_children:
        kind = part.child_by_field_name("type")
        while kind is not None and kind.type in ("pointer_type", "generic_type"):
            kind = kind.named_children[0] if kind.named_children else None
        if kind is not None:
            return _text(kind)
    return None


def _name(node: Node, kind: str) -> str | None:
    """The name a definition node declares, or None for an anonymous one."""
    kind_type = node.type
    if kind_type in ("function_definition",) and node.child_by_field_name("name") is None:
        return _declarator_name(node.child_by_field_name("declarator"))
    if kind_type == "type_definition":
        return _declarator_name(node.child_by_field_name("declarator"))
    if kind_type == "impl_item":
        target = node.child_by_field_name("type")
        return _plain(_text(target)) if target is not None else None
    if kind_type == "variable_declarator":
        value = node.child_by_field_name("value")
        if value is None or value.type not in _FUNCTION_VALUES:
            return None
    named = node.child_by_field_name("name")
    if named is None:
        return None
    name = _text(named)
    if named.type == "string":  # `declare module "pkg"`: the package's name
        name = name.strip("\"'")
    if kind_type == "method_declaration" and kind == "method":
        owner = _go_receiver(node)
        if owner:
            return f"{owner}{SEPARATOR}{name}"
    return name


def _body(node: Node) -> Node | None:
    body = node.child_by_field_name("body")
    if body is None:
        body = next(
            (c for c in node.named_children if c.type in ("declaration_list", "class_body")),
            None,
        )
    return body


def _qualified(prefix: str, name: str) -> str:
    name = name.replace("::", SEPARATOR)
    return f"{prefix}{SEPARATOR}{name}" if prefix else name


def definitions(root: Node, grammar: str, data: bytes, *, hashes: bool = True) -> list[Definition]:
    """Every named definition under ``root`` in source order, qualified by its containers;
    without ``hashes``, each with an empty body hash and no decorator line (where definitions
    are only looked up by name, not compared)."""
    kinds = _KINDS[grammar]
    entered = _CONTAINERS | {"function"} if grammar in _NESTING_FUNCTIONS else _CONTAINERS
    named: list[tuple[Node, str, str]] = []
    for node, prefix in _walk(root, kinds, entered, ""):
        kind = kinds[node.type]
        name = _name(node, kind)
        if name:
            named.append((node, kind, normalize_name(_qualified(prefix, name))))
    found: list[Definition] = []
    types = {name for _, kind, name in named if kind != "impl"}
    apart = scattered(grammar)
    for group in grouped(grammar, named):  # overloads and accessors: one symbol each
        node, kind, qualified = group[0]
        if kind == "impl" and qualified in types:
            continue  # the type's own definition is what its name designates
        nodes = [part for part, _, _ in group]
        last = max(nodes, key=lambda part: part.end_byte)
        start, end = node.start_point[0] + 1, last.end_point[0] + 1
        parts = _parts(nodes) if apart and len(nodes) > 1 else ()
        if not hashes:
            found.append(Definition(qualified, kind, start, end, "", parts=parts))
            continue
        if apart:  # its parts alone: what stands between them is other code
            body, formers = parts_hashes([data[n.start_byte : n.end_byte] for n in nodes])
        else:
            text = data[node.start_byte : last.end_byte]
            whole = None
            if grammar in INDENTED_GRAMMARS:
                whole = data[_line_start(_decorated(node), data) : last.end_byte]
            body, formers = code_hashes(text, whole)
        found.append(Definition(qualified, kind, start, end, body, _head(node), formers, parts))
    return found


def _parts(nodes: list[Node]) -> tuple[tuple[int, int], ...]:
    """The first line (attributes or annotations included) and last line of each of
    ``nodes``, the definitions one symbol is made of."""
    return tuple((_head(node) or node.start_point[0] + 1, node.end_point[0] + 1) for node in nodes)


def _decorated(node: Node) -> Node:
    """The Python ``decorated_definition`` holding ``node``, or ``node`` itself."""
    parent = node.parent
    return parent if parent is not None and parent.type == "decorated_definition" else node


def _line_start(node: Node, data: bytes) -> int:
    """The byte offset of the start of ``node``'s first line."""
    return data.rfind(b"\n", 0, node.start_byte) + 1


# Nodes written before a definition that belong to it: Python and TypeScript decorators, Rust
# and C++ attributes, Java annotations left outside the declaration by a parse.
_LEADING: Final = frozenset(
    {"decorator", "attribute_item", "attribute_declaration", "annotation", "marker_annotation"}
)


# Comments between the decorators or attributes and the definition; they do not end the chain.
_COMMENTS: Final = frozenset({"comment", "line_comment", "block_comment"})


def _head(node: Node) -> int:
    """The 1-based first line of the decorators or attributes of ``node`` (0: none)."""
    first = None
    parent = node.parent
    if parent is not None and parent.type == "decorated_definition":
        first = parent.start_point[0]
    sibling = node.prev_named_sibling
    while sibling is not None and (sibling.type in _LEADING or sibling.type in _COMMENTS):
        if sibling.type in _LEADING:
            line = sibling.start_point[0]
            first = line if first is None else min(first, line)
        sibling = sibling.prev_named_sibling
    return 0 if first is None else first + 1


def _walk(
    node: Node, kinds: dict[str, str], entered: frozenset[str], prefix: str, depth: int = 0
) -> Iterator[tuple[Node, str]]:
    """The definition nodes under ``node`` with the qualifier each is named under; the bodies
    of the kinds in ``entered`` are walked too, under the definition's name."""
    if depth > MAX_DEPTH:
        return
    for child in node.named_children:
        kind = kinds.get(child.type)
        if kind is None:
            if child.type in _WRAPPERS:
                yield from _walk(child, kinds, entered, prefix, depth + 1)
            continue
        body = _body(child) if kind in entered or child.type.endswith("_specifier") else None
        if child.type.endswith("_specifier") and body is None:
            continue  # `struct foo *p;` names a type, it does not define one
        yield child, prefix
        if kind in entered and body is not None:
            name = _name(child, kind)
            inner = _qualified(prefix, _plain(name)) if name else prefix
            yield from _walk(body, kinds, entered, inner, depth + 1)


def _plain(name: str) -> str:
    """A container's name without its generic parameters (``Store<T>`` → ``Store``)."""
    return name.split("<", 1)[0].strip()

"""Definitions written in several parts that are one symbol: overloads and property accessors.

A TypeScript function's (or method's) overload signatures and its implementation, Python's
``@overload`` stubs and the function they describe, a Python property's getter with its
``.setter`` and ``.deleter``, and a JavaScript or TypeScript ``get`` accessor with its ``set``
are each indexed as ONE definition, from the first part to the end of the last.
The whole group rather than the implementation alone: a signature is the function's contract
and a setter is half of the property, so an edit of any part is an edit of the symbol a memory
is about. Those parts follow one another (a definition nested in one, a Python getter's
helper, does not part it from the next).

In C++ and Java a name is overloaded wherever it is defined in its scope: every definition
of one name and kind in one scope (``void Foo::bar(int)`` and ``void Foo::bar(const char*)``,
a class's constructors, a C++ namespace opened twice) is ONE symbol too, from the first to the
end of the last, made of those definitions alone: code between them is not part of it, and
they hash in no order (see :func:`recall.genome.symbols.model.parts_hashes`), so moving one
above another is no edit. Any other name defined twice in one scope (a Python redefinition, a
C function in both branches of an ``#ifdef``) stays two definitions, which the look-ups call
ambiguous.
"""

from __future__ import annotations

from typing import Any, Final

from recall.genome.symbols.model import SEPARATOR

Node = Any

# Decorators that make a Python definition a stub of the next one of its name.
_OVERLOAD: Final = frozenset({"overload", "typing.overload", "typing_extensions.overload"})
# TypeScript overload signatures (of a function, or of a class's or interface's method) and
# what may follow one: another signature, or the implementation.
_TS_SIGNATURES: Final = frozenset(
    {"function_signature", "method_signature", "abstract_method_signature"}
)
_TS_PARTS: Final = _TS_SIGNATURES | {"function_declaration", "method_definition"}
# ``@NAME.setter`` and the like continue the property NAME defined just before.
_ACCESSORS: Final = ("setter", "getter", "deleter")
# Grammars whose overloads may stand anywhere in their scope, other definitions between them.
_SCATTERED: Final = frozenset({"cpp", "java"})


def scattered(grammar: str) -> bool:
    """Whether a symbol of ``grammar`` made of several definitions may have other code
    between them (C++ and Java overloads): it is hashed from its parts alone, in no order."""
    return grammar in _SCATTERED


def _decorators(node: Node) -> list[str]:
    """The decorator expressions written on a Python definition (``x.setter``), in order."""
    parent = node.parent
    if parent is None or parent.type != "decorated_definition":
        return []
    return [
        child.text.decode("utf-8", "replace").lstrip("@").strip()
        for child in parent.named_children
        if child.type == "decorator"
    ]


def _accessor(node: Node) -> bool:
    """Whether ``node`` is a JavaScript or TypeScript ``get`` or ``set`` accessor."""
    return node.type == "method_definition" and any(
        child.type in ("get", "set") for child in node.children
    )


def _continues(grammar: str, before: Node, node: Node, leaf: str) -> bool:
    """Whether ``node`` is a further part of the symbol ``before`` (of the same name) began."""
    if grammar in ("javascript", "typescript", "tsx") and _accessor(before) and _accessor(node):
        return True  # a property's getter and setter
    if grammar in ("typescript", "tsx"):
        return before.type in _TS_SIGNATURES and node.type in _TS_PARTS
    if grammar == "python":
        if any(d in _OVERLOAD for d in _decorators(before)):
            return True
        return any(d in {f"{leaf}.{a}" for a in _ACCESSORS} for d in _decorators(node))
    return False


def grouped(grammar: str, found: list[tuple[Node, str, str]]) -> list[list[tuple[Node, str, str]]]:
    """``found`` (each definition node with its kind and qualified name, in source order) cut
    into the groups that are one symbol, in the order of their first parts; a definition of no
    group is a group of one."""
    if grammar in _SCATTERED:
        return _by_name(found)
    groups: list[list[tuple[Node, str, str]]] = []
    for item in found:
        node, _, name = item
        before = _latest_beside(groups, name)
        if before is not None:
            last_node, _, last_name = before[-1]
            leaf = name.rpartition(SEPARATOR)[2]
            if last_name == name and _continues(grammar, last_node, node, leaf):
                before.append(item)
                continue
        groups.append([item])
    return groups


def _latest_beside(
    groups: list[list[tuple[Node, str, str]]], name: str
) -> list[tuple[Node, str, str]] | None:
    """The latest group that is not nested in a definition named ``name`` (a definition's
    nested ones follow it: they stand between it and its next part)."""
    nested = name + SEPARATOR
    for group in reversed(groups):
        if not group[0][2].startswith(nested):
            return group
    return None


def _by_name(found: list[tuple[Node, str, str]]) -> list[list[tuple[Node, str, str]]]:
    """``found`` grouped by qualified name and kind, wherever each stands in its scope."""
    groups: dict[tuple[str, str], list[tuple[Node, str, str]]] = {}
    for item in found:
        groups.setdefault((item[2], item[1]), []).append(item)
    return list(groups.values())

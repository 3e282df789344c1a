"""The YAML loader a memory file's front matter is read with: PyYAML's safe loader, refusing a
mapping that gives a key twice and a value shaped as a date that names no day (``2026-02-30``),
each with its line, where PyYAML would keep the last value without a word or fail with no line.

PyYAML is imported on first use, not at the top: reading a store whose files are unchanged
parses none, and an agent hook, a whole process per prompt, should not pay for the import."""

from __future__ import annotations

import functools
from typing import Any


class KeyTwice(Exception):
    """A mapping of the front matter gives one key twice (``line``: 0-based, of the second)."""

    def __init__(self, key: object, first: int, line: int) -> None:
        super().__init__(key)
        self.key, self.first, self.line = key, first, line


class NoSuchDate(Exception):
    """An unquoted value YAML reads as a date or time names none (``line``: 0-based)."""

    def __init__(self, text: str, line: int, why: str) -> None:
        super().__init__(text)
        self.text, self.line, self.why = text, line, why

    def message(self) -> str:
        """What to tell the person who wrote it, and what to write instead."""
        return (
            f"{self.text!r} is written as a date but names none ({self.why}); write a real "
            'date and time (such as "2026-11-30T21:00:00+00:00"), or quote it to keep it as text'
        )


@functools.cache
def unique_keys_loader() -> type:
    """PyYAML's safe loader (libyaml's when there is one), refusing a key given twice in one
    mapping (:class:`KeyTwice`: which one was meant cannot be told) and a date that names no
    day (:class:`NoSuchDate`)."""
    import yaml

    base = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader  # libyaml is several times faster
    merge = "tag:yaml.org,2002:merge"

    class UniqueKeys(base):  # type: ignore[misc, valid-type]
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if isinstance(node, yaml.MappingNode):
                seen: dict[str, int] = {}
                for key_node, _ in node.value:
                    if key_node.tag == merge or not isinstance(key_node, yaml.ScalarNode):
                        continue  # a merge's keys may be overridden; a complex key fails later
                    # as written: `1` and `"1"` are not told apart, a key of a field is a name
                    key, line = key_node.value, key_node.start_mark.line
                    if key in seen:
                        raise KeyTwice(key, seen[key], line)
                    seen[key] = line
            return super().construct_mapping(node, deep=deep)

        def construct_checked_timestamp(self, node: Any) -> Any:
            try:
                return self.construct_yaml_timestamp(node)
            except (ValueError, OverflowError) as error:  # datetime's own words: "month must..."
                raise NoSuchDate(node.value, node.start_mark.line, str(error)) from None

    UniqueKeys.add_constructor(
        "tag:yaml.org,2002:timestamp", UniqueKeys.construct_checked_timestamp
    )
    return UniqueKeys

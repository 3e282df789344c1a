"""What an edit tool writes into a file, read from its hook input: a Write's whole text, or the
replacements of an Edit or a MultiEdit, and the text the file will hold once they are made."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from recall.display import without_lone_surrogates


@dataclass(frozen=True)
class EditWrites:
    """A Write's ``content``, or an Edit's or MultiEdit's ``(old, new, replace_all)`` texts."""

    content: str | None = None
    edits: tuple[tuple[str, str, bool], ...] = ()

    def fragments(self) -> tuple[str, ...]:
        """Every text the edit writes."""
        texts = (self.content or "", *(new for _, new, _ in self.edits))
        return tuple(text for text in texts if text)

    def applied_to(self, before: str) -> str | None:
        """The text a file holding ``before`` will hold after the edit; None when an edit's
        old text is not in it (the tool would refuse that edit, or the file changed since)."""
        if self.content is not None:
            return self.content
        text = before
        for old, new, every in self.edits:
            if not old or old not in text:
                return None
            text = text.replace(old, new) if every else text.replace(old, new, 1)
        return text


def edit_writes(tool_input: dict[str, Any]) -> EditWrites:
    """What ``tool_input`` (an edit tool's, as the hook receives it) writes; nothing for a
    tool that writes no text (or whose texts are not strings)."""
    content = tool_input.get("content")
    if isinstance(content, str):
        return EditWrites(content=without_lone_surrogates(content))
    items = tool_input.get("edits")
    listed = items if isinstance(items, list) else [tool_input]
    edits: list[tuple[str, str, bool]] = []
    for item in listed:
        if not isinstance(item, dict):
            continue
        old, new = item.get("old_string"), item.get("new_string")
        if isinstance(old, str) and isinstance(new, str):
            every = item.get("replace_all") is True
            edits.append((without_lone_surrogates(old), without_lone_surrogates(new), every))
    return EditWrites(edits=tuple(edits))

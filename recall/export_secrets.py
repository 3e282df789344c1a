"""An exported memory that holds what the credential scan refuses was written past it (with
``--allow-secret``, or by hand in its file); its export line says so with ``"allow_secret":
true``, so that importing it gives back the memory as the store has it instead of refusing it.
A memory file keeps no record of the allowance, so the export finds these by the same scan an
import makes."""

from __future__ import annotations

from typing import Any

from recall import frontmatter
from recall.model import Memory


def credential_shapes(memory: Memory, extra: dict[str, Any]) -> list[str]:
    """What an import of ``memory`` (with its hand-written front matter ``extra``) would refuse
    as a credential, each as ``kind (excerpt) in field``; empty when nothing would be."""
    from recall import secrets_scan  # its patterns are compiled for writes only
    from recall.secret_names import labelled, name_matches

    texts = {"summary": memory.summary, "details": memory.details, "anchor": memory.anchor}
    texts.update(
        {
            f"front-matter key {key!r}": "\n".join(frontmatter.render_value(key, value))
            for key, value in extra.items()
        }
    )
    found = [
        f"{match.describe()} in {label}"
        for label, text in texts.items()
        for match in secrets_scan.scan(text)
    ]
    symbols = [anchor.text for anchor in memory.anchors]
    # the anchor was scanned whole above, as its text
    return found + name_matches(labelled(memory.files, memory.author, None, symbols))


def allowance_note(shapes: list[str]) -> str:
    """The export's warning for a memory marked ``"allow_secret": true``."""
    return (
        f"holds what looks like a credential ({'; '.join(shapes)}); its line says "
        '"allow_secret": true, as the memory was written past the scan, so that an import '
        "writes it back as it is: remove the credential from the memory if it is one"
    )

"""The comment a person wrote at the end of a front-matter line (``pinned: false  # why``),
found by YAML's own scanner so a ``#`` inside a quoted value is never taken for one; a key
rewritten in place keeps it."""

from __future__ import annotations


def inline_comment(line: str) -> str:
    """The trailing comment of one front-matter line with the blanks before it (``"  # why"``),
    or "" when it has none or the line does not scan as YAML on its own."""
    import yaml  # on first use: reading a store parses no YAML (see recall.frontmatter)

    written = line.rstrip("\r")
    try:
        tokens = list(yaml.scan(written, Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        return ""
    bounds = (yaml.StreamStartToken, yaml.StreamEndToken, yaml.BlockEndToken)  # none written
    ends = [t.end_mark.column for t in tokens if not isinstance(t, bounds)]
    rest = written[max(ends, default=0) :]
    if rest[:1] in (" ", "\t") and rest.lstrip().startswith("#"):
        return rest
    return ""

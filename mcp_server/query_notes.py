"""What ``memory_recall`` says when a prompt leaves recall nothing to search for."""

from __future__ import annotations


def empty_query_note(prompt: str, has_files: bool) -> str:
    """Why a prompt gave recall nothing to search for (recall.ranking.sanitize keeps only the
    prose and questions, or a short remainder, of what is not machine output)."""
    from recall.ranking.sanitize import WHOLE_MAX_CHARS, sanitize_prompt

    removed = sanitize_prompt(prompt).removed
    dropped = f"once its machine output ({', '.join(removed)}) is dropped, " if removed else ""
    why = (
        f"{dropped}it has no question and no line of prose, and what is left is empty or "
        f"over {WHOLE_MAX_CHARS} characters, too long to search whole"
    )
    ranked = "memories were ranked by the files alone" if has_files else "nothing was ranked"
    return (
        f"the prompt held nothing to search for: {why}; {ranked}; give the task in a "
        "sentence (the question itself, not the whole paste)"
    )

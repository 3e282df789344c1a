"""A draft memory file opened in the editor: its text, created through the client where it
can (``workspace/applyEdit``, ``window/showDocument``), else written to disk and announced
with its path. Used by :mod:`lsp_server.drafts` and the commands that show a file."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from lsp_server import capabilities, draft_files
from recall import frontmatter
from recall.locations import ensure_created
from recall.model import Memory
from recall.records import front_matter_fields
from recall.store import MemoryStore

if TYPE_CHECKING:
    from lsp_server.server import TetherServer


def draft_text(memory: Memory, summary: str = "", details: str = "") -> tuple[str, int]:
    """The text of a draft memory file and the 0-based line where its summary goes."""
    lines = [frontmatter.FENCE]
    for key, value in front_matter_fields(memory).items():
        lines.extend(frontmatter.render_value(key, value))
    lines.append(frontmatter.FENCE)
    summary_line = len(lines)
    lines.append(summary)
    if details:
        lines += ["", details]
    return "\n".join(lines) + "\n", summary_line


async def open_draft(
    ls: TetherServer,
    store: MemoryStore,
    memory: Memory,
    summary: str = "",
    details: str = "",
    *,
    notes: list[str] | None = None,
) -> dict[str, Any]:
    """Create a draft memory file and bring it to the user (as the client allows); ``notes``
    on the files it names are said with it and returned as ``file_notes``."""
    ensure_created(store.location)
    folder = draft_files.folder_of(store)
    path = folder.path / f"{memory.id}.md"
    uri = path.as_uri()
    content, line = draft_text(memory, summary, details)
    caps = ls.client_capabilities
    applied = False
    if capabilities.can_create_files(caps):
        start = types.Position(0, 0)
        edit = types.WorkspaceEdit(
            document_changes=[
                types.CreateFile(
                    uri=uri,
                    options=types.CreateFileOptions(overwrite=False, ignore_if_exists=False),
                ),
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=uri, version=None
                    ),
                    edits=[types.TextEdit(range=types.Range(start, start), new_text=content)],
                ),
            ]
        )
        # a client that fails the edit answers as one that refuses it (TetherServer's override)
        result = await ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=edit, label="Tether: new memory")
        )
        applied = bool(result and result.applied)
    if not applied:
        folder.write(path.name, content, exclusive=True)
    ls.drafts[draft_files.real(path)] = content
    shown = False
    if capabilities.can_show_document(caps):
        cursor = types.Position(line, len(summary))
        where = types.ShowDocumentParams(
            uri, take_focus=True, selection=types.Range(cursor, cursor)
        )
        shown = await show_document(ls, where)
    where = "the draft" if shown else f"the draft {path}"
    said = "".join(f" Note: {note}." for note in notes or [])
    ls.show_info(
        f"Tether: write the one-line summary on line {line + 1} of {where}, details below it, "
        f"and save it to remember (closed without a summary, it is dropped).{said}"
    )
    done = {"draft": str(path), "uri": uri, "id": memory.id, "applied": applied, "shown": shown}
    return {**done, "file_notes": notes} if notes else done


async def show_document(ls: TetherServer, params: types.ShowDocumentParams) -> bool:
    """Ask the client to show a document; False when it did not, whether it answered so or
    failed at it (an error response: :class:`lsp_server.server.TetherServer` answers it as
    ``success: false``), so the caller takes its fallback either way."""
    params.take_focus = True
    result = await ls.window_show_document_async(params)
    return bool(result and result.success)

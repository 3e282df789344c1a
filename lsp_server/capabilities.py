"""What the client declared it can do, asked in one place so every server→client request is
gated on it (a request the client did not declare is never sent)."""

from __future__ import annotations

from lsprotocol import types
from pygls.capabilities import get_capability


def has(caps: types.ClientCapabilities | None, field: str) -> bool:
    """Whether the dotted capability ``field`` (snake_case) is present and truthy."""
    if caps is None:
        return False
    return bool(get_capability(caps, field, False))


def can_apply_edit(caps: types.ClientCapabilities | None) -> bool:
    """``workspace/applyEdit`` may be sent."""
    return has(caps, "workspace.apply_edit")


def can_create_files(caps: types.ClientCapabilities | None) -> bool:
    """A workspace edit may create a file (documentChanges with the ``create`` operation)."""
    if not can_apply_edit(caps) or not has(caps, "workspace.workspace_edit.document_changes"):
        return False
    operations = get_capability(caps, "workspace.workspace_edit.resource_operations", None) or []
    return types.ResourceOperationKind.Create in operations or "create" in operations


def can_show_document(caps: types.ClientCapabilities | None) -> bool:
    """``window/showDocument`` may be sent."""
    return has(caps, "window.show_document.support")


def can_pull_configuration(caps: types.ClientCapabilities | None) -> bool:
    """``workspace/configuration`` may be sent."""
    return has(caps, "workspace.configuration")


def can_register_watchers(caps: types.ClientCapabilities | None) -> bool:
    """File watchers may be registered dynamically (``client/registerCapability``)."""
    return has(caps, "workspace.did_change_watched_files.dynamic_registration")


def can_watch_relative_patterns(caps: types.ClientCapabilities | None) -> bool:
    """Watchers may use a base folder outside the workspace (``RelativePattern``)."""
    return has(caps, "workspace.did_change_watched_files.relative_pattern_support")


def can_report_progress(caps: types.ClientCapabilities | None) -> bool:
    """Server-initiated ``$/progress`` (``window/workDoneProgress/create``) may be sent."""
    return has(caps, "window.work_done_progress")


def hover_markdown(caps: types.ClientCapabilities | None) -> bool:
    """The client renders Markdown in hovers."""
    formats = get_capability(caps, "text_document.hover.content_format", None) if caps else None
    return bool(formats) and types.MarkupKind.Markdown in formats


def code_action_literals(caps: types.ClientCapabilities | None) -> bool:
    """Code actions may be returned as ``CodeAction`` objects (else plain ``Command``s)."""
    return has(caps, "text_document.code_action.code_action_literal_support")


def related_information(caps: types.ClientCapabilities | None) -> bool:
    """Diagnostics may carry related locations (used to link the memory file)."""
    return has(caps, "text_document.publish_diagnostics.related_information")

"""The floor: a bare pygls server that publishes one fixed diagnostic on every open and change
and answers hovers with fixed text. It pays what any pygls server pays (JSON-RPC, the text
sync, cattrs) and nothing of Tether's."""

from __future__ import annotations

from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("bare", "0")
_DIAGNOSTIC = types.Diagnostic(
    range=types.Range(types.Position(0, 0), types.Position(0, 1)),
    message='gotcha "a memory" [00000000] — review before editing',
    severity=types.DiagnosticSeverity.Warning,
    source="bare",
)


def _publish(ls: LanguageServer, uri: str) -> None:
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, diagnostics=[_DIAGNOSTIC])
    )


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    """Publish at once."""
    _publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    """Publish at once."""
    _publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: LanguageServer, params: types.HoverParams) -> types.Hover:
    """A fixed card."""
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="**a memory**")
    )


if __name__ == "__main__":
    server.start_io()

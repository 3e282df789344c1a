"""A thin driver over the pytest-lsp client: open, change, save, hover and run commands, each
returning once the server has answered everything it was sent (so diagnostics are in)."""

from __future__ import annotations

import ast
import asyncio
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path
from pytest_lsp import LanguageClient

BARRIER = "file:///tether-test-barrier"


def apply_workspace_edit(edit: types.WorkspaceEdit) -> None:
    """Apply a workspace edit to the files on disk, as an editor that saves at once would."""
    for change in edit.document_changes or []:
        if isinstance(change, types.CreateFile):
            path = Path(to_fs_path(change.uri) or "")
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.exists() and not (change.options and change.options.overwrite):
                raise FileExistsError(path)
            path.write_text("", encoding="utf-8")
        elif isinstance(change, types.TextDocumentEdit):
            path = Path(to_fs_path(change.text_document.uri) or "")
            text = path.read_text(encoding="utf-8") if path.exists() else ""
            for text_edit in change.edits:
                assert isinstance(text_edit, types.TextEdit)
                start = text_edit.range.start
                assert (start.line, start.character) == (0, 0), "tests only insert at the top"
                text = text_edit.new_text + text
            path.write_text(text, encoding="utf-8")
    for uri, edits in (edit.changes or {}).items():
        path = Path(to_fs_path(uri) or "")
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        for text_edit in edits:
            text = text_edit.new_text + text
        path.write_text(text, encoding="utf-8")


class Session:
    """One client talking to one server."""

    def __init__(self, client: LanguageClient, profile: str) -> None:
        self.client = client
        self.profile = profile
        self.versions: dict[str, int] = {}
        self.publishes: Counter[str] = Counter()
        """How many times diagnostics were published for each URI."""
        features = client.protocol.fm.features
        store = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

        self.published: list[types.PublishDiagnosticsParams] = []
        """Every publish, in the order they came."""

        def counting(params: types.PublishDiagnosticsParams) -> None:
            self.publishes[params.uri] += 1
            self.published.append(params)
            store(params)

        features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = counting

    @property
    def is_vscode(self) -> bool:
        """Whether the client has VS Code's capabilities (applyEdit + showDocument)."""
        return self.profile == "visual-studio-code"

    async def settle(self) -> None:
        """Wait until the server has handled every message sent so far.

        The server publishes inside its notification handlers, so once a later request is
        answered, every diagnostic those notifications caused has arrived.
        """
        await asyncio.wait_for(
            self.client.text_document_hover_async(
                types.HoverParams(types.TextDocumentIdentifier(BARRIER), types.Position(0, 0))
            ),
            10,
        )

    async def quiet(self, rounds: int = 3) -> None:
        """Wait until the server publishes nothing more on its own: the work a session starts
        in the background (pulling the client's settings and registering watchers, then
        publishing every open file again) may end after the first messages of a test."""
        last, still = sum(self.publishes.values()), 0
        for _ in range(200):
            await asyncio.sleep(0.05)
            await self.settle()
            now = sum(self.publishes.values())
            still = still + 1 if now == last else 0
            last = now
            if still >= rounds:
                return
        raise AssertionError("the server kept publishing")

    async def wait_until(self, condition: Callable[[], object], seconds: float = 10.0) -> None:
        """Wait for something the server does on its own time (after a round trip, say)."""
        for _ in range(int(seconds / 0.02)):
            if condition():
                return
            await asyncio.sleep(0.02)
        raise AssertionError("the server never got there")

    async def indexing_ended(self, seconds: float = 15.0, *, roots: int = 1) -> None:
        """Wait for the session's first indexing of ``roots`` workspace roots to end (as many
        progress reports ended): until then a refresh may hold an index, and a memory another
        process writes meanwhile is read when it lets go rather than at the next message
        (docs/editors.md)."""
        await self.wait_until(
            lambda: (
                sum(
                    bool(reports) and isinstance(reports[-1], types.WorkDoneProgressEnd)
                    for reports in self.client.progress_reports.values()
                )
                >= roots
            ),
            seconds,
        )

    def diagnostics(self, path: Path) -> list[types.Diagnostic]:
        """The last diagnostics published for a file."""
        return list(self.client.diagnostics.get(path.as_uri(), []))

    async def open(self, path: Path, text: str | None = None, language: str = "python") -> None:
        """didOpen with the file's text (or ``text``)."""
        uri = path.as_uri()
        self.versions[uri] = 1
        body = path.read_text(encoding="utf-8") if text is None else text
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, language, 1, body))
        )
        await self.settle()

    async def change(
        self, path: Path, text: str, *, bump: bool = True, settle: bool = True
    ) -> None:
        """didChange replacing the whole text (the version stays put with ``bump=False``;
        with ``settle=False`` the next message follows at once, as in a burst)."""
        uri = path.as_uri()
        if bump:
            self.versions[uri] = self.versions.get(uri, 1) + 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=self.versions.get(uri, 1), uri=uri),
                [types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        if settle:
            await self.settle()

    async def type(
        self, path: Path, start: tuple[int, int], end: tuple[int, int], text: str
    ) -> None:
        """didChange replacing the stretch from ``start`` to ``end`` (line, character) with
        ``text``, as an editor sends a keystroke or a paste."""
        uri = path.as_uri()
        self.versions[uri] = self.versions.get(uri, 1) + 1
        stretch = types.Range(types.Position(*start), types.Position(*end))
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=self.versions[uri], uri=uri),
                [types.TextDocumentContentChangePartial(range=stretch, text=text)],
            )
        )
        await self.settle()

    async def save(self, path: Path, text: str | None = None) -> None:
        """Write the file (when ``text`` is given) and send didSave."""
        if text is not None:
            path.write_text(text, encoding="utf-8")
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(path.as_uri()))
        )
        await self.settle()

    async def close(self, path: Path) -> None:
        """didClose."""
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(path.as_uri()))
        )
        await self.settle()

    async def hover(self, path: Path, line: int, character: int) -> types.Hover | None:
        """A hover request."""
        return await self.client.text_document_hover_async(
            types.HoverParams(
                types.TextDocumentIdentifier(path.as_uri()), types.Position(line, character)
            )
        )

    async def actions(
        self, path: Path, rng: types.Range, diagnostics: list[types.Diagnostic] | None = None
    ) -> list[Any]:
        """The code actions offered for a range."""
        found = await self.client.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(path.as_uri()),
                rng,
                types.CodeActionContext(diagnostics=diagnostics or []),
            )
        )
        return list(found or [])

    async def run_action(self, action: types.CodeAction | types.Command) -> Any:
        """Run the command an offered code action carries, as the client would. (pytest-lsp's
        decoding turns a code action with a command into a ``Command`` whose ``command`` is
        the action's text; its arguments are read back from it.)"""
        command = action.command if isinstance(action, types.CodeAction) else action
        assert command is not None
        name, arguments = command.command, list(command.arguments or [])
        if name.startswith("{"):
            carried = ast.literal_eval(name)
            name, arguments = carried["command"], carried.get("arguments", [])
        return await self.command(name, *arguments)

    async def command(self, name: str, *arguments: Any) -> Any:
        """Run a ``workspace/executeCommand`` and return its result."""
        result = await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=list(arguments))
        )
        await self.settle()
        return result

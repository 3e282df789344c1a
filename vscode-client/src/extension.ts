// Tether for VS Code: a thin client of `tether lsp`. Diagnostics, hover and quick fixes come
// from the server; the extension adds commands with a UI, a memory view and a status item.

import * as vscode from 'vscode';
import { FolderClients } from './clients';
import { MemoryState } from './memoryState';
import { MemoryView, VIEW_ID } from './memoryView';
import { needsRestart, SECTION } from './settings';
import { MemoryStatus } from './statusBar';
import { UiCommands } from './uiCommands';

let clients: FolderClients | undefined;

/** Start the servers and set up the view, the status item and the commands. */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('Tether');
  clients = new FolderClients(output);
  const state = new MemoryState(clients, output);
  const view = new MemoryView(state);
  const watcher = vscode.workspace.createFileSystemWatcher('**/.tether/memories/**');
  let lastCodes = '';
  const tetherCodes = (uri: vscode.Uri) =>
    vscode.languages
      .getDiagnostics(uri)
      .filter((d) => d.source === 'tether')
      .map((d) => `${String(typeof d.code === 'object' ? d.code.value : d.code)}:${d.message}`)
      .join('|');

  context.subscriptions.push(
    output,
    clients,
    state,
    view,
    new MemoryStatus(state),
    watcher,
    vscode.window.registerTreeDataProvider(VIEW_ID, view),
    ...new UiCommands(clients, state, output).register(),
    clients.onDidChange(() => state.refresh()),
    watcher.onDidCreate(() => state.refresh()),
    watcher.onDidChange(() => state.refresh()),
    watcher.onDidDelete(() => state.refresh()),
    vscode.window.onDidChangeActiveTextEditor(() => {
      const uri = vscode.window.activeTextEditor?.document.uri;
      lastCodes = uri ? tetherCodes(uri) : '';
      state.refresh(false);
    }),
    // the server republishes when rankings move (indexing done, a turn ended): follow it
    vscode.languages.onDidChangeDiagnostics((event) => {
      const uri = vscode.window.activeTextEditor?.document.uri;
      if (!uri || !event.uris.some((u) => u.toString() === uri.toString())) {
        return;
      }
      const codes = tetherCodes(uri);
      if (codes !== lastCodes) {
        lastCodes = codes;
        state.refresh(false);
      }
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void clients?.sync()),
    // trust granted: restart so each server starts over with the trusted settings
    vscode.workspace.onDidGrantWorkspaceTrust(() => void clients?.restart()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (needsRestart((section) => event.affectsConfiguration(section))) {
        void clients?.restart();
      } else if (event.affectsConfiguration(SECTION)) {
        clients?.settingsChanged();
      }
    }),
  );
  void clients.sync();
}

/** Stop the servers (VS Code waits for the promise). */
export async function deactivate(): Promise<void> {
  const running = clients;
  clients = undefined;
  await running?.stopAll();
}

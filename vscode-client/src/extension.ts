// Tether for VS Code: a thin client of `tether lsp`. Diagnostics, hover and quick fixes come
// from the server; the extension adds commands with a UI, a memory view and a status item.

import * as fs from 'fs';
import * as vscode from 'vscode';
import { coveringFolders, FolderClients } from './clients';
import { MemoryState } from './memoryState';
import { MemoryView, VIEW_ID } from './memoryView';
import { needsRestart, SECTION } from './settings';
import { MemoryStatus } from './statusBar';
import { tetherAbove } from './tetherRoot';
import { UiCommands } from './uiCommands';

let clients: FolderClients | undefined;

const isDirectory = (p: string) => {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/**
 * Whether the window holds a Tether repository: a `.tether` at or above a folder, or memories
 * below one. The extension also activates once VS Code started (a folder opened inside a
 * repository is not seen by `workspaceContains`); in other windows it starts no server until
 * its view is opened or one of its commands is run.
 */
async function holdsTether(): Promise<boolean> {
  const folders = coveringFolders(vscode.workspace.workspaceFolders ?? []);
  if (folders.some((f) => tetherAbove(f.uri.fsPath, isDirectory) !== undefined)) {
    return true;
  }
  const below = await vscode.workspace.findFiles('**/.tether/memories/*.md', '**/node_modules/**', 1);
  return below.length > 0;
}

/** Start the servers and set up the view, the status item and the commands. */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('Tether');
  clients = new FolderClients(output);
  const state = new MemoryState(clients, output);
  const view = new MemoryView(state);
  let started: Promise<void> | undefined;
  const start = (): Promise<void> => (started ??= clients!.sync());
  const startIfTether = async () => {
    if (!started && (await holdsTether())) {
      await start();
    }
  };
  const tree = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: view });
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
    tree,
    tree.onDidChangeVisibility((event) => {
      if (event.visible) {
        void start();
      }
    }),
    ...new UiCommands(clients, state, output, start).register(),
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
    vscode.workspace.onDidChangeWorkspaceFolders(() => void (started ? clients?.sync() : startIfTether())),
    // trust granted: restart so each server starts over with the trusted settings
    vscode.workspace.onDidGrantWorkspaceTrust(() => void (started && clients?.restart())),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (!started) {
        return; // no server yet: the settings are read when one starts
      }
      if (needsRestart((section) => event.affectsConfiguration(section))) {
        void clients?.restart();
      } else if (event.affectsConfiguration(SECTION)) {
        clients?.settingsChanged();
      }
    }),
  );
  if (tree.visible) {
    void start();
  } else {
    void startIfTether();
  }
}

/** Stop the servers (VS Code waits for the promise). */
export async function deactivate(): Promise<void> {
  const running = clients;
  clients = undefined;
  await running?.stopAll();
}

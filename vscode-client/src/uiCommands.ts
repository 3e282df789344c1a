// The extension's own commands: they ask the user what to do, then run a server command.
// Their ids (`tether.ui.*`) differ from the server's (`tether.*`) so the two never collide.

import * as path from 'path';
import * as vscode from 'vscode';
import { FolderClients } from './clients';
import {
  CATEGORY_CHOICES,
  memoryArgs,
  parseRouted,
  rememberArgs,
  resultMessage,
  RUN_COMMAND,
  summaryProblem,
  supersedeArgs,
} from './commandArgs';
import { CATEGORY_ICONS, dedupe, ListedMemory, Tagged } from './memoryModel';
import { MemoryState } from './memoryState';
import { VIEW_ID } from './memoryView';

type MemoryFilter = (memory: ListedMemory) => boolean;

interface MemoryPick extends vscode.QuickPickItem {
  target: Tagged;
}

interface FilePick extends vscode.QuickPickItem {
  uri?: vscode.Uri;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A tree node or a command argument that names a memory and its folder's server. */
function asTarget(value: unknown): Tagged | undefined {
  const node = value as Partial<Tagged> | undefined;
  if (node && typeof node.folder === 'string' && node.memory && typeof node.memory.id === 'string') {
    return { folder: node.folder, memory: node.memory };
  }
  return undefined;
}

/** The `tether.ui.*` commands. */
export class UiCommands {
  constructor(
    private readonly clients: FolderClients,
    private readonly state: MemoryState,
    private readonly output: vscode.OutputChannel,
    /** Called before each command: starts the servers of a window that has none yet. */
    private readonly ready: () => Promise<void> = async () => {},
  ) {}

  /** Register every command; errors are shown to the user and written to the log. */
  public register(): vscode.Disposable[] {
    const on = (id: string, run: (...args: unknown[]) => Promise<unknown>) =>
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          await this.ready();
          return await run(...args);
        } catch (error) {
          this.output.appendLine(`${id}: ${errorText(error)}`);
          void vscode.window.showErrorMessage(`Tether: ${errorText(error)}`);
          return undefined;
        }
      });
    return [
      on('tether.ui.remember', (uri) => this.remember(uri instanceof vscode.Uri ? uri : undefined)),
      on('tether.ui.pin', (node) =>
        this.simple(node, 'tether.pin', (m) => m.status === 'active' && !m.pinned, 'Pin which memory?'),
      ),
      on('tether.ui.unpin', (node) =>
        this.simple(node, 'tether.unpin', (m) => m.pinned, 'Unpin which memory?'),
      ),
      on('tether.ui.show', (node) => this.show(node)),
      on('tether.ui.archive', (node) => this.archive(node)),
      on('tether.ui.restore', (node) =>
        this.simple(node, 'tether.restore', (m) => m.status === 'archived', 'Restore which archived memory?'),
      ),
      on('tether.ui.supersede', (node) => this.supersede(node)),
      on('tether.ui.reindex', () => this.reindex()),
      on('tether.ui.restart', () => this.clients.restart()),
      on('tether.ui.refresh', () => this.state.refreshNow()),
      on('tether.ui.showLog', async () => this.output.show(true)),
      on('tether.ui.openView', async () => vscode.commands.executeCommand(`${VIEW_ID}.focus`)),
      on(RUN_COMMAND, (...args) => this.routed(args)),
    ];
  }

  /** A server command from a quick fix, run on the server of the folder it came from. */
  private async routed(args: unknown[]): Promise<unknown> {
    const parsed = parseRouted(args);
    if (typeof parsed === 'string') {
      throw new Error(parsed);
    }
    const result = await this.clients.execute(parsed.folder, parsed.command, parsed.arguments);
    this.report(result);
    await this.state.refreshNow();
    return result;
  }

  private report(result: unknown): void {
    const message = resultMessage(result);
    if (message) {
      void vscode.window.showInformationMessage(`Tether: ${message}`);
    }
  }

  /** The memory a command acts on: the tree node it was run on, else one the user picks. */
  private async target(
    node: unknown,
    filter: MemoryFilter,
    placeHolder: string,
  ): Promise<Tagged | undefined> {
    const given = asTarget(node);
    if (given) {
      return given;
    }
    await this.state.refreshNow();
    const here = this.state.activeFile?.memories ?? [];
    const candidates = dedupe([...here, ...this.state.all]).filter((m) => filter(m.memory));
    if (candidates.length === 0) {
      void vscode.window.showInformationMessage('Tether: no memory to do that to.');
      return undefined;
    }
    const items: MemoryPick[] = candidates.map((target) => ({
      label: `$(${CATEGORY_ICONS[target.memory.category] ?? 'note'}) ${target.memory.summary}`,
      description: [target.memory.category, target.memory.pinned ? 'pinned' : '', target.memory.id]
        .filter(Boolean)
        .join(' · '),
      detail: target.memory.receipt ?? target.memory.files.join(', '),
      target,
    }));
    const picked = await vscode.window.showQuickPick(items, {
      placeHolder,
      matchOnDescription: true,
      matchOnDetail: true,
    });
    return picked?.target;
  }

  private async simple(
    node: unknown,
    command: string,
    filter: MemoryFilter,
    placeHolder: string,
  ): Promise<void> {
    const target = await this.target(node, filter, placeHolder);
    if (!target) {
      return;
    }
    const result = await this.clients.execute(target.folder, command, [memoryArgs(target.memory.id)]);
    this.report(result);
    await this.state.refreshNow();
  }

  private async show(node: unknown): Promise<void> {
    const target = await this.target(node, () => true, 'Show which memory?');
    if (target) {
      await this.clients.execute(target.folder, 'tether.show', [
        memoryArgs(target.memory.id, { display: true, fromHint: true }),
      ]);
    }
  }

  private async archive(node: unknown): Promise<void> {
    const target = await this.target(node, (m) => m.status === 'active', 'Archive which memory?');
    if (!target) {
      return;
    }
    const result = await this.clients.execute(target.folder, 'tether.archive', [
      memoryArgs(target.memory.id),
    ]);
    await this.state.refreshNow();
    if (resultMessage(result)) {
      this.report(result);
      return;
    }
    const undo = await vscode.window.showInformationMessage(
      `Tether: archived "${target.memory.summary}" (it no longer surfaces).`,
      'Undo',
    );
    if (undo === 'Undo') {
      await this.clients.execute(target.folder, 'tether.restore', [memoryArgs(target.memory.id)]);
      await this.state.refreshNow();
    }
  }

  /** "Remember something about this file": category, summary, files, optional details. */
  private async remember(given?: vscode.Uri): Promise<void> {
    const uri = given ?? vscode.window.activeTextEditor?.document.uri;
    const folder = (uri && this.clients.folderOf(uri)) ?? (await this.pickFolder());
    if (!folder) {
      return;
    }
    const category = await vscode.window.showQuickPick(
      CATEGORY_CHOICES.map((c) => ({
        label: `$(${CATEGORY_ICONS[c.category]}) ${c.label}`,
        detail: c.detail,
        category: c.category,
      })),
      { placeHolder: 'What kind of memory is it?' },
    );
    if (!category) {
      return;
    }
    const summary = await vscode.window.showInputBox({
      prompt: `The ${category.category} in one line`,
      placeHolder: 'e.g. session save must go through safeRename',
      validateInput: (text) => summaryProblem(text),
    });
    if (summary === undefined) {
      return;
    }
    const files = await this.pickFiles(folder, uri);
    if (!files) {
      return;
    }
    const details = await this.detailsChoice(false);
    if (!details) {
      return;
    }
    const args = rememberArgs({
      uri: uri && this.clients.folderOf(uri) === folder ? uri.toString() : undefined,
      category: category.category,
      summary,
      files: files.map((f) => f.fsPath),
    });
    const result = (await this.clients.execute(folder, 'tether.remember', [args])) as {
      id?: string;
      path?: string;
      duplicate_of?: string;
    } | null;
    await this.state.refreshNow();
    if (!result || !result.id) {
      this.report(result);
      return;
    }
    if (result.duplicate_of) {
      void vscode.window.showInformationMessage(`Tether: already remembered as ${result.duplicate_of}.`);
      return;
    }
    if (details === 'editor' && result.path) {
      await openForDetails(vscode.Uri.file(result.path));
      return;
    }
    void vscode.window.showInformationMessage(`Tether: remembered ${category.category} ${result.id}.`);
  }

  private async pickFolder(): Promise<string | undefined> {
    const folders = this.clients.folders();
    if (folders.length === 0) {
      void vscode.window.showWarningMessage(
        'Tether: open a folder first; its language server is not running.',
      );
      return undefined;
    }
    if (folders.length === 1) {
      return folders[0];
    }
    const picked = await vscode.window.showQuickPick(
      folders.map((key) => ({ label: this.clients.folderName(key), key })),
      { placeHolder: 'Remember it in which folder?' },
    );
    return picked?.key;
  }

  /** The files the memory is about: the current one picked, open ones offered, more addable. */
  private async pickFiles(folder: string, current?: vscode.Uri): Promise<vscode.Uri[] | undefined> {
    const inFolder = (uri: vscode.Uri) => this.clients.folderOf(uri) === folder;
    const known = new Map<string, { uri: vscode.Uri; picked: boolean }>();
    if (current && inFolder(current) && !isMemoryFile(current)) {
      known.set(current.toString(), { uri: current, picked: true });
    }
    for (const document of vscode.workspace.textDocuments) {
      const uri = document.uri;
      if (uri.scheme === 'file' && inFolder(uri) && !isMemoryFile(uri) && !known.has(uri.toString())) {
        known.set(uri.toString(), { uri, picked: false });
      }
    }
    for (;;) {
      const items: FilePick[] = [...known.values()].map(({ uri, picked }) => ({
        label: vscode.workspace.asRelativePath(uri, false),
        picked,
        uri,
      }));
      const add: FilePick = { label: '$(add) Add other files…', alwaysShow: true };
      const picked = await vscode.window.showQuickPick([...items, add], {
        canPickMany: true,
        placeHolder: 'Which files is it about? (the memory surfaces when they are touched)',
      });
      if (!picked) {
        return undefined;
      }
      for (const entry of known.values()) {
        entry.picked = picked.some((p) => p.uri?.toString() === entry.uri.toString());
      }
      if (picked.includes(add)) {
        const more = await vscode.window.showOpenDialog({
          canSelectMany: true,
          defaultUri: vscode.Uri.parse(folder),
          openLabel: 'Add to the memory',
        });
        for (const uri of more ?? []) {
          known.set(uri.toString(), { uri, picked: true });
        }
        continue;
      }
      const chosen = [...known.values()].filter((e) => e.picked).map((e) => e.uri);
      if (chosen.length > 0) {
        return chosen;
      }
      void vscode.window.showWarningMessage(
        'Tether: pick at least one file; a memory surfaces through its files.',
      );
    }
  }

  /** Whether details are written in an editor afterwards, kept (supersede), or left out. */
  private async detailsChoice(canKeep: boolean): Promise<'none' | 'editor' | 'keep' | undefined> {
    const choices: Array<vscode.QuickPickItem & { value: 'none' | 'editor' | 'keep' }> = [];
    if (canKeep) {
      choices.push({ label: 'Keep the old details', value: 'keep' });
    }
    choices.push(
      { label: 'Save', description: 'the summary is enough', value: 'none' },
      {
        label: 'Save, then write details in an editor',
        description: 'saving the file updates the memory',
        value: 'editor',
      },
    );
    const picked = await vscode.window.showQuickPick(choices, { placeHolder: 'Details (optional)' });
    return picked?.value;
  }

  private async supersede(node: unknown): Promise<void> {
    const target = await this.target(node, (m) => m.status === 'active', 'Supersede which memory?');
    if (!target) {
      return;
    }
    const old = target.memory;
    const summary = await vscode.window.showInputBox({
      prompt: `What replaces "${old.summary}"? (the old memory leaves recall, linked to the new one)`,
      value: old.summary,
      validateInput: (text) => summaryProblem(text),
    });
    if (summary === undefined) {
      return;
    }
    const details = await this.detailsChoice(Boolean(old.details));
    if (!details) {
      return;
    }
    const result = (await this.clients.execute(target.folder, 'tether.supersede', [
      supersedeArgs(old.id, summary, details === 'keep' ? old.details : undefined),
    ])) as { id?: string; path?: string } | null;
    await this.state.refreshNow();
    if (!result || !result.id) {
      this.report(result);
      return;
    }
    if (details === 'editor' && result.path) {
      await openForDetails(vscode.Uri.file(result.path));
      return;
    }
    void vscode.window.showInformationMessage(`Tether: ${result.id} supersedes ${old.id}.`);
  }

  private async reindex(): Promise<void> {
    const folders = this.clients.folders();
    if (folders.length === 0) {
      void vscode.window.showWarningMessage(
        'Tether: no language server is running (Tether: Restart Server).',
      );
      return;
    }
    const lines = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: 'Tether: rebuilding the index from the memory files',
      },
      async () => {
        const found: string[] = [];
        for (const folder of folders) {
          const result = (await this.clients.execute(folder, 'tether.reindex', [{}])) as {
            reindexed?: Array<{ memories: number; problems: number }>;
          };
          for (const done of result?.reindexed ?? []) {
            const problems = done.problems
              ? `, ${done.problems} files with problems (see tether doctor)`
              : '';
            found.push(`${this.clients.folderName(folder)}: ${done.memories} memories${problems}`);
          }
        }
        return found;
      },
    );
    await this.state.refreshNow();
    void vscode.window.showInformationMessage(`Tether: reindexed ${lines.join('; ')}.`);
  }
}

function isMemoryFile(uri: vscode.Uri): boolean {
  return uri.fsPath.split(path.sep).includes('.tether');
}

/** Open a memory file with the cursor on a fresh line below the summary, for the details. */
async function openForDetails(uri: vscode.Uri): Promise<void> {
  const document = await vscode.workspace.openTextDocument(uri);
  const editor = await vscode.window.showTextDocument(document);
  const end = document.lineAt(document.lineCount - 1).range.end;
  await editor.edit((edit) => edit.insert(end, document.getText().endsWith('\n') ? '\n' : '\n\n'));
  const last = editor.document.lineAt(editor.document.lineCount - 1).range.end;
  editor.selection = new vscode.Selection(last, last);
  void vscode.window.showInformationMessage('Tether: write the details below the summary and save the file.');
}

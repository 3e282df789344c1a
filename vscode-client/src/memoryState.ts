// The memories the view and the status bar show, fetched from the servers with `tether.list`.

import * as path from 'path';
import * as vscode from 'vscode';
import { FolderClients } from './clients';
import { ListedMemory, Tagged } from './memoryModel';

/** Refreshes closer together than this are merged (a save writes several memory files). */
const REFRESH_DELAY_MS = 150;

function memoriesOf(result: unknown): ListedMemory[] {
  if (result && typeof result === 'object' && Array.isArray((result as { memories?: unknown }).memories)) {
    return (result as { memories: ListedMemory[] }).memories;
  }
  return [];
}

/** The memories last listed by the servers; the view and the status bar render from it. */
export class MemoryState implements vscode.Disposable {
  /** Every memory of every server (any status). */
  public all: Tagged[] = [];
  /** How many servers were running at the last refresh. */
  public servers = 0;
  /** The active editor's file and its memories (with receipts). */
  public activeFile: { uri: vscode.Uri; name: string; folder: string; memories: Tagged[] } | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires after each refresh. */
  public readonly onDidChange = this.changed.event;
  private timer: NodeJS.Timeout | undefined;
  private wantAll = false;
  private generation = 0;

  constructor(
    private readonly clients: FolderClients,
    private readonly output: vscode.OutputChannel,
  ) {}

  /** Fetch again soon: everything, or only the active file's memories. */
  public refresh(everything = true): void {
    this.wantAll ||= everything;
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const all = this.wantAll;
      this.wantAll = false;
      void this.fetch(all);
    }, REFRESH_DELAY_MS);
  }

  /** Fetch now and wait for it (after a command, so the view is current when it returns). */
  public async refreshNow(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.wantAll = false;
    await this.fetch(true);
  }

  private async list(folder: string, args: Record<string, unknown>): Promise<ListedMemory[]> {
    try {
      return memoriesOf(await this.clients.execute(folder, 'tether.list', [args]));
    } catch (error) {
      this.output.appendLine(`tether.list on ${this.clients.folderName(folder)}: ${String(error)}`);
      return [];
    }
  }

  private async fetch(everything: boolean): Promise<void> {
    const generation = ++this.generation;
    const folders = this.clients.folders();
    const all = everything
      ? (
          await Promise.all(
            folders.map(async (folder) =>
              (await this.list(folder, { status: 'all' })).map((memory) => ({ folder, memory })),
            ),
          )
        ).flat()
      : this.all;
    const editor = vscode.window.activeTextEditor;
    let activeFile: MemoryState['activeFile'];
    const uri = editor?.document.uri;
    const folder = uri ? this.clients.folderOf(uri) : undefined;
    if (uri && folder) {
      const memories = (await this.list(folder, { uri: uri.toString() })).map((memory) => ({
        folder,
        memory,
      }));
      activeFile = { uri, name: path.basename(uri.fsPath), folder, memories };
    }
    if (generation !== this.generation) {
      // a newer fetch started meanwhile and reports instead; it may have been a partial one
      if (everything) {
        this.refresh(true);
      }
      return;
    }
    this.all = all;
    this.activeFile = activeFile;
    this.servers = folders.length;
    this.changed.fire();
  }

  public dispose(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.changed.dispose();
  }
}

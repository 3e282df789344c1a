// The memories the view and the status bar show, fetched from the servers with `tether.list`.

import * as path from 'path';
import * as vscode from 'vscode';
import { FolderClients } from './clients';
import {
  FolderLists,
  listPage,
  ListPage,
  mergePages,
  omitted,
  Omitted,
  Tagged,
  VIEW_LIMIT,
  VIEW_LISTS,
} from './memoryModel';

/** Refreshes closer together than this are merged (a save writes several memory files). */
const REFRESH_DELAY_MS = 150;

const EMPTY: ListPage = { memories: [], more: 0, exact: true };

/** The memories last listed by the servers; the view and the status bar render from it. */
export class MemoryState implements vscode.Disposable {
  /**
   * The active and archived memories of every server (superseded and deleted ones are not
   * asked for: they are not shown, and would take places under the limit).
   */
  public all: Tagged[] = [];
  /** What the limit left out of the active, the archived and the pinned lists. */
  public activeOmitted: Omitted = { more: 0, exact: true };
  public archivedOmitted: Omitted = { more: 0, exact: true };
  public pinnedOmitted: Omitted = { more: 0, exact: true };
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

  private async list(folder: string, args: { readonly [key: string]: unknown }): Promise<ListPage> {
    try {
      const limit = typeof args.limit === 'number' ? args.limit : VIEW_LIMIT;
      return listPage(await this.clients.execute(folder, 'tether.list', [args]), limit);
    } catch (error) {
      this.output.appendLine(`tether.list on ${this.clients.folderName(folder)}: ${String(error)}`);
      return EMPTY;
    }
  }

  /**
   * A folder's active and archived memories, each list under its own limit (so neither the
   * other nor superseded ones take its places). When the active list was cut, the pinned ones
   * are asked for apart, so the Pinned section stays whole; those shown that way are not
   * counted as left out.
   */
  private async folderLists(folder: string): Promise<FolderLists> {
    const [active, archived] = await Promise.all([
      this.list(folder, VIEW_LISTS.active),
      this.list(folder, VIEW_LISTS.archived),
    ]);
    const pinned = active.more > 0 ? await this.list(folder, VIEW_LISTS.pinned) : undefined;
    return mergePages(folder, active, archived, pinned);
  }

  private async fetch(everything: boolean): Promise<void> {
    const generation = ++this.generation;
    const folders = this.clients.folders();
    let all = this.all;
    let activeOmitted = this.activeOmitted;
    let archivedOmitted = this.archivedOmitted;
    let pinnedOmitted = this.pinnedOmitted;
    if (everything) {
      const lists = await Promise.all(folders.map((folder) => this.folderLists(folder)));
      all = lists.flatMap((l) => l.memories);
      activeOmitted = omitted(lists.map((l) => l.active));
      archivedOmitted = omitted(lists.map((l) => l.archived));
      pinnedOmitted = omitted(lists.map((l) => l.pinned));
    }
    const editor = vscode.window.activeTextEditor;
    let activeFile: MemoryState['activeFile'];
    const uri = editor?.document.uri;
    const folder = uri ? this.clients.folderOf(uri) : undefined;
    if (uri && folder) {
      const memories = (await this.list(folder, { uri: uri.toString() })).memories.map((memory) => ({
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
    this.activeOmitted = activeOmitted;
    this.archivedOmitted = archivedOmitted;
    this.pinnedOmitted = pinnedOmitted;
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

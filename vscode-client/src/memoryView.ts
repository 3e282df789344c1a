// The "Tether" view in the explorer: this file's memories (with receipts), pinned, all by
// category, archived.

import * as vscode from 'vscode';
import { buildTree, cardMarkdown, MemoryNode, TreeNode } from './memoryModel';
import { MemoryState } from './memoryState';

export const VIEW_ID = 'tether.memories';

/** The tree data provider of the Tether view, rebuilt from {@link MemoryState} on each refresh. */
export class MemoryView implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  public readonly onDidChangeTreeData = this.changed.event;
  private roots: TreeNode[] = [];
  private readonly subscription: vscode.Disposable;

  constructor(private readonly state: MemoryState) {
    this.subscription = state.onDidChange(() => this.rebuild());
    this.rebuild();
  }

  private rebuild(): void {
    if (this.state.servers === 0) {
      this.roots = []; // the view's welcome text says no server runs, with buttons
      this.changed.fire(undefined);
      return;
    }
    const active = this.state.all.filter((m) => m.memory.status === 'active');
    this.roots = buildTree({
      activeFile: this.state.activeFile,
      active,
      pinned: active.filter((m) => m.memory.pinned),
      archived: this.state.all.filter((m) => m.memory.status === 'archived'),
      activeOmitted: this.state.activeOmitted,
      archivedOmitted: this.state.archivedOmitted,
      pinnedOmitted: this.state.pinnedOmitted,
    });
    this.changed.fire(undefined);
  }

  public getChildren(node?: TreeNode): TreeNode[] {
    if (!node) {
      return this.roots;
    }
    return node.kind === 'group' ? node.children : [];
  }

  public getTreeItem(node: TreeNode): vscode.TreeItem {
    if (node.kind === 'message') {
      const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
      item.id = node.key;
      return item;
    }
    if (node.kind === 'group') {
      const state = node.expanded
        ? vscode.TreeItemCollapsibleState.Expanded
        : vscode.TreeItemCollapsibleState.Collapsed;
      const item = new vscode.TreeItem(node.label, state);
      item.id = node.key;
      item.description = node.description;
      item.iconPath = new vscode.ThemeIcon(node.icon);
      item.contextValue = `group:${node.key}`;
      return item;
    }
    return memoryItem(node);
  }

  public dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}

function memoryItem(node: MemoryNode): vscode.TreeItem {
  const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
  item.id = node.key;
  item.description = node.description;
  item.iconPath = new vscode.ThemeIcon(node.icon);
  item.contextValue = node.contextValue;
  item.tooltip = new vscode.MarkdownString(cardMarkdown(node.memory));
  item.command = { title: 'Show Memory', command: 'tether.ui.show', arguments: [node] };
  return item;
}

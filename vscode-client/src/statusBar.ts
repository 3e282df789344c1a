// The status bar item: how many memories name the active file, with the worst category's icon.

import * as vscode from 'vscode';
import { statusSummary } from './memoryModel';
import { MemoryState } from './memoryState';

/** The status bar item for the active file; hidden when no server covers it. */
export class MemoryStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(
    'tether.status',
    vscode.StatusBarAlignment.Left,
    50,
  );
  private readonly subscription: vscode.Disposable;

  constructor(private readonly state: MemoryState) {
    this.item.name = 'Tether';
    this.item.command = 'tether.ui.openView';
    this.subscription = state.onDidChange(() => this.update());
  }

  private update(): void {
    const file = this.state.activeFile;
    if (!file) {
      this.item.hide();
      return;
    }
    const summary = statusSummary(file.memories.map((m) => m.memory));
    this.item.text = summary.text;
    this.item.tooltip = summary.tooltip;
    this.item.accessibilityInformation = { label: summary.tooltip };
    this.item.backgroundColor =
      summary.worst === 'gotcha' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }

  public dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}

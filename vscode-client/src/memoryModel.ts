// What the Tether view and the status bar show, built from `tether.list` results.
// No `vscode` import here, so the logic is unit-tested under plain Node.

/** One memory as `tether.list` returns it. */
export interface ListedMemory {
  id: string;
  summary: string;
  details: string;
  category: string;
  pinned: boolean;
  status: string;
  files: string[];
  anchor: string | null;
  created: string;
  scope: string;
  /** Why it surfaced for the file asked about; null in plain listings. */
  receipt: string | null;
  /** Whether the memory names the file asked about (file listings only). */
  direct?: boolean;
}

/** A memory and the key of the workspace folder whose server listed it. */
export interface Tagged {
  folder: string;
  memory: ListedMemory;
}

/** Worst first: a gotcha says "this will bite", context only informs. */
export const CATEGORY_ORDER: readonly string[] = ['gotcha', 'rejected', 'decision', 'pref', 'context'];

export const CATEGORY_LABELS: Record<string, string> = {
  gotcha: 'Gotchas',
  decision: 'Decisions',
  pref: 'Preferences',
  context: 'Context',
  rejected: 'Tried and rejected',
};

/** Codicon ids, one per category. */
export const CATEGORY_ICONS: Record<string, string> = {
  gotcha: 'warning',
  decision: 'law',
  pref: 'heart',
  context: 'info',
  rejected: 'circle-slash',
};

export interface GroupNode {
  kind: 'group';
  key: string;
  label: string;
  description?: string;
  icon: string;
  children: TreeNode[];
  expanded: boolean;
}

export interface MemoryNode {
  kind: 'memory';
  key: string;
  folder: string;
  memory: ListedMemory;
  label: string;
  description: string;
  icon: string;
  contextValue: string;
}

export interface MessageNode {
  kind: 'message';
  key: string;
  label: string;
}

export type TreeNode = GroupNode | MemoryNode | MessageNode;

/** What the view is built from. */
export interface ViewInput {
  /** The active editor's file, when it is a file some server covers. */
  activeFile?: { name: string; memories: Tagged[] };
  active: Tagged[];
  pinned: Tagged[];
  archived: Tagged[];
}

/** The same memory listed by two folders' servers (the global store, one repository) once. */
export function dedupe(items: Tagged[]): Tagged[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = `${item.memory.scope}:${item.memory.id}`;
    if (seen.has(key)) {
      return false;
    }
    seen.add(key);
    return true;
  });
}

/** The context value menus match on: `memory:<status>:<pinned|unpinned>`. */
export function contextValue(memory: ListedMemory): string {
  return `memory:${memory.status}:${memory.pinned ? 'pinned' : 'unpinned'}`;
}

function categoryIndex(category: string): number {
  const index = CATEGORY_ORDER.indexOf(category);
  return index < 0 ? CATEGORY_ORDER.length : index;
}

function marks(memory: ListedMemory): string[] {
  const found: string[] = [];
  if (memory.pinned) {
    found.push('pinned');
  }
  if (memory.scope !== 'project') {
    found.push(memory.scope);
  }
  return found;
}

/** A memory row: the summary, and a description saying why it is there. */
export function memoryNode(section: string, item: Tagged, withReceipt: boolean): MemoryNode {
  const memory = item.memory;
  const parts = withReceipt && memory.receipt ? [memory.receipt] : [memory.category];
  parts.push(...marks(memory), memory.id);
  return {
    kind: 'memory',
    key: `${section}/${item.folder}/${memory.scope}/${memory.id}`,
    folder: item.folder,
    memory,
    label: memory.summary || '(no summary)',
    description: parts.join(' · '),
    icon: CATEGORY_ICONS[memory.category] ?? 'note',
    contextValue: contextValue(memory),
  };
}

function group(
  key: string,
  label: string,
  icon: string,
  children: TreeNode[],
  empty: string,
  expanded = true,
): GroupNode {
  const count = children.filter((c) => c.kind === 'memory').length;
  return {
    kind: 'group',
    key,
    label,
    description: String(count),
    icon,
    children: children.length > 0 ? children : [{ kind: 'message', key: `${key}/empty`, label: empty }],
    expanded,
  };
}

/** The view's top level: this file, pinned, all by category, archived. */
export function buildTree(input: ViewInput): TreeNode[] {
  const roots: TreeNode[] = [];
  if (input.activeFile) {
    const rows = dedupe(input.activeFile.memories).map((m) => memoryNode('file', m, true));
    roots.push(
      group('file', `This file: ${input.activeFile.name}`, 'file', rows, 'No memories for this file'),
    );
  }
  const pinned = dedupe(input.pinned).map((m) => memoryNode('pinned', m, false));
  roots.push(group('pinned', 'Pinned', 'pinned', pinned, 'Nothing pinned'));
  const active = dedupe(input.active);
  const categories = [...new Set(active.map((m) => m.memory.category))].sort(
    (a, b) => categoryIndex(a) - categoryIndex(b) || a.localeCompare(b),
  );
  const byCategory: TreeNode[] = categories.map((category) =>
    group(
      `all/${category}`,
      CATEGORY_LABELS[category] ?? category,
      CATEGORY_ICONS[category] ?? 'note',
      active
        .filter((m) => m.memory.category === category)
        .map((m) => memoryNode(`all/${category}`, m, false)),
      '',
      category === 'gotcha',
    ),
  );
  const all = group('all', 'All memories', 'library', byCategory, 'No memories yet');
  all.description = String(active.length);
  roots.push(all);
  const archived = dedupe(input.archived).map((m) => memoryNode('archived', m, false));
  roots.push(group('archived', 'Archived', 'archive', archived, 'Nothing archived', false));
  return roots;
}

/** What the status bar says about the active file. */
export interface StatusSummary {
  count: number;
  worst: string | null;
  icon: string;
  text: string;
  tooltip: string;
}

/**
 * The memories that name the active file: how many, and the worst category's icon (a gotcha
 * outranks a decision, a preference, then context). Memories that only surfaced through git
 * co-change are in the view, not in this count.
 */
export function statusSummary(memories: ListedMemory[]): StatusSummary {
  const own = memories.filter((m) => m.direct !== false && m.status === 'active');
  const unique = [...new Map(own.map((m) => [`${m.scope}:${m.id}`, m])).values()];
  if (unique.length === 0) {
    return {
      count: 0,
      worst: null,
      icon: 'bookmark',
      text: '$(bookmark) 0',
      tooltip: 'Tether: no memories name this file. Click to open the Tether view.',
    };
  }
  const worst = [...unique].sort((a, b) => categoryIndex(a.category) - categoryIndex(b.category))[0].category;
  const icon = CATEGORY_ICONS[worst] ?? 'note';
  const counts = CATEGORY_ORDER.map((c) => [c, unique.filter((m) => m.category === c).length] as const)
    .filter(([, n]) => n > 0)
    .map(([c, n]) => `${n} ${c}`);
  const noun = unique.length === 1 ? 'memory names' : 'memories name';
  return {
    count: unique.length,
    worst,
    icon,
    text: `$(${icon}) ${unique.length}`,
    tooltip: `Tether: ${unique.length} ${noun} this file (${counts.join(', ')}). Click to open the Tether view.`,
  };
}

/** A memory card in Markdown for tooltips: summary, details, files, receipt and id. */
export function cardMarkdown(memory: ListedMemory): string {
  const escape = (text: string) => text.replace(/([\\`*_{}[\]()#+\-.!|<>])/g, '\\$1');
  const lines = [
    `**${escape(memory.category)}** · \`${memory.id}\`${memory.pinned ? ' · pinned' : ''}`,
    '',
    escape(memory.summary),
  ];
  if (memory.details) {
    lines.push('', escape(memory.details));
  }
  lines.push('', `files: ${memory.files.map(escape).join(', ') || '—'}`);
  if (memory.receipt) {
    lines.push('', `why: ${escape(memory.receipt)}`);
  }
  if (memory.status !== 'active') {
    lines.push('', `status: ${escape(memory.status)}`);
  }
  return lines.join('\n');
}

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
  /** The key of the store it is in (`stores` of `tether.list`), when the server says. */
  store?: string;
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

/**
 * Memories the view asks each server for, per status: a store of a few thousand lists whole,
 * while a runaway one (an import gone wrong) cannot stall the view. The server's own default
 * (`LIST_LIMIT` in lsp_server/listing.py) is the same.
 */
export const VIEW_LIMIT = 500;

/**
 * The `tether.list` arguments of the view's two lists. Each status is asked for apart, under
 * its own limit: asking for `all` (as the view once did) let superseded and deleted memories,
 * which the view never shows, take places under the limit.
 */
export const VIEW_LISTS = {
  active: { status: 'active', limit: VIEW_LIMIT },
  archived: { status: 'archived', limit: VIEW_LIMIT },
  pinned: { status: 'active', pinned: true, limit: VIEW_LIMIT },
} as const;

/** What one `tether.list` call gave: the memories, and how many it left out. */
export interface ListPage {
  memories: ListedMemory[];
  /** Memories past the limit (0: the list is whole). */
  more: number;
  /** False when the server did not say its total and the page is full: `more` is a guess. */
  exact: boolean;
  /** How many there were before the limit, per scope (`project`, `global`), when the server says. */
  totals?: Readonly<Record<string, number>>;
  /**
   * How many there were before the limit, per store key, when the server says (and every
   * memory of the page names its store). The same store listed by two servers has one key.
   */
  stores?: Readonly<Record<string, number>>;
}

/** The scope every folder's server lists: one store, whichever server lists it. */
export const SHARED_SCOPE = 'global';

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n);

/**
 * Each store's total by key, from a `tether.list` answer's `stores` (`[{key, scope, path,
 * total}]`); undefined when it is missing or malformed, or a memory does not name one of them,
 * so the shown memories could not be taken off their own store's total.
 */
function storeTotals(stores: unknown, memories: readonly ListedMemory[]): Record<string, number> | undefined {
  if (!Array.isArray(stores)) {
    return undefined;
  }
  const totals: Record<string, number> = {};
  for (const entry of stores as unknown[]) {
    const { key, total } = (entry && typeof entry === 'object' ? entry : {}) as {
      key?: unknown;
      total?: unknown;
    };
    if (typeof key !== 'string' || !isCount(total)) {
      return undefined;
    }
    totals[key] = Math.max(totals[key] ?? 0, total);
  }
  const named = memories.every((m) => typeof m.store === 'string' && Object.hasOwn(totals, m.store));
  return named ? totals : undefined;
}

/**
 * A `tether.list` result read defensively. `total` says how many there were before the limit
 * cut them; a server that does not send it, and filled the page, may have left some out.
 */
export function listPage(result: unknown, limit: number): ListPage {
  const body =
    result && typeof result === 'object'
      ? (result as { memories?: unknown; total?: unknown; totals?: unknown; stores?: unknown })
      : {};
  const memories = Array.isArray(body.memories) ? (body.memories as ListedMemory[]) : [];
  if (typeof body.total === 'number' && Number.isFinite(body.total)) {
    const page: ListPage = { memories, more: Math.max(0, body.total - memories.length), exact: true };
    const totals = body.totals;
    if (
      totals &&
      typeof totals === 'object' &&
      !Array.isArray(totals) &&
      Object.values(totals).every(isCount)
    ) {
      page.totals = totals as Record<string, number>;
    }
    const stores = storeTotals(body.stores, memories);
    if (stores) {
      page.stores = stores;
    }
    return page;
  }
  const full = memories.length >= limit;
  return { memories, more: full ? 1 : 0, exact: !full };
}

/** One folder's memories for the view, and what its active, archived and pinned lists left out. */
export interface FolderLists {
  memories: Tagged[];
  /** The active page, with the pinned memories asked for apart among its memories. */
  active: ListPage;
  archived: ListPage;
  /** The pinned ones: their own page when asked for, else those of the whole active page. */
  pinned: ListPage;
}

function countBy(
  memories: readonly ListedMemory[],
  key: (m: ListedMemory) => string,
): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const memory of memories) {
    totals[key(memory)] = (totals[key(memory)] ?? 0) + 1;
  }
  return totals;
}

/**
 * A folder's active and archived pages as one list. `pinned`, asked for apart when the active
 * page was cut, keeps the Pinned section whole: those it adds are shown, so no longer counted
 * as left out.
 */
export function mergePages(
  folder: string,
  active: ListPage,
  archived: ListPage,
  pinned?: ListPage,
): FolderLists {
  const shown = new Set(active.memories.map((m) => `${m.scope}:${m.id}`));
  const extra = (pinned?.memories ?? []).filter((m) => !shown.has(`${m.scope}:${m.id}`));
  const memories = [...active.memories, ...extra, ...archived.memories].map((memory) => ({ folder, memory }));
  const pinnedShown = active.memories.filter((m) => m.pinned);
  const pinnedWhole: ListPage = {
    memories: pinnedShown,
    more: 0,
    exact: true,
    totals: countBy(pinnedShown, (m) => m.scope),
  };
  if (active.stores) {
    pinnedWhole.stores = countBy(pinnedShown, (m) => m.store!);
  }
  return {
    memories,
    active: {
      ...active,
      memories: [...active.memories, ...extra],
      more: Math.max(0, active.more - extra.length),
    },
    archived,
    // not asked for apart: the active page was whole, and so is this
    pinned: pinned ?? pinnedWhole,
  };
}

/** Memories left out of one section, added up over the servers. */
export interface Omitted {
  more: number;
  exact: boolean;
}

/**
 * Adds up what the pages of several servers (one per folder) left out. Two servers can list
 * one store: every server lists the global store, and two folders of one repository list its
 * project store. When every server says its totals per store, each store is counted once (the
 * most any server found for it), less its memories shown by any server. A server that says its
 * totals per scope only (an older one) has the global store counted once the same way, and
 * each folder's own scopes added up as they are.
 */
export function omitted(pages: readonly ListPage[]): Omitted {
  const exact = pages.every((p) => p.exact);
  if (pages.every((p) => p.stores)) {
    const most = new Map<string, number>();
    const shown = new Map<string, Set<string>>();
    for (const page of pages) {
      for (const [key, total] of Object.entries(page.stores!)) {
        most.set(key, Math.max(most.get(key) ?? 0, total));
      }
      for (const memory of page.memories) {
        const ids = shown.get(memory.store!) ?? new Set<string>();
        shown.set(memory.store!, ids.add(memory.id));
      }
    }
    let more = 0;
    for (const [key, total] of most) {
      more += Math.max(0, total - (shown.get(key)?.size ?? 0));
    }
    return { more, exact };
  }
  if (!pages.every((p) => p.totals)) {
    return { more: pages.reduce((sum, p) => sum + p.more, 0), exact };
  }
  let more = 0;
  let shared = 0;
  const sharedShown = new Set<string>();
  for (const page of pages) {
    for (const [scope, total] of Object.entries(page.totals!)) {
      if (scope === SHARED_SCOPE) {
        shared = Math.max(shared, total);
      } else {
        more += total - page.memories.filter((m) => m.scope === scope).length;
      }
    }
    page.memories.filter((m) => m.scope === SHARED_SCOPE).forEach((m) => sharedShown.add(m.id));
  }
  return { more: Math.max(0, more) + Math.max(0, shared - sharedShown.size), exact };
}

/** What the view is built from. */
export interface ViewInput {
  /** The active editor's file, when it is a file some server covers. */
  activeFile?: { name: string; memories: Tagged[] };
  active: Tagged[];
  pinned: Tagged[];
  archived: Tagged[];
  /** Active memories the servers' lists left out (the limit), if any. */
  activeOmitted?: Omitted;
  /** Pinned memories the servers' pinned lists left out, if any. */
  pinnedOmitted?: Omitted;
  /** Archived memories the servers' lists left out, if any. */
  archivedOmitted?: Omitted;
}

/** The last row of a section whose list was cut: how many more, and where to see them. */
export function omittedNode(
  key: string,
  left: Omitted | undefined,
  command: string,
): MessageNode | undefined {
  if (!left || left.more <= 0) {
    return undefined;
  }
  const count = left.exact ? `${left.more} more` : 'more';
  return {
    kind: 'message',
    key: `${key}/more`,
    label: `… ${count} not listed: run \`${command}\` in a terminal`,
  };
}

function countOf(shown: number, left: Omitted | undefined): string {
  if (!left || left.more <= 0) {
    return String(shown);
  }
  return left.exact ? `${shown} of ${shown + left.more}` : `${shown}+`;
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
  const pinnedMore = omittedNode('pinned', input.pinnedOmitted, 'tether list');
  const pinnedGroup = group(
    'pinned',
    'Pinned',
    'pinned',
    [...pinned, ...(pinnedMore ? [pinnedMore] : [])],
    'Nothing pinned',
  );
  pinnedGroup.description = countOf(pinned.length, input.pinnedOmitted);
  roots.push(pinnedGroup);
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
  const activeMore = omittedNode('all', input.activeOmitted, 'tether list');
  const all = group(
    'all',
    'All memories',
    'library',
    [...byCategory, ...(activeMore ? [activeMore] : [])],
    'No memories yet',
  );
  all.description = countOf(active.length, input.activeOmitted);
  roots.push(all);
  const archived: TreeNode[] = dedupe(input.archived).map((m) => memoryNode('archived', m, false));
  const archivedMore = omittedNode('archived', input.archivedOmitted, 'tether list --status archived');
  const archivedGroup = group(
    'archived',
    'Archived',
    'archive',
    [...archived, ...(archivedMore ? [archivedMore] : [])],
    'Nothing archived',
    false,
  );
  archivedGroup.description = countOf(archived.length, input.archivedOmitted);
  roots.push(archivedGroup);
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

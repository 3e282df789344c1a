import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  buildTree,
  cardMarkdown,
  contextValue,
  dedupe,
  GroupNode,
  ListedMemory,
  listPage,
  MemoryNode,
  mergePages,
  omitted,
  statusSummary,
  Tagged,
  VIEW_LIMIT,
  VIEW_LISTS,
} from '../src/memoryModel';

function memory(id: string, overrides: Partial<ListedMemory> = {}): ListedMemory {
  return {
    id,
    summary: `summary ${id}`,
    details: '',
    category: 'gotcha',
    pinned: false,
    status: 'active',
    files: ['src/a.py'],
    anchor: null,
    created: '2026-11-30T12:00:00+00:00',
    scope: 'project',
    receipt: null,
    ...overrides,
  };
}

const tag = (m: ListedMemory, folder = 'file:///r'): Tagged => ({ folder, memory: m });
const labels = (nodes: readonly unknown[]) => (nodes as Array<{ label: string }>).map((n) => n.label);

test('the tree: this file, pinned, all by category (worst first), archived', () => {
  const gotcha = memory('11111111', { receipt: 'via file', direct: true });
  const pref = memory('22222222', { category: 'pref', pinned: true });
  const decision = memory('33333333', { category: 'decision' });
  const old = memory('44444444', { status: 'archived' });
  const roots = buildTree({
    activeFile: { name: 'a.py', memories: [tag(gotcha)] },
    active: [tag(pref), tag(decision), tag(gotcha)],
    pinned: [tag(pref)],
    archived: [tag(old)],
  }) as GroupNode[];
  assert.deepEqual(labels(roots), ['This file: a.py', 'Pinned', 'All memories', 'Archived']);
  const [file, pinned, all, archived] = roots;
  const row = file.children[0] as MemoryNode;
  assert.equal(row.label, 'summary 11111111');
  assert.equal(row.description, 'via file · 11111111');
  assert.equal(row.icon, 'warning');
  assert.deepEqual(labels(pinned.children), ['summary 22222222']);
  assert.equal((pinned.children[0] as MemoryNode).description, 'pref · pinned · 22222222');
  assert.deepEqual(labels(all.children), ['Gotchas', 'Decisions', 'Preferences']);
  assert.equal(all.description, '3');
  assert.equal((archived.children[0] as MemoryNode).contextValue, 'memory:archived:unpinned');
  assert.equal(archived.expanded, false);
});

test('empty sections say so; no active file means no file section', () => {
  const roots = buildTree({ active: [], pinned: [], archived: [] }) as GroupNode[];
  assert.deepEqual(labels(roots), ['Pinned', 'All memories', 'Archived']);
  assert.deepEqual(labels(roots[0].children), ['Nothing pinned']);
  assert.equal(roots[0].description, '0');
});

test('a memory listed by two folders (a shared store) appears once; keys are unique', () => {
  const shared = memory('55555555', { scope: 'global' });
  assert.equal(dedupe([tag(shared, 'file:///a'), tag(shared, 'file:///b')]).length, 1);
  const roots = buildTree({ active: [tag(memory('1')), tag(memory('2'))], pinned: [], archived: [] });
  const keys: string[] = [];
  const walk = (nodes: readonly { key: string; kind: string; children?: unknown[] }[]) => {
    for (const n of nodes) {
      keys.push(n.key);
      if (n.children) walk(n.children as never);
    }
  };
  walk(roots as never);
  assert.equal(new Set(keys).size, keys.length);
});

test('menus match on status and pin', () => {
  assert.equal(contextValue(memory('1', { pinned: true })), 'memory:active:pinned');
  assert.equal(contextValue(memory('1', { status: 'superseded' })), 'memory:superseded:unpinned');
});

test('the status bar counts memories naming the file, with the worst category icon', () => {
  const summary = statusSummary([
    memory('1', { category: 'pref', direct: true }),
    memory('2', { category: 'gotcha', direct: true }),
    memory('3', { category: 'gotcha', direct: false, receipt: 'via co-change with b.py' }),
  ]);
  assert.equal(summary.count, 2);
  assert.equal(summary.worst, 'gotcha');
  assert.equal(summary.text, '$(warning) 2');
  assert.match(summary.tooltip, /2 memories name this file \(1 gotcha, 1 pref\)/);
  const none = statusSummary([]);
  assert.equal(none.count, 0);
  assert.equal(none.text, '$(bookmark) 0');
  assert.equal(statusSummary([memory('9', { category: 'context', direct: true })]).text, '$(info) 1');
});

test('the card escapes Markdown in memory text', () => {
  const card = cardMarkdown(
    memory('1', { summary: 'use *safeRename* [always]', details: 'a_b', receipt: 'via file' }),
  );
  assert.match(card, /use \\\*safeRename\\\* \\\[always\\\]/);
  assert.match(card, /a\\_b/);
  assert.match(card, /why: via file/);
});

test('the view asks for active and archived memories apart, never for all of them', () => {
  // superseded and deleted memories are never shown: they must not take places under the limit
  assert.deepEqual(VIEW_LISTS.active, { status: 'active', limit: VIEW_LIMIT });
  assert.deepEqual(VIEW_LISTS.archived, { status: 'archived', limit: VIEW_LIMIT });
  assert.deepEqual(VIEW_LISTS.pinned, { status: 'active', pinned: true, limit: VIEW_LIMIT });
  assert.equal(VIEW_LIMIT, 500);
});

test('a list page says how many the limit left out', () => {
  const two = [memory('11111111'), memory('22222222')];
  assert.deepEqual(listPage({ memories: two, total: 7 }, 2), { memories: two, more: 5, exact: true });
  assert.deepEqual(listPage({ memories: two, total: 2 }, 2), { memories: two, more: 0, exact: true });
  // a server that does not say its total: a full page may have been cut, a short one was not
  assert.deepEqual(listPage({ memories: two }, 2), { memories: two, more: 1, exact: false });
  assert.deepEqual(listPage({ memories: two }, 3), { memories: two, more: 0, exact: true });
  assert.deepEqual(listPage(null, 2), { memories: [], more: 0, exact: true });
  assert.deepEqual(listPage({ memories: 'x', total: 'y' }, 2), { memories: [], more: 0, exact: true });
  assert.deepEqual(
    omitted([
      { memories: [], more: 3, exact: true },
      { memories: [], more: 4, exact: true },
    ]),
    { more: 7, exact: true },
  );
  assert.equal(omitted([{ memories: [], more: 1, exact: false }]).exact, false);
});

test('a cut active list still shows every pinned memory, and counts only what is not shown', () => {
  const shown = memory('11111111');
  const pinnedPast = memory('99999999', { pinned: true });
  const old = memory('44444444', { status: 'archived' });
  const merged = mergePages(
    'file:///r',
    { memories: [shown], more: 10, exact: true },
    { memories: [old], more: 0, exact: true },
    { memories: [pinnedPast, { ...shown, pinned: true }], more: 0, exact: true },
  );
  assert.deepEqual(
    merged.memories.map((t) => t.memory.id),
    ['11111111', '99999999', '44444444'],
  );
  assert.equal(merged.active.more, 9);
  assert.ok(merged.memories.every((t) => t.folder === 'file:///r'));
});

test('a cut list ends with a row saying how many more and where to see them', () => {
  const active = Array.from({ length: 3 }, (_, i) => tag(memory(`a000000${i}`)));
  const roots = buildTree({
    active,
    pinned: [],
    archived: [tag(memory('b0000000', { status: 'archived' }))],
    activeOmitted: { more: 12, exact: true },
    archivedOmitted: { more: 1, exact: false },
  }) as GroupNode[];
  const all = roots.find((r) => r.key === 'all')!;
  assert.equal(all.description, '3 of 15');
  const last = all.children[all.children.length - 1];
  assert.deepEqual(last, {
    kind: 'message',
    key: 'all/more',
    label: '… 12 more not listed: run `tether list` in a terminal',
  });
  const archived = roots.find((r) => r.key === 'archived')!;
  assert.equal(archived.description, '1+');
  assert.equal(
    labels(archived.children).at(-1),
    '… more not listed: run `tether list --status archived` in a terminal',
  );

  // a whole list: no such row, the plain count
  const whole = buildTree({
    active,
    pinned: [],
    archived: [],
    activeOmitted: { more: 0, exact: true },
  }) as GroupNode[];
  const wholeAll = whole.find((r) => r.key === 'all')!;
  assert.equal(wholeAll.description, '3');
  assert.ok(wholeAll.children.every((c) => c.kind === 'group'));
});

test('a multi-root window counts the global store once in what the lists left out', () => {
  const many = (prefix: string, n: number, scope = 'project') =>
    Array.from({ length: n }, (_, i) => memory(`${prefix}${i}`, { scope }));
  const globals = many('g', 30, 'global');
  // folder A: 600 of its own and the 30 global ones, cut at 500 (480 own, 20 global shown)
  const a = listPage(
    {
      memories: [...many('a', 480), ...globals.slice(0, 20)],
      total: 630,
      totals: { project: 600, global: 30 },
    },
    500,
  );
  assert.deepEqual(a.totals, { project: 600, global: 30 });
  // folder B: 10 of its own, and every global one: not cut
  const b = listPage(
    { memories: [...many('b', 10), ...globals], total: 40, totals: { project: 10, global: 30 } },
    500,
  );
  assert.deepEqual(omitted([a, b]), { more: 120, exact: true });
  // both cut in the global store: the ones neither shows, once
  const c = listPage(
    {
      memories: [...many('c', 475), ...globals.slice(0, 25)],
      total: 630,
      totals: { project: 600, global: 30 },
    },
    500,
  );
  assert.deepEqual(omitted([a, c]), { more: 120 + 125 + 5, exact: true });
  // a server that does not split its total: added up as before
  assert.deepEqual(omitted([a, { memories: [], more: 4, exact: true }]), { more: 134, exact: true });
  assert.equal(listPage({ memories: [], total: 0, totals: { project: 'x' } }, 2).totals, undefined);
});

test('a cut pinned list is counted and says so, like the others', () => {
  const pinnedOne = memory('p0000000', { pinned: true });
  const whole = mergePages(
    'file:///r',
    { memories: [pinnedOne, memory('11111111')], more: 0, exact: true, totals: { project: 2 } },
    { memories: [], more: 0, exact: true, totals: {} },
  );
  // not asked for apart: the active page was whole, so are its pinned ones
  assert.deepEqual(whole.pinned, { memories: [pinnedOne], more: 0, exact: true, totals: { project: 1 } });
  const cut = mergePages(
    'file:///r',
    { memories: [memory('11111111')], more: 700, exact: true, totals: { project: 701 } },
    { memories: [], more: 0, exact: true, totals: {} },
    { memories: [pinnedOne], more: 600, exact: true, totals: { project: 601 } },
  );
  const left = omitted([cut.pinned]);
  assert.deepEqual(left, { more: 600, exact: true });
  const roots = buildTree({
    active: [tag(pinnedOne)],
    pinned: [tag(pinnedOne)],
    archived: [],
    pinnedOmitted: left,
  }) as GroupNode[];
  const pinned = roots.find((r) => r.key === 'pinned')!;
  assert.equal(pinned.description, '1 of 601');
  assert.equal(labels(pinned.children).at(-1), '… 600 more not listed: run `tether list` in a terminal');
});

/** A `tether.list` answer of the memories given, with its totals per scope and per store. */
function answer(memories: ListedMemory[], stores: Array<{ key: string; scope: string; total: number }>) {
  const totals: Record<string, number> = {};
  stores.forEach((s) => (totals[s.scope] = (totals[s.scope] ?? 0) + s.total));
  const total = stores.reduce((sum, s) => sum + s.total, 0);
  return { memories, total, totals, stores: stores.map((s) => ({ ...s, path: `/${s.key}` })) };
}

const inStore = (prefix: string, n: number, store: string, scope = 'project', from = 0) =>
  Array.from({ length: n }, (_, i) => memory(`${prefix}${from + i}`, { scope, store }));

test('two folders of one repository count its project store once', () => {
  // r/app and r/lib open, r not: both servers list r's 600 memories and show the same 500
  const shared = { key: 'r', scope: 'project', total: 600 };
  const app = listPage(answer(inStore('m', 500, 'r'), [shared]), 500);
  const lib = listPage(answer(inStore('m', 500, 'r'), [shared]), 500);
  assert.deepEqual(app.stores, { r: 600 });
  assert.deepEqual(omitted([app, lib]), { more: 100, exact: true });
  // what either shows is shown: together they list all 600
  const later = listPage(answer(inStore('m', 500, 'r', 'project', 100), [shared]), 500);
  assert.deepEqual(omitted([app, later]), { more: 0, exact: true });
  // the global store beside it, counted once too
  const global = { key: 'g', scope: 'global', total: 30 };
  const a = listPage(
    answer([...inStore('m', 490, 'r'), ...inStore('g', 10, 'g', 'global')], [shared, global]),
    500,
  );
  const b = listPage(
    answer([...inStore('m', 480, 'r'), ...inStore('g', 20, 'g', 'global')], [shared, global]),
    500,
  );
  assert.deepEqual(omitted([a, b]), { more: 110 + 10, exact: true });
  // the Pinned section of a whole active page counts per store the same way
  const pinned = memory('p0', { pinned: true, store: 'r' });
  const whole = mergePages('file:///r/app', listPage(answer([pinned], [{ ...shared, total: 1 }]), 500), {
    memories: [],
    more: 0,
    exact: true,
  });
  assert.deepEqual(whole.pinned.stores, { r: 1 });
  assert.deepEqual(omitted([whole.pinned, whole.pinned]), { more: 0, exact: true });
});

test('different project stores are each counted, one two servers list once', () => {
  // folder r holds a repository nested in it (r/vendor/billing), which is also a folder
  const outer = { key: 'r', scope: 'project', total: 700 };
  const nested = { key: 'b', scope: 'project', total: 40 };
  const both = listPage(answer([...inStore('o', 480, 'r'), ...inStore('n', 20, 'b')], [outer, nested]), 500);
  const billing = listPage(answer(inStore('n', 30, 'b'), [nested]), 500);
  assert.deepEqual(both.stores, { r: 700, b: 40 });
  assert.deepEqual(omitted([both, billing]), { more: 220 + 10, exact: true });
  // two stores with the same memory id are two memories
  const x = listPage(answer(inStore('m', 5, 'x'), [{ key: 'x', scope: 'project', total: 6 }]), 5);
  const y = listPage(answer(inStore('m', 5, 'y'), [{ key: 'y', scope: 'project', total: 9 }]), 5);
  assert.deepEqual(omitted([x, y]), { more: 1 + 4, exact: true });
});

test('a server that does not name its stores is counted by scope, as before', () => {
  const key = { key: 'r', scope: 'project', total: 600 };
  const newer = listPage(answer(inStore('m', 500, 'r'), [key]), 500);
  assert.deepEqual(newer.stores, { r: 600 });
  // an older server: totals only
  const older = listPage({ memories: inStore('m', 500, 'r'), total: 600, totals: { project: 600 } }, 500);
  assert.equal(older.stores, undefined);
  assert.deepEqual(omitted([newer, older]), { more: 200, exact: true });
  // a memory that names no store of the answer, or a malformed entry: the stores are not read
  const stray = answer([memory('m0', { store: 'elsewhere' })], [key]);
  assert.equal(listPage(stray, 500).stores, undefined);
  assert.deepEqual(listPage(stray, 500).totals, { project: 600 });
  assert.equal(
    listPage({ ...answer([], [key]), stores: [{ key: 'r', total: 'many' }] }, 500).stores,
    undefined,
  );
  assert.equal(listPage({ ...answer([], [key]), stores: { r: 600 } }, 500).stores, undefined);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  buildTree,
  cardMarkdown,
  contextValue,
  dedupe,
  GroupNode,
  ListedMemory,
  MemoryNode,
  statusSummary,
  Tagged,
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

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  memoryArgs,
  parseRouted,
  rememberArgs,
  resultMessage,
  routeCommand,
  RUN_COMMAND,
  summaryProblem,
  supersedeArgs,
} from '../src/commandArgs';

test('memory commands send one camelCase object', () => {
  assert.deepEqual(memoryArgs('ad63a294'), { memoryId: 'ad63a294' });
  assert.deepEqual(memoryArgs('ad63a294', { display: true }), { display: true, memoryId: 'ad63a294' });
});

test('remember sends the summary trimmed, files once, details only when written', () => {
  assert.deepEqual(
    rememberArgs({
      uri: 'file:///r/a.py',
      category: 'gotcha',
      summary: ' save via safeRename ',
      files: ['/r/a.py', '/r/a.py', '/r/b.py'],
      details: '  ',
    }),
    {
      fromHint: true,
      uri: 'file:///r/a.py',
      category: 'gotcha',
      summary: 'save via safeRename',
      files: ['/r/a.py', '/r/b.py'],
    },
  );
  assert.deepEqual(rememberArgs({ category: 'pref', summary: 'x', files: [], details: 'why\n' }), {
    fromHint: true,
    category: 'pref',
    summary: 'x',
    files: [],
    details: 'why',
  });
});

test('supersede keeps details only when given', () => {
  assert.deepEqual(supersedeArgs('abcd1234', ' new '), { memoryId: 'abcd1234', summary: 'new' });
  assert.deepEqual(supersedeArgs('abcd1234', 'new', 'old details'), {
    memoryId: 'abcd1234',
    summary: 'new',
    details: 'old details',
  });
});

test('a summary is one non-empty line', () => {
  assert.match(summaryProblem('   ') ?? '', /one-line summary/);
  assert.match(summaryProblem('a\nb') ?? '', /one line/);
  assert.equal(summaryProblem('fine'), null);
});

test('server commands from quick fixes are routed to their folder, others left alone', () => {
  const pin = {
    title: 'Tether: pin gotcha x',
    command: 'tether.pin',
    arguments: [{ memoryId: 'x', fromHint: true }],
  };
  const routed = routeCommand('file:///r', pin);
  assert.equal(routed.command, RUN_COMMAND);
  assert.equal(routed.title, pin.title);
  assert.deepEqual(parseRouted(routed.arguments ?? []), {
    folder: 'file:///r',
    command: 'tether.pin',
    arguments: [{ memoryId: 'x', fromHint: true }],
  });
  const other = { title: 'Fix import', command: 'python.sortImports' };
  assert.equal(routeCommand('file:///r', other), other);
});

test('malformed routed calls are refused with a reason', () => {
  assert.match(parseRouted(['file:///r', 'rm -rf']) as string, /expected a folder and a server command/);
  assert.match(parseRouted([]) as string, /expected/);
});

test('an unchanged result becomes a message', () => {
  assert.equal(
    resultMessage({ changed: false, message: 'memory x is already pinned' }),
    'memory x is already pinned',
  );
  assert.equal(resultMessage({ id: 'x', pinned: true }), null);
  assert.equal(resultMessage(null), null);
});

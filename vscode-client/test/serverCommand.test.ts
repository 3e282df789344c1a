import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  asksSelectedInterpreter,
  describe,
  expandPath,
  readServerSettings,
  serverCommandLine,
} from '../src/serverCommand';

const here = { workspaceFolder: '/work/shop', home: '/home/dana' };

test('the configured tether executable wins, with its arguments', () => {
  const line = serverCommandLine(
    { command: '/venv/bin/tether', args: ['lsp', '--log-level', 'INFO'], python: '/usr/bin/python3' },
    here,
    '/sel/python',
  );
  assert.deepEqual(line, {
    command: '/venv/bin/tether',
    args: ['lsp', '--log-level', 'INFO'],
    source: 'tether.server.command',
  });
});

test('a configured interpreter runs the recall module', () => {
  const line = serverCommandLine(
    { command: '', args: ['lsp'], python: '${workspaceFolder}/.venv/bin/python' },
    here,
    '/sel/python',
  );
  assert.deepEqual(line, {
    command: '/work/shop/.venv/bin/python',
    args: ['-P', '-m', 'recall', 'lsp'],
    source: 'tether.server.python',
  });
});

test('the Python extension interpreter comes next, then python3', () => {
  assert.deepEqual(serverCommandLine({ command: '', args: [], python: '' }, here, ' /sel/python '), {
    command: '/sel/python',
    args: ['-P', '-m', 'recall', 'lsp'],
    source: 'selected interpreter',
  });
  assert.deepEqual(serverCommandLine({ command: '  ', args: [], python: '' }, here), {
    command: 'python3',
    args: ['-P', '-m', 'recall', 'lsp'],
    source: 'default',
  });
});

test('the Python extension is asked only in a trusted workspace and with no server setting', () => {
  const none = { command: '', args: [], python: '' };
  assert.equal(asksSelectedInterpreter(none, true), true);
  // untrusted: the selected interpreter may be the repository's own .venv/bin/python
  assert.equal(asksSelectedInterpreter(none, false), false);
  assert.equal(asksSelectedInterpreter({ ...none, command: 'tether' }, true), false);
  assert.equal(asksSelectedInterpreter({ ...none, python: '/usr/bin/python3' }, true), false);
  assert.equal(asksSelectedInterpreter({ ...none, python: '  ' }, true), true);
});

test('paths expand ~, ${userHome} and ${workspaceFolder}', () => {
  assert.equal(expandPath('~/venvs/t/bin/tether', here), '/home/dana/venvs/t/bin/tether');
  assert.equal(expandPath('${userHome}/x', here), '/home/dana/x');
  assert.equal(expandPath('~dana/x', here), '~dana/x');
  assert.equal(expandPath('${workspaceFolder}/a/${workspaceFolder}', here), '/work/shop/a//work/shop');
});

test('settings of the wrong type are reported and not used', () => {
  const warnings: string[] = [];
  const settings = readServerSettings({ command: 42, args: 'lsp', python: '/p' }, (m) => warnings.push(m));
  assert.deepEqual(settings, { command: '', args: ['lsp'], python: '/p' });
  assert.deepEqual(warnings, [
    'tether.server.args should be a list of strings; using ["lsp"]',
    'tether.server.command should be a string; ignored',
  ]);
  assert.deepEqual(
    readServerSettings({}, () => assert.fail('no warning expected')),
    { command: '', args: ['lsp'], python: '' },
  );
});

test('the command line is described as it would be typed', () => {
  assert.equal(
    describe({ command: '/my venv/bin/tether', args: ['lsp'], source: 'default' }),
    '"/my venv/bin/tether" lsp',
  );
});

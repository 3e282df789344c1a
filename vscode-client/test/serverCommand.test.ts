import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import {
  asksSelectedInterpreter,
  describe,
  expandPath,
  findOnPath,
  isExecutableFile,
  looksBeyondSettings,
  readServerSettings,
  serverCommandLine,
} from '../src/serverCommand';

const here = { workspaceFolder: '/work/shop', home: '/home/dana' };

test('the configured tether executable wins, with its arguments', () => {
  const line = serverCommandLine(
    { command: '/venv/bin/tether', args: ['lsp', '--log-level', 'INFO'], python: '/usr/bin/python3' },
    here,
    { onPath: '/home/dana/.local/bin/tether', selectedPython: '/sel/python' },
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
    { onPath: '/home/dana/.local/bin/tether', selectedPython: '/sel/python' },
  );
  assert.deepEqual(line, {
    command: '/work/shop/.venv/bin/python',
    args: ['-P', '-m', 'recall', 'lsp'],
    source: 'tether.server.python',
  });
});

test('the Python extension interpreter comes next, then python3', () => {
  assert.deepEqual(
    serverCommandLine({ command: '', args: [], python: '' }, here, { selectedPython: ' /sel/python ' }),
    {
      command: '/sel/python',
      args: ['-P', '-m', 'recall', 'lsp'],
      source: 'selected interpreter',
    },
  );
  assert.deepEqual(serverCommandLine({ command: '  ', args: [], python: '' }, here), {
    command: 'python3',
    args: ['-P', '-m', 'recall', 'lsp'],
    source: 'default',
  });
});

test('a tether on PATH comes after the settings and before the selected interpreter', () => {
  const none = { command: '', args: ['lsp', '--log-level', 'INFO'], python: '' };
  const found = { onPath: '/home/dana/.local/bin/tether', selectedPython: '/work/shop/.venv/bin/python' };
  // a pipx install: the tether script itself, with the arguments as given (no -m recall)
  assert.deepEqual(serverCommandLine(none, here, found), {
    command: '/home/dana/.local/bin/tether',
    args: ['lsp', '--log-level', 'INFO'],
    source: 'tether on PATH',
  });
  assert.equal(
    serverCommandLine({ ...none, python: '/usr/bin/python3' }, here, found).source,
    'tether.server.python',
  );
  assert.equal(
    serverCommandLine({ ...none, command: '/v/bin/tether' }, here, found).source,
    'tether.server.command',
  );
  assert.equal(looksBeyondSettings(none), true);
  assert.equal(looksBeyondSettings({ ...none, command: 'tether' }), false);
  assert.equal(
    describe(serverCommandLine(none, here, found)),
    '/home/dana/.local/bin/tether lsp --log-level INFO',
  );
});

test('PATH is searched in order, absolute entries only, for an executable file', (t) => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'tether-path-'));
  t.after(() => fs.rmSync(base, { recursive: true, force: true }));
  const dir = (name: string) => {
    const made = path.join(base, name);
    fs.mkdirSync(made, { recursive: true });
    return made;
  };
  const plain = dir('plain'); // a tether that is not executable
  fs.writeFileSync(path.join(plain, 'tether'), '#!/bin/sh\n', { mode: 0o644 });
  const folder = dir('folder'); // a directory called tether
  fs.mkdirSync(path.join(folder, 'tether'));
  const pipx = dir('pipx');
  fs.writeFileSync(path.join(pipx, 'tether'), '#!/bin/sh\n', { mode: 0o755 });
  const later = dir('later');
  fs.writeFileSync(path.join(later, 'tether'), '#!/bin/sh\n', { mode: 0o755 });
  const env = { PATH: ['', plain, folder, pipx, later].join(':') };

  // no x bit at all: not executable, even for root
  assert.equal(isExecutableFile(path.join(plain, 'tether'), 'linux'), false);
  assert.equal(isExecutableFile(path.join(folder, 'tether'), 'linux'), false);
  const found = findOnPath('tether', { PATH: [folder, pipx, later].join(':') }, 'linux');
  assert.equal(found, path.join(pipx, 'tether'));
  assert.equal(findOnPath('tether', { PATH: [later, pipx].join(':') }, 'linux'), path.join(later, 'tether'));
  assert.equal(findOnPath('tether', { PATH: [folder].join(':') }, 'linux'), undefined);
  assert.equal(findOnPath('tether', {}, 'linux'), undefined);
  assert.equal(findOnPath('tether', env, 'linux'), path.join(pipx, 'tether'));

  // an empty or relative entry is the working directory (the workspace folder): never searched
  const cwd = process.cwd();
  process.chdir(base);
  try {
    assert.equal(findOnPath('tether', { PATH: ':pipx:./later:later' }, 'linux'), undefined);
  } finally {
    process.chdir(cwd);
  }
});

test('on Windows: Path in any case, quoted entries, PATHEXT launchers that spawn without a shell', () => {
  const files = new Set([
    'C:\\Users\\dana\\.local\\bin\\tether.exe',
    'C:\\tools\\tether.cmd',
    'C:\\Program Files\\Tether\\tether.com',
  ]);
  const exists = (file: string) => files.has(file);
  assert.equal(
    findOnPath(
      'tether',
      { Path: 'C:\\tools;"C:\\Program Files\\Tether";C:\\Users\\dana\\.local\\bin' },
      'win32',
      exists,
    ),
    'C:\\Program Files\\Tether\\tether.com',
  );
  assert.equal(
    findOnPath(
      'tether',
      { PATH: 'C:\\tools;C:\\Users\\dana\\.local\\bin', PATHEXT: '.CMD;.EXE' },
      'win32',
      exists,
    ),
    'C:\\Users\\dana\\.local\\bin\\tether.exe',
  );
  assert.equal(findOnPath('tether', { PATH: 'C:\\tools', PATHEXT: '.CMD;.BAT' }, 'win32', exists), undefined);
  assert.equal(
    findOnPath('tether', { PATH: 'tools;.' }, 'win32', () => true),
    undefined,
  ); // relative
  assert.equal(
    findOnPath('tether.exe', { PATH: 'C:\\Users\\dana\\.local\\bin' }, 'win32', exists),
    'C:\\Users\\dana\\.local\\bin\\tether.exe',
  );
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

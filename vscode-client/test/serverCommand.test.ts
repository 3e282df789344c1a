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
  resolveCommandLine,
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

test('every bare command is made an absolute path from PATH, or refused naming the setting', () => {
  const files = new Set(['/usr/bin/python3', '/opt/t/bin/tether', '/usr/bin/python']);
  const exists = (file: string) => files.has(file);
  const env = { PATH: '/usr/bin:/opt/t/bin' };
  const resolve = (line: Parameters<typeof resolveCommandLine>[0], e: Record<string, string> = env) =>
    resolveCommandLine(line, e, 'linux', exists);
  const fallback = serverCommandLine({ command: '', args: [], python: '' }, here);
  assert.deepEqual(resolve(fallback), { line: { ...fallback, command: '/usr/bin/python3' } });
  const bare = serverCommandLine({ command: 'tether', args: [], python: '' }, here);
  assert.equal(resolve(bare).line?.command, '/opt/t/bin/tether');
  const python = serverCommandLine({ command: '', args: [], python: 'python' }, here);
  assert.equal(resolve(python).line?.command, '/usr/bin/python');
  // absolute paths are kept as they are, found or not (the start reports a missing one)
  const absolute = serverCommandLine({ command: '/nowhere/tether', args: [], python: '' }, here);
  assert.deepEqual(resolve(absolute), { line: absolute });

  // not found: refused, never left to the system to look up in the working directory
  assert.match(
    resolve(fallback, { PATH: ':.:bin' }).refused!,
    /^neither tether nor python3 was found on PATH; set tether\.server\.command/,
  );
  assert.match(
    resolve(bare, { PATH: '' }).refused!,
    /^tether\.server\.command \(tether\) was not found on PATH; set/,
  );
  const relative = serverCommandLine({ command: 'bin/tether', args: [], python: '' }, here);
  assert.match(
    resolve(relative).refused!,
    /^tether\.server\.command \(bin\/tether\) is a relative path; set/,
  );
  const selected = serverCommandLine({ command: '', args: [], python: '' }, here, { selectedPython: 'py3' });
  assert.match(resolve(selected).refused!, /^the interpreter selected in the Python extension \(py3\)/);
});

test('on Windows the fallback also tries python and py, and drive paths are not bare', () => {
  const fallback = serverCommandLine({ command: '', args: [], python: '' }, here);
  const files = new Set(['C:\\Windows\\py.exe']);
  const found = resolveCommandLine(fallback, { Path: 'C:\\Windows' }, 'win32', (f) => files.has(f));
  assert.equal(found.line?.command, 'C:\\Windows\\py.exe');
  assert.deepEqual(found.line?.args, ['-P', '-m', 'recall', 'lsp']);
  const none = resolveCommandLine(fallback, { Path: '.;tools' }, 'win32', () => true);
  assert.match(none.refused!, /neither tether nor python3, python, py was found on PATH/);
  const drive = serverCommandLine({ command: 'C:tether.exe', args: [], python: '' }, here);
  assert.match(resolveCommandLine(drive, {}, 'win32', () => true).refused!, /is a relative path/);
});

test('in an untrusted workspace, PATH entries inside a workspace folder are skipped', (t) => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'tether-trust-'));
  t.after(() => fs.rmSync(base, { recursive: true, force: true }));
  const repo = path.join(base, 'repo');
  const venv = path.join(repo, '.venv', 'bin');
  const user = path.join(base, 'user-bin');
  for (const dir of [venv, user]) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'tether'), '#!/bin/sh\n', { mode: 0o755 });
  }
  const linked = path.join(base, 'link-to-venv'); // the same folder, reached through a link
  fs.symlinkSync(venv, linked);
  const env = { PATH: [venv, linked, user].join(':') };
  assert.equal(findOnPath('tether', env, 'linux'), path.join(venv, 'tether'));
  assert.equal(findOnPath('tether', env, 'linux', undefined, [repo]), path.join(user, 'tether'));
  assert.equal(findOnPath('tether', { PATH: venv }, 'linux', undefined, [repo]), undefined);
  // a sibling whose name starts the same is not inside
  assert.equal(
    findOnPath('tether', { PATH: user }, 'linux', undefined, [path.join(base, 'user')]),
    path.join(user, 'tether'),
  );
  const fallback = serverCommandLine({ command: '', args: [], python: '' }, here);
  fs.writeFileSync(path.join(venv, 'python3'), '#!/bin/sh\n', { mode: 0o755 });
  assert.match(resolveCommandLine(fallback, { PATH: venv }, 'linux', undefined, [repo]).refused!, /python3/);
  assert.equal(
    resolveCommandLine(fallback, { PATH: venv }, 'linux').line?.command,
    path.join(venv, 'python3'),
  );
});

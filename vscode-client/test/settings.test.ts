import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  SERVER_KEYS,
  explicitSettings,
  explicitValue,
  needsRestart,
  programSetting,
  withWorkspaceTrust,
} from '../src/settings';

test('only settings someone set reach the server, the innermost level winning', () => {
  const levels: Record<string, object> = {
    maxPerFile: { globalValue: 5, workspaceFolderValue: 2 },
    hintQuietTurns: { workspaceValue: 4 },
    indexOnStart: {}, // default only
  };
  assert.deepEqual(
    explicitSettings((key) => levels[key]),
    { maxPerFile: 2, hintQuietTurns: 4 },
  );
});

test('severity tables merge across levels', () => {
  const value = explicitValue({
    globalValue: { gotcha: 'error', pref: 'hint' },
    workspaceValue: { gotcha: 'warning' },
  });
  assert.deepEqual(value, { gotcha: 'warning', pref: 'hint' });
  assert.equal(explicitValue({ globalValue: { gotcha: 'error' }, workspaceValue: 'off' }), 'off');
});

test('the keys are the ones the server reads', () => {
  assert.deepEqual([...SERVER_KEYS].sort(), [
    'diagnosticCategories',
    'guardSeverity',
    'hintQuietTurns',
    'hintSessionBudget',
    'indexOnStart',
    'maxDocumentChars',
    'maxPerFile',
    'severity',
    'warmFiles',
    'watchWorkspace',
  ]);
});

test('only server settings need a restart', () => {
  assert.equal(
    needsRestart((s) => s === 'tether.server'),
    true,
  );
  assert.equal(
    needsRestart((s) => s === 'tether'),
    false,
  );
});

test('every key is one the server reads (recall/server_settings.py), and one package.json declares', () => {
  const root = path.join(__dirname, '..', '..', '..');
  const python = fs.readFileSync(path.join(root, 'recall', 'server_settings.py'), 'utf8');
  // Fields are declared `name: type = setting(default, parser, "alias", ...)`; keys are
  // compared folded (no underscores, lower case), as the server compares them.
  const fold = (name: string) => name.replace(/[_-]/g, '').toLowerCase();
  const fields = new Set<string>();
  const spellings: string[][] = []; // each field's name and aliases
  for (const m of python.matchAll(/^ {4}(\w+): [^=\n]+ = setting\(([\s\S]*?)\)\n/gm)) {
    const names = [m[1], ...[...m[2].matchAll(/"(\w+)"/g)].map((alias) => alias[1])].map(fold);
    names.forEach((name) => fields.add(name));
    spellings.push(names);
  }
  assert.ok(fields.size >= SERVER_KEYS.length, 'the server settings table was found');
  for (const key of SERVER_KEYS) {
    assert.ok(fields.has(key.toLowerCase()), `${key} is read by the server`);
  }
  // and the other way: every server setting is offered, but the two VS Code sets itself
  // (trustedWorkspace from workspace trust) or has no use for (clientSeverity, per client name)
  const offered = new Set(SERVER_KEYS.map(fold));
  for (const names of spellings) {
    if (names[0] === 'clientseverity' || names[0] === 'trustedworkspace') continue;
    assert.ok(
      names.some((name) => offered.has(name)),
      `${names[0]} is offered in package.json`,
    );
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'vscode-client', 'package.json'), 'utf8'));
  const declared = Object.keys(manifest.contributes.configuration.properties)
    .filter((k) => !k.startsWith('tether.server.') && !k.startsWith('tether.trace.'))
    .map((k) => k.slice('tether.'.length));
  assert.deepEqual(declared.sort(), [...SERVER_KEYS].sort());
});

test('an untrusted workspace tells the server; a trusted one adds nothing', () => {
  assert.deepEqual(withWorkspaceTrust({ maxPerFile: 2 }, false), { maxPerFile: 2, trustedWorkspace: false });
  assert.deepEqual(withWorkspaceTrust({ maxPerFile: 2 }, true), { maxPerFile: 2 });
});

test('in an untrusted workspace only the user settings choose the server program', () => {
  const inspected = { globalValue: '/home/me/.venv/bin/tether', workspaceValue: './evil.sh' };
  assert.equal(programSetting(inspected, true), './evil.sh');
  assert.equal(programSetting(inspected, false), '/home/me/.venv/bin/tether');
  assert.equal(programSetting({ workspaceFolderValue: './evil.sh' }, false), undefined);
});

test('the program settings and the limits a repository may only lower are restricted in untrusted workspaces', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
  assert.deepEqual(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations, [
    'tether.server.command',
    'tether.server.args',
    'tether.server.python',
    'tether.maxDocumentChars',
    'tether.warmFiles',
    'tether.maxPerFile',
    'tether.hintSessionBudget',
  ]);
});

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { fake } from './support/vscodeMock';
// after the stand-in for `vscode` is in place
import { FolderClients } from '../src/clients';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a server that exits at start is started once and reported once', async () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'tether-folder-'));
  const marker = path.join(folder, 'starts.log');
  fake.folder.uri = (fake.folder.uri.constructor as any).file(folder);
  // a program that starts, notes the start and exits: Tether not installed, say
  fake.settings = {
    'tether.server.command': process.execPath,
    'tether.server.args': [
      '-e',
      `require('fs').appendFileSync(${JSON.stringify(marker)}, 'x'); process.exit(1)`,
    ],
  };
  fake.messages.length = 0;
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  process.on('unhandledRejection', onRejection);
  const lines: string[] = [];
  const output: any = {
    append: () => {},
    appendLine: (s: string) => lines.push(s),
    show() {},
    dispose() {},
    clear() {},
    replace() {},
  };
  const clients = new FolderClients(output);
  try {
    await clients.sync();
    await tick(1500); // room for restarts a language client would make on its own
    assert.equal(fs.readFileSync(marker, 'utf8'), 'x', 'started once, never restarted');
    assert.equal(fake.messages.length, 1, fake.messages.join('\n'));
    assert.match(fake.messages[0], /did not start .*Set tether\.server\.command/);
    assert.deepEqual(rejections, []);
    assert.deepEqual(clients.folders(), []);
  } finally {
    await clients.stopAll();
    process.off('unhandledRejection', onRejection);
    fs.rmSync(folder, { recursive: true, force: true });
  }
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FolderServers } from '../src/folderServers';

const tick = (ms = 1) => new Promise((resolve) => setTimeout(resolve, ms));

/** Fake servers: how many run per folder, at most how many ran at once, and every start. */
function fakes(startDelay = 5, stopDelay = 5) {
  const running = new Map<string, number>();
  let most = 0;
  const started: string[] = [];
  let next = 0;
  const servers = new FolderServers<{ key: string; id: number; alive: boolean }>(
    async (key, register) => {
      await tick(startDelay); // asking the Python extension for its interpreter, say
      const client = { key, id: ++next, alive: true };
      register(client);
      running.set(key, (running.get(key) ?? 0) + 1);
      most = Math.max(most, running.get(key)!);
      started.push(key);
      await tick(startDelay); // the server starting
    },
    async (key, client) => {
      await tick(stopDelay);
      if (client.alive) {
        client.alive = false;
        running.set(key, running.get(key)! - 1);
      }
    },
  );
  return { servers, running, most: () => most, started };
}

test('two quick restarts and a sync leave one server per folder', async () => {
  const { servers, running, most } = fakes();
  await servers.sync(['file:///a', 'file:///b']);
  assert.deepEqual(Object.fromEntries(running), { 'file:///a': 1, 'file:///b': 1 });

  await Promise.all([
    servers.restart(['file:///a', 'file:///b']),
    servers.restart(['file:///a', 'file:///b']),
    servers.sync(['file:///a', 'file:///b']),
    servers.restart(['file:///a', 'file:///b']),
  ]);

  assert.deepEqual(Object.fromEntries(running), { 'file:///a': 1, 'file:///b': 1 });
  assert.equal(most(), 1, 'never two servers for one folder, even for a moment');
  assert.equal(servers.keys().length, 2);
  assert.ok(servers.get('file:///a')!.alive);
});

test('two syncs issued before either started anything start one server', async () => {
  const { servers, running, started } = fakes();
  await Promise.all([servers.sync(['file:///a']), servers.sync(['file:///a'])]);
  assert.deepEqual(started, ['file:///a']);
  assert.equal(running.get('file:///a'), 1);
});

test('a restart while the first start is still in flight stops that one first', async () => {
  const { servers, running, most } = fakes(20, 1);
  const first = servers.sync(['file:///a']);
  await tick(25); // registered, the server still starting
  await Promise.all([first, servers.restart(['file:///a'])]);
  assert.equal(running.get('file:///a'), 1);
  assert.equal(most(), 1);
});

test('a folder that went is stopped, and nothing starts after stopAll', async () => {
  const { servers, running } = fakes();
  await servers.sync(['file:///a', 'file:///b']);
  await servers.sync(['file:///a']);
  assert.deepEqual(Object.fromEntries(running), { 'file:///a': 1, 'file:///b': 0 });
  assert.deepEqual(servers.keys(), ['file:///a']);

  const late = servers.restart(['file:///a', 'file:///c']); // issued, then the window closes
  await servers.stopAll();
  await late;
  await servers.sync(['file:///a']);
  assert.deepEqual(servers.keys(), []);
  assert.equal(
    [...running.values()].reduce((a, b) => a + b, 0),
    0,
  );
});

test('a start that fails does not block the folder', async () => {
  let calls = 0;
  const servers = new FolderServers<string>(
    async (key, register) => {
      calls += 1;
      if (calls === 1) {
        throw new Error('no tether');
      }
      register(key);
    },
    async () => {},
  );
  await assert.rejects(servers.sync(['file:///a']), /no tether/);
  await servers.restart(['file:///a']);
  assert.deepEqual(servers.keys(), ['file:///a']);
});

test('a start that never ends is given up on after the limit, and the folder moves on', async () => {
  const killed: string[] = [];
  let calls = 0;
  const stopped: string[] = [];
  let lateRegister: (() => void) | undefined;
  const servers = new FolderServers<string>(
    (key, register) => {
      calls += 1;
      if (calls === 1) {
        register(`${key}#hung`);
        return new Promise<void>(() => {}); // a server that never answers initialize
      }
      if (calls === 2) {
        // stalled before its client existed (asking the Python extension, say)
        lateRegister = () => register(`${key}#late`);
        return new Promise<void>(() => {});
      }
      register(`${key}#${calls}`);
      return Promise.resolve();
    },
    async (_key, client) => {
      stopped.push(client);
    },
    (key, client) => {
      killed.push(`${key}:${client ?? 'none'}`);
    },
    20,
  );
  await servers.sync(['file:///a']);
  assert.deepEqual(killed, ['file:///a:file:///a#hung']);
  assert.deepEqual(servers.keys(), [], 'the hung client is no longer the folder’s');

  await servers.restart(['file:///a']); // not blocked behind the hung start
  assert.deepEqual(killed, ['file:///a:file:///a#hung', 'file:///a:none']);
  // the stalled start comes back after it was given up on: its client is refused
  assert.throws(() => lateRegister!(), /took longer than 20 ms/);
  assert.deepEqual(servers.keys(), []);

  await servers.restart(['file:///a']);
  assert.equal(servers.get('file:///a'), 'file:///a#3');
  await servers.stopAll();
  assert.deepEqual(stopped, ['file:///a#3']);
});

test('a crash restart and a Restart Server issued together leave one server', async () => {
  for (const crashFirst of [true, false]) {
    const { servers, running, most, started } = fakes();
    await servers.sync(['file:///a']);
    const crashed = servers.get('file:///a')!;
    const recovered = servers.recover('file:///a', crashed);
    const restarted = servers.restart(['file:///a']);
    await (crashFirst ? Promise.all([recovered, restarted]) : Promise.all([restarted, recovered]));
    assert.equal(running.get('file:///a'), 1);
    assert.equal(most(), 1, 'never two servers for one folder, even for a moment');
    assert.ok(servers.get('file:///a')!.alive);
    assert.notEqual(servers.get('file:///a'), crashed);
    assert.ok(started.length <= 3);
  }
});

test('a crash restart whose server was replaced or stopped meanwhile starts nothing', async () => {
  const { servers, running, started } = fakes();
  await servers.sync(['file:///a']);
  const crashed = servers.get('file:///a')!;
  await servers.restart(['file:///a']);
  await servers.recover('file:///a', crashed); // the restart already replaced it
  assert.equal(started.length, 2);
  const current = servers.get('file:///a')!;
  await servers.stopAll();
  await servers.recover('file:///a', current); // a crash reported while the window closes
  assert.equal(started.length, 2);
  assert.equal(running.get('file:///a'), 0);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CRASH_RESTARTS, CRASH_WINDOW_MS, CrashCount, onServerClosed } from '../src/serverFailures';

test('a server that never got running is not restarted, however often it closes', () => {
  const crashes = new CrashCount();
  for (let i = 0; i < 10; i++) {
    assert.equal(onServerClosed(false, false, crashes, i), 'quiet');
  }
  // nor one whose start was given up on (reported then)
  assert.equal(onServerClosed(true, true, crashes, 10), 'quiet');
  // and those closes were not counted as crashes
  assert.equal(onServerClosed(true, false, crashes, 11), 'restart');
});

test('a running server that crashes is restarted, until it crashed too often in the window', () => {
  const crashes = new CrashCount();
  for (let i = 0; i < CRASH_RESTARTS; i++) {
    assert.equal(onServerClosed(true, false, crashes, i * 1000), 'restart');
  }
  assert.equal(onServerClosed(true, false, crashes, CRASH_RESTARTS * 1000), 'give-up');
  // crashes older than the window no longer count
  assert.equal(onServerClosed(true, false, crashes, CRASH_WINDOW_MS + CRASH_RESTARTS * 1000), 'restart');
});

test('the crash limits are those of the language client: 4 restarts in 3 minutes', () => {
  assert.equal(CRASH_RESTARTS, 4);
  assert.equal(CRASH_WINDOW_MS, 180_000);
});

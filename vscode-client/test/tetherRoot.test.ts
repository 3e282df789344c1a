import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { tetherAbove } from '../src/tetherRoot';

const isDirectory = (p: string) => fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;

test('a folder opened inside a Tether repository finds the repository', () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'tether-root-'));
  try {
    const repo = path.join(base, 'r');
    fs.mkdirSync(path.join(repo, '.tether', 'memories'), { recursive: true });
    fs.mkdirSync(path.join(repo, 'app', 'src'), { recursive: true });
    assert.equal(tetherAbove(path.join(repo, 'app', 'src'), isDirectory), repo);
    assert.equal(tetherAbove(repo, isDirectory), repo);
    const other = path.join(base, 'other');
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(other, '.tether'), 'a file, not a store');
    // a file named .tether is no store: the search goes on above, as it does from `base`
    assert.equal(tetherAbove(other, isDirectory), tetherAbove(base, isDirectory));
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});

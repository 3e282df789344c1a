import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EVERY_FILE, folderSelector } from '../src/documentSelector';

interface Relative {
  base: string;
  pattern: string;
}

const relative = (base: string, pattern: string): Relative => ({ base, pattern });

test('a folder whose name holds glob characters is never parsed as a glob', () => {
  for (const name of ['shop [v2]', 'a{b,c}', 'star*', 'why?', 'x[!y]', 'plain']) {
    const folder = `/home/dana/${name}`;
    const [filter] = folderSelector(folder, relative);
    assert.equal(filter.scheme, 'file');
    // the folder is the base, as it is; the glob part is the same for every folder
    assert.deepEqual(filter.pattern, { base: folder, pattern: EVERY_FILE });
    assert.equal(EVERY_FILE, '**/*');
  }
});

test('the selector keeps the workspace folder object for the relative pattern', () => {
  const folder = { uri: 'file:///home/dana/%5Bv2%5D', name: '[v2]', index: 0 };
  const [filter] = folderSelector(folder, (base, pattern) => ({ base, pattern }));
  assert.equal(filter.pattern.base, folder); // the same object: VS Code takes a WorkspaceFolder
  assert.equal(filter.pattern.pattern, '**/*');
});

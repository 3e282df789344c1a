// Whether an opened folder belongs to a Tether repository: no `vscode` import, unit-tested.

import * as path from 'path';

/**
 * The nearest folder at or above `folder` that holds a `.tether` folder, if any. VS Code's
 * `workspaceContains` only looks inside the opened folder, so a folder opened inside a Tether
 * repository (`r/app`, the store at `r/.tether`) is found here: one look per parent folder.
 */
export function tetherAbove(folder: string, isDirectory: (p: string) => boolean): string | undefined {
  let current = path.resolve(folder);
  for (;;) {
    if (isDirectory(path.join(current, '.tether'))) {
      return current;
    }
    const parent = path.dirname(current);
    if (parent === current) {
      return undefined;
    }
    current = parent;
  }
}

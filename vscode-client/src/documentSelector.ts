// Which documents a folder's server is given. No `vscode` import here, so the logic is
// unit-tested under plain Node; the extension passes `vscode.RelativePattern` in.

/** Every file under the folder, at any depth. */
export const EVERY_FILE = '**/*';

/** A document filter: `file` documents whose path the pattern matches. */
export interface FolderFilter<P> {
  scheme: 'file';
  pattern: P;
}

/**
 * The document selector of a folder's server: every `file` document under the folder, as a
 * pattern relative to the folder (VS Code's `RelativePattern`, made by `relative`).
 *
 * Not a glob built from the folder's path (`${fsPath}/**\/*`): VS Code's glob syntax has no
 * escape character, so a folder named `shop [v2]`, `{x}`, `a*b` or `why?` would make a pattern
 * that matches none of its own files, and the folder would get no diagnostics. A
 * RelativePattern's base is a path, compared as a path, never parsed as a glob.
 */
export function folderSelector<F, P>(
  folder: F,
  relative: (base: F, pattern: string) => P,
): [FolderFilter<P>] {
  return [{ scheme: 'file', pattern: relative(folder, EVERY_FILE) }];
}

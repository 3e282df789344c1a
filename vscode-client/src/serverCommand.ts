// How the language server is started: the command line built from the settings.
// No `vscode` import here, so the logic is unit-tested under plain Node.

import * as fs from 'fs';
import * as path from 'path';

/** The `tether.server.*` settings of one workspace folder. */
export interface ServerSettings {
  /** Path of the `tether` executable (or a name on PATH); empty when unset. */
  command: string;
  /** Arguments after the executable (or after `python -m recall`). */
  args: string[];
  /** A Python interpreter that has Tether installed; empty when unset. */
  python: string;
}

/** What the path variables in the settings expand to. */
export interface PathContext {
  workspaceFolder: string;
  home: string;
}

/** A resolved command line, and which setting it came from (for messages). */
export interface CommandLine {
  command: string;
  args: string[];
  source:
    'tether.server.command' | 'tether.server.python' | 'tether on PATH' | 'selected interpreter' | 'default';
}

/** What was found outside the settings, for when neither server setting is set. */
export interface Found {
  /** The absolute path of a `tether` executable on PATH ({@link findOnPath}). */
  onPath?: string;
  /** The interpreter selected in the Python extension (trusted workspaces only). */
  selectedPython?: string;
}

/** The executable looked for on PATH when no setting names the server. */
export const EXECUTABLE = 'tether';

export const DEFAULT_ARGS: readonly string[] = ['lsp'];

/**
 * `python -P -m recall` runs the CLI (the package's `__main__`), the same as the `tether`
 * script. `-P` (Python 3.11+) keeps the working directory, the workspace folder, off `sys.path`:
 * without it a `recall/` folder in an opened repository would be run instead of Tether.
 */
export const MODULE_ARGS: readonly string[] = ['-P', '-m', 'recall'];

/** With no setting and no selected interpreter: the interpreter most systems put on PATH. */
export const FALLBACK_PYTHON = 'python3';

/** `${workspaceFolder}`, `${userHome}` and a leading `~` expanded in a path setting. */
export function expandPath(value: string, context: PathContext): string {
  let out = value.trim();
  if (out === '~' || out.startsWith('~/')) {
    out = context.home + out.slice(1);
  }
  return out
    .split('${workspaceFolder}')
    .join(context.workspaceFolder)
    .split('${userHome}')
    .join(context.home);
}

/**
 * The command line that starts `tether lsp` for a folder.
 *
 * Order: `tether.server.command`, then `tether.server.python`, then a `tether` on PATH, then the
 * interpreter selected in the Python extension (a trusted workspace only:
 * {@link asksSelectedInterpreter}), then `python3 -P -m recall lsp`.
 *
 * A `tether` on PATH comes before the selected interpreter: it exists only where Tether was
 * installed (`pipx install`, `pip install --user`), so it is the user's own choice of Tether,
 * while the selected interpreter is chosen for the project's code (often its `.venv`), which
 * seldom has Tether in it; trying it first would fail a `pipx` user with a Python extension.
 * Someone who did install Tether into the project's environment says so with
 * `tether.server.python` (or `.command`), which still wins.
 */
export function serverCommandLine(
  settings: ServerSettings,
  context: PathContext,
  found: Found = {},
): CommandLine {
  const args = settings.args.length > 0 ? [...settings.args] : [...DEFAULT_ARGS];
  const command = expandPath(settings.command, context);
  if (command) {
    return { command, args, source: 'tether.server.command' };
  }
  const python = expandPath(settings.python, context);
  if (python) {
    return { command: python, args: [...MODULE_ARGS, ...args], source: 'tether.server.python' };
  }
  if (found.onPath) {
    return { command: found.onPath, args, source: 'tether on PATH' };
  }
  const selected = found.selectedPython?.trim();
  if (selected) {
    return { command: selected, args: [...MODULE_ARGS, ...args], source: 'selected interpreter' };
  }
  return { command: FALLBACK_PYTHON, args: [...MODULE_ARGS, ...args], source: 'default' };
}

/** Whether neither server setting is set, so PATH and the Python extension are looked at. */
export function looksBeyondSettings(settings: ServerSettings): boolean {
  return !settings.command.trim() && !settings.python.trim();
}

/** Whether a path is a file this process may execute (on Windows: a file). */
export function isExecutableFile(file: string, platform: NodeJS.Platform = process.platform): boolean {
  try {
    if (!fs.statSync(file).isFile()) {
      return false;
    }
    if (platform !== 'win32') {
      fs.accessSync(file, fs.constants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
}

/** The real path of a folder (links followed), or the path itself when it cannot be read. */
function realFolder(dir: string, platform: NodeJS.Platform): string {
  const paths = platform === 'win32' ? path.win32 : path.posix;
  try {
    return fs.realpathSync.native(dir);
  } catch {
    return paths.resolve(dir);
  }
}

/** Whether `dir` is one of `folders` or inside one, comparing real paths. */
export function insideAny(dir: string, folders: readonly string[], platform: NodeJS.Platform): boolean {
  if (folders.length === 0) {
    return false;
  }
  const windows = platform === 'win32';
  const paths = windows ? path.win32 : path.posix;
  const fold = (p: string) => (windows ? p.toLowerCase() : p);
  const real = fold(realFolder(dir, platform));
  return folders.some((folder) => {
    const relative = paths.relative(fold(realFolder(folder, platform)), real);
    const up = relative === '..' || relative.startsWith(`..${paths.sep}`);
    return relative === '' || (!up && !paths.isAbsolute(relative));
  });
}

/**
 * Windows launchers `CreateProcess` runs without a shell: `.bat` and `.cmd` need one (Node.js
 * refuses to spawn them without `shell`), so a PATHEXT naming them is not followed there.
 */
const SPAWNABLE_EXTENSIONS = new Set(['.exe', '.com']);

/**
 * The absolute path of `name` on PATH, as a shell would find it, or undefined.
 *
 * Only absolute PATH entries are searched: an empty or relative entry means the working
 * directory, which may be a folder a repository controls, and a repository must not be able to
 * put its own `tether` there. On Windows the variable may be spelled `Path`, entries may be
 * quoted, and the name is tried with each of PATHEXT's `.exe`/`.com` extensions.
 *
 * `untrustedFolders` are the folders of an untrusted workspace: an entry inside one of them (its
 * real path, links followed) is skipped too, such as the repository's own `.venv/bin` when the
 * editor was started from a shell with that environment activated.
 */
export function findOnPath(
  name: string,
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
  isExecutable: (file: string) => boolean = (file) => isExecutableFile(file, platform),
  untrustedFolders: readonly string[] = [],
): string | undefined {
  const windows = platform === 'win32';
  const paths = windows ? path.win32 : path.posix;
  const variable = (wanted: string): string | undefined => {
    if (!windows) {
      return env[wanted];
    }
    const key = Object.keys(env).find((k) => k.toUpperCase() === wanted);
    return key === undefined ? undefined : env[key];
  };
  let names = [name];
  if (windows) {
    const extensions = (variable('PATHEXT') || '.COM;.EXE;.BAT;.CMD')
      .split(';')
      .map((e) => e.trim().toLowerCase())
      .filter((e) => SPAWNABLE_EXTENSIONS.has(e));
    const given = paths.extname(name).toLowerCase();
    names = SPAWNABLE_EXTENSIONS.has(given) ? [name] : extensions.map((e) => name + e);
  }
  for (const raw of (variable('PATH') ?? '').split(windows ? ';' : ':')) {
    const dir = windows ? raw.trim().replace(/^"(.*)"$/, '$1') : raw;
    if (!dir || !paths.isAbsolute(dir) || insideAny(dir, untrustedFolders, platform)) {
      continue;
    }
    for (const candidate of names) {
      const file = paths.join(dir, candidate);
      if (isExecutable(file)) {
        return file;
      }
    }
  }
  return undefined;
}

/**
 * The interpreters tried, in order, when nothing names the server: `python3`, and on Windows
 * also `python` and the `py` launcher, which the python.org installer puts on PATH instead.
 */
export function fallbackPythons(platform: NodeJS.Platform = process.platform): string[] {
  return platform === 'win32' ? [FALLBACK_PYTHON, 'python', 'py'] : [FALLBACK_PYTHON];
}

/** Whether a command is a bare name, with no folder part, which the system looks up itself. */
export function isBareName(command: string, platform: NodeJS.Platform = process.platform): boolean {
  return platform === 'win32'
    ? !/[\\/]/.test(command) && !/^[a-zA-Z]:/.test(command)
    : !command.includes('/');
}

/** A command line ready to spawn (its command an absolute path), or why there is none. */
export type Resolution = { line: CommandLine; refused?: undefined } | { refused: string; line?: undefined };

const HOW_TO_SET =
  'set tether.server.command to the absolute path of your tether executable, or ' +
  'tether.server.python to that of an interpreter that has Tether installed';

/**
 * The command line with its command made an absolute path, so the system never looks it up
 * itself: on Windows a bare name is looked for in the working directory before PATH, and on
 * POSIX an empty or relative PATH entry is the working directory, either of which could be a
 * folder a repository controls. A bare name is looked up with {@link findOnPath} (for the
 * default: each of {@link fallbackPythons}); a relative path with a folder part, or a name not
 * found, is refused with a message naming the setting to set.
 */
export function resolveCommandLine(
  line: CommandLine,
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
  isExecutable: (file: string) => boolean = (file) => isExecutableFile(file, platform),
  untrustedFolders: readonly string[] = [],
): Resolution {
  const paths = platform === 'win32' ? path.win32 : path.posix;
  if (paths.isAbsolute(line.command)) {
    return { line };
  }
  const what =
    line.source === 'selected interpreter'
      ? `the interpreter selected in the Python extension (${line.command})`
      : `${line.source} (${line.command})`;
  if (!isBareName(line.command, platform)) {
    return { refused: `${what} is a relative path; ${HOW_TO_SET}` };
  }
  const names = line.source === 'default' ? fallbackPythons(platform) : [line.command];
  for (const name of names) {
    const found = findOnPath(name, env, platform, isExecutable, untrustedFolders);
    if (found) {
      return { line: { ...line, command: found } };
    }
  }
  if (line.source === 'default') {
    return { refused: `neither ${EXECUTABLE} nor ${names.join(', ')} was found on PATH; ${HOW_TO_SET}` };
  }
  return { refused: `${what} was not found on PATH; ${HOW_TO_SET}` };
}

/**
 * Whether the interpreter selected in the Python extension is asked for: only when neither
 * server setting is set, and only in a trusted workspace. That interpreter is often the
 * repository's own `.venv/bin/python`, a program an untrusted repository controls.
 */
export function asksSelectedInterpreter(settings: ServerSettings, trusted: boolean): boolean {
  return trusted && looksBeyondSettings(settings);
}

/** The command line as a person would type it (for the log and error messages). */
export function describe(line: CommandLine): string {
  const quote = (part: string) => (/^[\w@%+=:,./-]+$/.test(part) ? part : JSON.stringify(part));
  return [line.command, ...line.args].map(quote).join(' ');
}

/** The server settings read from untrusted JSON: wrong types are reported, not guessed at. */
export function readServerSettings(
  raw: { command?: unknown; args?: unknown; python?: unknown },
  warn: (message: string) => void,
): ServerSettings {
  const text = (key: string, value: unknown): string => {
    if (value === undefined || value === null) {
      return '';
    }
    if (typeof value !== 'string') {
      warn(`tether.server.${key} should be a string; ignored`);
      return '';
    }
    return value;
  };
  let args: string[] = [...DEFAULT_ARGS];
  if (raw.args !== undefined && raw.args !== null) {
    if (Array.isArray(raw.args) && raw.args.every((a) => typeof a === 'string')) {
      args = raw.args as string[];
    } else {
      warn('tether.server.args should be a list of strings; using ["lsp"]');
    }
  }
  return { command: text('command', raw.command), args, python: text('python', raw.python) };
}

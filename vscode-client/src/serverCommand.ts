// How the language server is started: the command line built from the settings.
// No `vscode` import here, so the logic is unit-tested under plain Node.

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
  source: 'tether.server.command' | 'tether.server.python' | 'selected interpreter' | 'default';
}

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
 * Order: `tether.server.command`, then `tether.server.python`, then the interpreter selected in
 * the Python extension (a trusted workspace only: {@link asksSelectedInterpreter}), then
 * `python3 -P -m recall lsp`.
 */
export function serverCommandLine(
  settings: ServerSettings,
  context: PathContext,
  selectedPython?: string,
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
  if (selectedPython && selectedPython.trim()) {
    return {
      command: selectedPython.trim(),
      args: [...MODULE_ARGS, ...args],
      source: 'selected interpreter',
    };
  }
  return { command: FALLBACK_PYTHON, args: [...MODULE_ARGS, ...args], source: 'default' };
}

/**
 * Whether the interpreter selected in the Python extension is asked for: only when neither
 * server setting is set, and only in a trusted workspace. That interpreter is often the
 * repository's own `.venv/bin/python`, a program an untrusted repository controls.
 */
export function asksSelectedInterpreter(settings: ServerSettings, trusted: boolean): boolean {
  return trusted && !settings.command.trim() && !settings.python.trim();
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

// The `tether.*` settings the server reads, and which of them are passed on.
// No `vscode` import here, so the logic is unit-tested under plain Node.

/** The section the server asks for with `workspace/configuration`. */
export const SECTION = 'tether';

/**
 * The settings passed to the server, spelled as `recall/server_settings.py` declares them.
 * `tether.server.*` and `tether.trace.*` stay in the extension; `clientSeverity` is left out:
 * it overrides levels per client by name, and here the client is always VS Code.
 */
export const SERVER_KEYS: readonly string[] = [
  'diagnosticCategories',
  'severity',
  'guardSeverity',
  'maxPerFile',
  'hintQuietTurns',
  'hintSessionBudget',
  'maxDocumentChars',
  'indexOnStart',
  'warmFiles',
  'watchWorkspace',
];

/** The values of one setting at each level, as `WorkspaceConfiguration.inspect` gives them. */
export interface Inspected {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One setting's effective value when someone set it; undefined when only the default applies. */
export function explicitValue(inspected: Inspected | undefined): unknown {
  if (!inspected) {
    return undefined;
  }
  const levels = [inspected.globalValue, inspected.workspaceValue, inspected.workspaceFolderValue];
  let value: unknown = undefined;
  for (const level of levels) {
    if (level === undefined) {
      continue;
    }
    // tables (severity per category) merge across levels, as VS Code merges them
    value = isTable(value) && isTable(level) ? { ...value, ...level } : level;
  }
  return value;
}

/**
 * The settings a person set, for the server. Defaults are left out on purpose: the editor's
 * settings override the repository's `[tool.tether]` and `.tether/config.toml`, so passing
 * the extension's defaults would silently overrule what the repository chose.
 */
export function explicitSettings(inspect: (key: string) => Inspected | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of SERVER_KEYS) {
    const value = explicitValue(inspect(key));
    if (value !== undefined) {
      out[key] = value;
    }
  }
  return out;
}

/**
 * The settings for the server with VS Code's workspace trust added. In an untrusted workspace
 * the server still shows the repository's memories but labels them untrusted, and the hooks and
 * injection never treat them as the user's own; a trusted one says nothing, so the repository's
 * own `inject_others` choice stands.
 */
export function withWorkspaceTrust(
  settings: Record<string, unknown>,
  trusted: boolean,
): Record<string, unknown> {
  return trusted ? settings : { ...settings, trustedWorkspace: false };
}

/**
 * The value of a setting that names a program to run (`tether.server.command`, `args`,
 * `python`). In an untrusted workspace only the user's own settings count: a repository's
 * `.vscode/settings.json` must not choose what runs on the machine.
 */
export function programSetting(inspected: Inspected | undefined, trusted: boolean): unknown {
  if (trusted) {
    return explicitValue(inspected);
  }
  return inspected?.globalValue;
}

/** Whether a change of these settings needs the server restarted (vs. settings re-read). */
export function needsRestart(affects: (section: string) => boolean): boolean {
  return affects(`${SECTION}.server`);
}

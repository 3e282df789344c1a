// The arguments of the server's `workspace/executeCommand` commands, and the routing of the
// server's own commands (from quick fixes) to the server of the right folder.
// No `vscode` import here, so the logic is unit-tested under plain Node.

/** The extension command that runs a server command on one folder's server. */
export const RUN_COMMAND = 'tether.ui.run';

/** The server's commands (`lsp_server/commands.py`). */
export const SERVER_COMMANDS: readonly string[] = [
  'tether.recall',
  'tether.remember',
  'tether.show',
  'tether.pin',
  'tether.unpin',
  'tether.guard',
  'tether.unguard',
  'tether.supersede',
  'tether.archive',
  'tether.restore',
  'tether.markFollowed',
  'tether.list',
  'tether.reindex',
];

/** The categories offered when writing a memory, with what each is for. */
export const CATEGORY_CHOICES: ReadonlyArray<{ category: string; label: string; detail: string }> = [
  { category: 'gotcha', label: 'gotcha', detail: 'This will bite: shown as a warning on the file' },
  { category: 'decision', label: 'decision', detail: 'A choice that was made, and why' },
  { category: 'pref', label: 'pref', detail: 'How things are done here' },
  { category: 'context', label: 'context', detail: 'Background worth knowing' },
  { category: 'rejected', label: 'rejected', detail: 'Tried before and rejected, and why' },
];

/** The single argument object every server command takes (camelCase keys on the wire). */
export type CommandObject = Record<string, unknown>;

/** `{memoryId}` for pin, unpin, archive, restore, show. */
export function memoryArgs(memoryId: string, extra: CommandObject = {}): CommandObject {
  return { ...extra, memoryId };
}

/** What "Remember something about this file" collected. */
export interface RememberInput {
  uri?: string;
  category: string;
  summary: string;
  files: string[];
  details?: string;
}

/**
 * `tether.remember` arguments: a direct write (the summary is given). Like the server's own
 * "remember for this file" action, the extension's menu is one of Tether's offers, so it
 * carries `fromHint` and does not end the session's hints as a command run unprompted does.
 */
export function rememberArgs(input: RememberInput): CommandObject {
  const out: CommandObject = {
    fromHint: true,
    category: input.category,
    summary: input.summary.trim(),
    files: [...new Set(input.files)],
  };
  if (input.uri) {
    out.uri = input.uri;
  }
  if (input.details && input.details.trim()) {
    out.details = input.details.trim();
  }
  return out;
}

/** `tether.supersede` arguments: the replacement is written at once. */
export function supersedeArgs(memoryId: string, summary: string, details?: string): CommandObject {
  const out: CommandObject = { memoryId, summary: summary.trim() };
  if (details && details.trim()) {
    out.details = details.trim();
  }
  return out;
}

/** Why a summary cannot be used, or null when it can. */
export function summaryProblem(text: string): string | null {
  if (!text.trim()) {
    return 'Write the one-line summary (details come next, if you want them).';
  }
  if (/[\r\n]/.test(text)) {
    return 'The summary is one line; put the rest in the details.';
  }
  return null;
}

/** A command as a code action carries it. */
export interface CommandLike {
  title: string;
  command: string;
  arguments?: unknown[];
  tooltip?: string;
}

/**
 * A server command from a quick fix, rewritten to run on the server of `folder`. Each folder
 * has its own server, and VS Code has one command namespace: the server's `tether.pin` cannot
 * be registered once per server, so every server command goes through {@link RUN_COMMAND}.
 */
export function routeCommand(folder: string, command: CommandLike): CommandLike {
  if (!SERVER_COMMANDS.includes(command.command)) {
    return command;
  }
  return {
    ...command,
    command: RUN_COMMAND,
    arguments: [folder, command.command, ...(command.arguments ?? [])],
  };
}

/** The parts of a {@link RUN_COMMAND} invocation, or an error message when malformed. */
export function parseRouted(
  args: unknown[],
): { folder: string; command: string; arguments: unknown[] } | string {
  const [folder, command, ...rest] = args;
  if (typeof folder !== 'string' || typeof command !== 'string' || !SERVER_COMMANDS.includes(command)) {
    return `expected a folder and a server command, got ${JSON.stringify(args.slice(0, 2))}`;
  }
  return { folder, command, arguments: rest };
}

/** A short message from a command's result (`{changed: false, message}` and friends). */
export function resultMessage(result: unknown): string | null {
  if (
    result &&
    typeof result === 'object' &&
    'changed' in result &&
    (result as CommandObject).changed === false
  ) {
    const message = (result as CommandObject).message;
    return typeof message === 'string' ? message : 'Nothing to change.';
  }
  return null;
}

// One `tether lsp` per workspace folder: starting, restarting, routing commands to the right one.

import { ChildProcess, spawn } from 'child_process';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorHandler,
  DynamicFeature,
  ErrorAction,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  StaticFeature,
} from 'vscode-languageclient/node';
import { routeCommand } from './commandArgs';
import { folderSelector } from './documentSelector';
import { FolderServers, START_LIMIT_MS } from './folderServers';
import { CRASH_RESTARTS, CRASH_WINDOW_MS, CrashCount, onServerClosed } from './serverFailures';
import { selectedInterpreter } from './python';
import {
  asksSelectedInterpreter,
  describe,
  EXECUTABLE,
  findOnPath,
  looksBeyondSettings,
  readServerSettings,
  resolveCommandLine,
  serverCommandLine,
} from './serverCommand';
import { SECTION, explicitSettings, programSetting, withWorkspaceTrust } from './settings';

/**
 * A language client that leaves the server's commands unregistered. vscode-languageclient
 * registers every advertised command as a VS Code command, and VS Code has one command
 * namespace: the second folder's server would collide with the first. The extension runs them
 * through {@link FolderClients.execute} instead.
 */
class FolderClient extends LanguageClient {
  /** The server got running at some point. */
  public ran = false;

  constructor(id: string, name: string, serverOptions: ServerOptions, clientOptions: LanguageClientOptions) {
    super(id, name, serverOptions, clientOptions);
    this.onDidChangeState((event) => {
      if (event.newState === State.Running) {
        this.ran = true;
      }
    });
  }

  /**
   * The language client pops up its own errors while it starts (`couldn't create connection`,
   * `Server initialization failed`, ...), several per try: until the server got running they go
   * to the log only, and the extension says once what failed and what to set.
   */
  public error(message: string, data?: unknown, showNotification: boolean | 'force' = true): void {
    super.error(message, data, this.ran ? showNotification : false);
  }

  /**
   * The language client stops a client whose `initialize` failed while it is still starting,
   * which it refuses to do, and nobody catches that. A client that is not running has nothing
   * to stop here: its process is ended by {@link FolderClients}.
   */
  public async stop(timeout?: number): Promise<void> {
    try {
      await super.stop(timeout);
    } catch (error) {
      if (this.state === State.Running) {
        throw error;
      }
    }
  }

  public registerFeature(feature: StaticFeature | DynamicFeature<unknown>): void {
    if (DynamicFeature.is(feature) && feature.registrationType.method === ExecuteCommandRequest.method) {
      return;
    }
    super.registerFeature(feature);
  }
}

/** How long a server told to exit may take before it is ended (as the language client does). */
const EXIT_GRACE_MS = 2000;

function settingsFor(scope: vscode.Uri | undefined): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  return withWorkspaceTrust(
    explicitSettings((key) => config.inspect(key)),
    vscode.workspace.isTrusted,
  );
}

/** The folders that get a server: those not inside another workspace folder. */
export function coveringFolders(folders: readonly vscode.WorkspaceFolder[]): vscode.WorkspaceFolder[] {
  const files = folders.filter((f) => f.uri.scheme === 'file');
  const inside = (inner: string, outer: string) =>
    inner !== outer && inner.startsWith(outer.endsWith(path.sep) ? outer : `${outer}${path.sep}`);
  return files.filter((f) => !files.some((o) => inside(f.uri.fsPath, o.uri.fsPath)));
}

/** The language clients of the window, one per covering workspace folder, keyed by folder URI. */
export class FolderClients implements vscode.Disposable {
  private readonly clients = new FolderServers<LanguageClient>(
    (key, register) => this.start(key, register),
    (key, client) => this.stop(key, client),
    (key, client) => this.startTimedOut(key, client),
  );
  /** The server process of each client, once spawned: `stop()` cannot end a start. */
  private readonly processes = new WeakMap<LanguageClient, ChildProcess>();
  /** The command line of each client, for messages. */
  private readonly lines = new WeakMap<LanguageClient, string>();
  /** Clients whose start was given up on: their failure was reported already. */
  private readonly abandoned = new WeakSet<LanguageClient>();
  /** The crashes of each folder's running servers (the restarts after them are the extension's). */
  private readonly crashes = new Map<string, CrashCount>();
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when a server started or stopped. */
  public readonly onDidChange = this.changed.event;

  constructor(private readonly output: vscode.OutputChannel) {}

  private wanted(): string[] {
    return coveringFolders(vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString());
  }

  /** Start a server for each covering folder that has none, stop those whose folder went. */
  public async sync(): Promise<void> {
    await this.clients.sync(this.wanted());
    this.changed.fire();
  }

  /**
   * Stop every server and start them again (new settings, a new interpreter, a crash). Starts
   * and stops of one folder run one after another, so restarts issued in a quick row never
   * leave two servers for a folder.
   */
  public async restart(): Promise<void> {
    await this.clients.restart(this.wanted());
    this.changed.fire();
  }

  /** The key (folder URI) of the server covering a document, if any. */
  public folderOf(uri: vscode.Uri): string | undefined {
    if (uri.scheme !== 'file') {
      return undefined;
    }
    const covering = coveringFolders(vscode.workspace.workspaceFolders ?? []).find(
      (f) => uri.fsPath === f.uri.fsPath || uri.fsPath.startsWith(`${f.uri.fsPath}${path.sep}`),
    );
    const key = covering?.uri.toString();
    return key && this.clients.get(key) ? key : undefined;
  }

  /** The keys of the running servers, in workspace order. */
  public folders(): string[] {
    return this.wanted().filter((key) => this.clients.get(key)?.state === State.Running);
  }

  /** A display name for a server's folder. */
  public folderName(key: string): string {
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.toString() === key);
    return folder?.name ?? vscode.Uri.parse(key).fsPath;
  }

  /** Run a server command on one folder's server and return its result. */
  public async execute(key: string, command: string, args: unknown[]): Promise<unknown> {
    const client = this.clients.get(key);
    if (!client || client.state !== State.Running) {
      throw new Error(
        `the Tether server for ${this.folderName(key)} is not running (Tether: Restart Server)`,
      );
    }
    return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
  }

  /** Tell every server that its settings changed (they pull them again). */
  public settingsChanged(): void {
    for (const client of this.clients.values()) {
      if (client.state === State.Running) {
        void client.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
      }
    }
  }

  private async start(key: string, register: (client: LanguageClient) => void): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.toString() === key);
    if (!folder) {
      return; // the folder went while this start waited its turn
    }
    const config = vscode.workspace.getConfiguration(`${SECTION}.server`, folder.uri);
    const trusted = vscode.workspace.isTrusted;
    const program = (key: string): unknown => {
      const inspected = config.inspect(key);
      return programSetting(inspected, trusted) ?? inspected?.defaultValue;
    };
    const server = readServerSettings(
      { command: program('command'), args: program('args'), python: program('python') },
      (message) => this.output.appendLine(`[${folder.name}] ${message}`),
    );
    // PATH is the environment VS Code runs in, not the repository's: looked at when trusted or
    // not, but in an untrusted workspace without the entries inside its folders (an activated .venv)
    const untrusted = trusted
      ? []
      : (vscode.workspace.workspaceFolders ?? [])
          .filter((f) => f.uri.scheme === 'file')
          .map((f) => f.uri.fsPath);
    const onPath = looksBeyondSettings(server)
      ? findOnPath(EXECUTABLE, process.env, process.platform, undefined, untrusted)
      : undefined;
    const selectedPython =
      !onPath && asksSelectedInterpreter(server, trusted) ? await selectedInterpreter(folder.uri) : undefined;
    const resolution = resolveCommandLine(
      serverCommandLine(
        server,
        { workspaceFolder: folder.uri.fsPath, home: os.homedir() },
        { onPath, selectedPython },
      ),
      process.env,
      process.platform,
      undefined,
      untrusted,
    );
    if (resolution.refused !== undefined) {
      this.output.appendLine(`[${folder.name}] the server was not started: ${resolution.refused}`);
      void this.startFailed(
        `Tether: the language server for ${folder.name} was not started: ${resolution.refused}.`,
      );
      return;
    }
    const line = resolution.line;
    this.output.appendLine(`[${folder.name}] starting: ${describe(line)} (from ${line.source})`);
    let client: FolderClient | undefined;
    let fallbackHandler: ErrorHandler | undefined;
    const defaultHandler = () => (fallbackHandler ??= client!.createDefaultErrorHandler());
    // started outside the workspace: the server learns its folder from `initialize`, and a
    // working directory the repository controls is one more place a program could be found in
    const serverOptions: ServerOptions = () => {
      const child = spawn(line.command, line.args, { cwd: os.homedir(), env: process.env });
      if (client) {
        this.processes.set(client, child);
      }
      if (child.pid === undefined) {
        return new Promise<ChildProcess>((_, reject) => {
          child.on('error', (error) => reject(new Error(`${describe(line)}: ${error.message}`)));
          setImmediate(() => reject(new Error(`${describe(line)} could not be run`)));
        });
      }
      return Promise.resolve(child);
    };
    const clientOptions: LanguageClientOptions = {
      // vscode-languageclient hands `pattern` to vscode.languages.match as it is, and VS Code
      // takes a RelativePattern there; the protocol's type only knows a RelativePattern's JSON
      documentSelector: folderSelector(
        folder,
        (base, pattern) => new vscode.RelativePattern(base, pattern) as unknown as string,
      ),
      workspaceFolder: folder,
      outputChannel: this.output,
      diagnosticCollectionName: 'tether',
      initializationOptions: settingsFor(folder.uri),
      // the client never restarts a server by itself: a restart of its own would run beside
      // the folder's queue, and a Restart Server meanwhile would leave two servers
      errorHandler: {
        error: async (error, message, count) =>
          client?.ran
            ? defaultHandler().error(error, message, count)
            : { action: ErrorAction.Continue, handled: true }, // the close follows
        closed: () => {
          const result = { action: CloseAction.DoNotRestart, handled: true };
          if (client?.ran) {
            this.closed(key, folder.name, client);
            return result;
          }
          // while starting, answered after the failed start settled: answered at once, the
          // language client would resolve the start instead of rejecting it
          return new Promise((resolve) => setTimeout(() => resolve(result), 0));
        },
      },
      // a failed `initialize` is reported once, by the failed start
      initializationFailedHandler: () => false,
      middleware: {
        provideCodeActions: async (document, range, context, token, next) => {
          const actions = await next(document, range, context, token);
          return actions?.map((action) => {
            if (action instanceof vscode.CodeAction) {
              if (action.command) {
                action.command = routeCommand(key, action.command);
              }
              return action;
            }
            return routeCommand(key, action) as vscode.Command;
          });
        },
        workspace: {
          configuration: (params, token, next) => {
            if (params.items.every((item) => item.section !== SECTION)) {
              return next(params, token);
            }
            return params.items.map((item) =>
              item.section === SECTION
                ? settingsFor(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : folder.uri)
                : null,
            );
          },
        },
      },
    };
    client = new FolderClient('tether', `Tether (${folder.name})`, serverOptions, clientOptions);
    this.lines.set(client, `${describe(line)}, from ${line.source}`);
    register(client);
    client.onDidChangeState(() => this.changed.fire());
    try {
      await client.start();
      if (client.state !== State.Running) {
        throw new Error('the server closed the connection while starting');
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.output.appendLine(`[${folder.name}] the server did not start: ${message}`);
      if (this.abandoned.has(client)) {
        return; // reported when it was given up on
      }
      // not awaited: the folder's next start or stop must not wait for someone to click
      void this.startFailed(
        `Tether: the language server for ${folder.name} did not start (${describe(line)}, from ${line.source}). ` +
          'Set tether.server.command to your tether executable, or tether.server.python to an ' +
          'interpreter that has Tether installed, or put tether on PATH (pipx install).',
      );
    }
  }

  /** A server's connection closed while the client did not stop it. */
  private closed(key: string, name: string, client: FolderClient): void {
    let crashes = this.crashes.get(key);
    if (!crashes) {
      crashes = new CrashCount();
      this.crashes.set(key, crashes);
    }
    const decision = onServerClosed(client.ran, this.abandoned.has(client), crashes, Date.now());
    if (decision === 'restart') {
      this.output.appendLine(`[${name}] the server stopped unexpectedly; starting it again`);
      // once the language client is done with the close (the client is stopped by then)
      setTimeout(() => void this.clients.recover(key, client).then(() => this.changed.fire()), 0);
    } else if (decision === 'give-up') {
      const minutes = CRASH_WINDOW_MS / 60_000;
      const message = `the language server for ${name} stopped ${CRASH_RESTARTS + 1} times in ${minutes} minutes; it was not started again`;
      this.output.appendLine(`[${name}] ${message}`);
      void this.startFailed(`Tether: ${message}. The log says why; Tether: Restart Server starts it again.`);
    }
  }

  /** A start took longer than {@link START_LIMIT_MS}: end its process and say so. */
  private startTimedOut(key: string, client: LanguageClient | undefined): void {
    const name = this.folderName(key);
    const seconds = START_LIMIT_MS / 1000;
    const what = client ? this.lines.get(client) : undefined;
    if (client) {
      this.abandoned.add(client);
      this.processes.get(client)?.kill();
    }
    const message = what
      ? `the language server for ${name} did not answer within ${seconds} s (${what}); it was stopped`
      : `the language server for ${name} was not started within ${seconds} s (finding the interpreter took too long)`;
    this.output.appendLine(`[${name}] ${message}`);
    void this.startFailed(
      `Tether: ${message}. Check that the command runs \`tether lsp\`: set tether.server.command or tether.server.python.`,
    );
  }

  private async startFailed(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, 'Open Settings', 'Show Log');
    if (choice === 'Open Settings') {
      void vscode.commands.executeCommand('workbench.action.openSettings', 'tether.server');
    } else if (choice === 'Show Log') {
      this.output.show(true);
    }
  }

  private async stop(key: string, client: LanguageClient): Promise<void> {
    if (client.state !== State.Stopped) {
      try {
        await client.stop();
      } catch (error) {
        // the client could not stop it (it was starting, say): it is ended now, not forgotten
        this.output.appendLine(`stopping the server of ${this.folderName(key)}: ${String(error)}`);
        this.processes.get(client)?.kill();
      }
    }
    // stop() asked it to exit; a server that did not is ended (the client spawned it through us)
    const child = this.processes.get(client);
    if (child && child.exitCode === null && child.signalCode === null) {
      setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill();
        }
      }, EXIT_GRACE_MS).unref();
    }
  }

  /** Stop every server (on deactivation VS Code waits for this). */
  public async stopAll(): Promise<void> {
    await this.clients.stopAll();
  }

  public dispose(): void {
    void this.stopAll();
    this.changed.dispose();
  }
}

// A loose stand-in for the `vscode` module, enough for vscode-languageclient to start a server
// under plain Node: what a test looks at (settings, folders, messages) is real; the rest is inert.
/* eslint-disable @typescript-eslint/no-explicit-any */
import Module from 'node:module';
import * as path from 'node:path';

const inert: any = new Proxy(function () {}, {
  get: (_t, p) =>
    p === 'then' ? undefined : p === Symbol.iterator ? function* () {} : p === 'dispose' ? () => {} : inert,
  apply: () => inert,
  construct: () => inert,
});

class Uri {
  constructor(
    public scheme: string,
    public fsPath: string,
  ) {}
  get path(): string {
    return this.fsPath;
  }
  static file(p: string): Uri {
    return new Uri('file', p);
  }
  static parse(s: string): Uri {
    return new Uri(s.split(':')[0], decodeURIComponent(s.replace(/^file:\/\//, '')));
  }
  toString(): string {
    return `${this.scheme}://${this.fsPath}`;
  }
  with(): Uri {
    return this;
  }
}

class EventEmitter<T> {
  private listeners: ((e: T) => void)[] = [];
  event = (f: (e: T) => void) => {
    this.listeners.push(f);
    return { dispose() {} };
  };
  fire(e: T): void {
    this.listeners.forEach((f) => f(e));
  }
  dispose(): void {}
}

/** What the extension showed and the settings it reads; set by a test before it starts. */
export const fake = {
  messages: [] as string[],
  settings: {} as Record<string, unknown>,
  folder: { uri: Uri.file(path.sep), name: 'repo', index: 0 },
};

const event = () => ({ dispose() {} });
const lenient = (target: Record<string, any>) =>
  new Proxy(target, {
    get: (t, p) => (p in t ? t[p as string] : typeof p === 'string' && p.startsWith('on') ? event : inert),
  });

const vscode = lenient({
  Uri,
  EventEmitter,
  Disposable: class {
    static from() {
      return { dispose() {} };
    }
    dispose() {}
  },
  RelativePattern: class {
    constructor(
      public base: unknown,
      public pattern: string,
    ) {}
  },
  CodeAction: class {},
  workspace: lenient({
    get workspaceFolders() {
      return [fake.folder];
    },
    isTrusted: true,
    textDocuments: [],
    getConfiguration: (section: string) => ({
      get: (_key: string, fallback: unknown) => fallback,
      has: () => false,
      inspect: (key: string) => {
        const full = `${section}.${key}`;
        return full in fake.settings
          ? { globalValue: fake.settings[full] }
          : { defaultValue: full === 'tether.server.args' ? ['lsp'] : undefined };
      },
    }),
    getWorkspaceFolder: () => fake.folder,
  }),
  window: lenient({
    showErrorMessage: (message: string) => {
      fake.messages.push(message);
      return Promise.resolve(undefined);
    },
    showWarningMessage: (message: string) => {
      fake.messages.push(message);
      return Promise.resolve(undefined);
    },
    showInformationMessage: () => Promise.resolve(undefined),
  }),
  extensions: { getExtension: () => undefined },
  version: '1.82.0',
  env: {
    appName: 'Visual Studio Code',
    language: 'en',
    machineId: 'm',
    sessionId: 's',
    uiKind: 1,
    appRoot: '',
  },
});

const load = (Module as any)._load;
(Module as any)._load = function (request: string, ...rest: unknown[]) {
  return request === 'vscode' ? vscode : load.call(this, request, ...rest);
};

// One server per workspace folder, started and stopped one step at a time per folder.
// No `vscode` import here, so the logic is unit-tested under plain Node.

/**
 * Starts one folder's server. It calls `register` with the client as soon as it exists (before
 * the server answered), so the client is found, and stopped, while it is still starting.
 */
export type StartOne<C> = (key: string, register: (client: C) => void) => Promise<void>;

/** Stops one folder's server; it reports its own errors. */
export type StopOne<C> = (key: string, client: C) => Promise<void>;

/**
 * Called when a start took longer than its limit: kills the server being started (`client`, if
 * it was registered yet) and reports it. The folder is left without a server.
 */
export type StartTimedOut<C> = (key: string, client: C | undefined) => Promise<void> | void;

/**
 * How long a start may take: asking the Python extension for its interpreter, then the server's
 * answer to `initialize` (the language client waits for it without a limit). A server that hangs,
 * or a program that never answers, would otherwise hold its folder's queue for good, and every
 * later restart and stop of the folder, and the stop at deactivation, would wait behind it.
 * Tether answers in well under a second; this leaves room for a slow first start (a cold disk,
 * an index to open).
 */
export const START_LIMIT_MS = 30_000;

/** The error `register` throws when the start it belongs to was given up on. */
export class StartAbandoned extends Error {}

/**
 * The servers of a window, keyed by folder. Every start, stop and restart of a folder waits for
 * the one issued before it on that folder to end, and decides what to do only when its turn
 * comes: two restarts issued together stop and start twice, one after the other, and never
 * leave two servers for one folder. Different folders still start side by side.
 */
export class FolderServers<C> {
  private readonly clients = new Map<string, C>();
  private readonly queues = new Map<string, Promise<void>>();
  private closed = false;

  constructor(
    private readonly startOne: StartOne<C>,
    private readonly stopOne: StopOne<C>,
    private readonly timedOut: StartTimedOut<C> = () => {},
    private readonly startLimitMs: number = START_LIMIT_MS,
  ) {}

  /** The client of a folder (running, starting, or one that failed to start), if any. */
  public get(key: string): C | undefined {
    return this.clients.get(key);
  }

  /** The folders that have a client. */
  public keys(): string[] {
    return [...this.clients.keys()];
  }

  public values(): C[] {
    return [...this.clients.values()];
  }

  /** Start the folders of `wanted` that have no server; stop those of folders not wanted. */
  public async sync(wanted: readonly string[]): Promise<void> {
    const keep = new Set(wanted);
    const gone = this.pending().filter((key) => !keep.has(key));
    await Promise.all([
      ...gone.map((key) => this.serial(key, () => this.stopNow(key))),
      ...wanted.map((key) => this.serial(key, () => this.ensureNow(key))),
    ]);
  }

  /** Stop every server and start one for each folder of `wanted`. */
  public async restart(wanted: readonly string[]): Promise<void> {
    const keep = new Set(wanted);
    const gone = this.pending().filter((key) => !keep.has(key));
    await Promise.all([
      ...gone.map((key) => this.serial(key, () => this.stopNow(key))),
      ...wanted.map((key) =>
        this.serial(key, async () => {
          await this.stopNow(key);
          await this.ensureNow(key);
        }),
      ),
    ]);
  }

  /**
   * Start a folder's server again after `client` crashed, in the folder's queue: when its turn
   * comes and `client` is no longer the folder's (a restart or a stop came first), nothing is
   * done, so a crash and a restart issued together leave one server.
   */
  public async recover(key: string, client: C): Promise<void> {
    await this.serial(key, async () => {
      if (this.closed || this.clients.get(key) !== client) {
        return;
      }
      await this.stopNow(key);
      await this.ensureNow(key);
    });
  }

  /** Stop every server, and start none after (deactivation). */
  public async stopAll(): Promise<void> {
    this.closed = true;
    await Promise.all(this.pending().map((key) => this.serial(key, () => this.stopNow(key))));
  }

  /** The folders with a client or with a step under way. */
  private pending(): string[] {
    return [...new Set([...this.clients.keys(), ...this.queues.keys()])];
  }

  /** Run `step` on `key` once every step issued on `key` before it has ended. */
  private serial(key: string, step: () => Promise<void>): Promise<void> {
    const before = this.queues.get(key) ?? Promise.resolve();
    const mine = before.then(step, step);
    const tail = mine.catch(() => {});
    this.queues.set(key, tail);
    void tail.then(() => {
      if (this.queues.get(key) === tail) {
        this.queues.delete(key);
      }
    });
    return mine;
  }

  private async ensureNow(key: string): Promise<void> {
    if (this.closed || this.clients.has(key)) {
      return;
    }
    let abandoned = false;
    let registered: C | undefined;
    const started = this.startOne(key, (client) => {
      if (abandoned) {
        throw new StartAbandoned(`the start of ${key} took longer than ${this.startLimitMs} ms`);
      }
      registered = client;
      this.clients.set(key, client);
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), this.startLimitMs);
    });
    try {
      if ((await Promise.race([started, late])) !== 'late') {
        return;
      }
    } finally {
      clearTimeout(timer);
    }
    // given up on: the step ends here, whatever the start does later
    abandoned = true;
    started.catch(() => {});
    if (registered !== undefined && this.clients.get(key) === registered) {
      this.clients.delete(key);
    }
    await this.timedOut(key, registered);
  }

  private async stopNow(key: string): Promise<void> {
    const client = this.clients.get(key);
    this.clients.delete(key);
    if (client !== undefined) {
      await this.stopOne(key, client);
    }
  }
}

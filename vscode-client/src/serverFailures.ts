// What to do when a folder's server closes: no `vscode` import, so it is unit-tested under Node.

/**
 * Crashes of a running server that are followed by a restart, within {@link CRASH_WINDOW_MS}:
 * as many as the language client's own default allows, so a server that crashes now and then
 * keeps running, and one that crashes on every start stops being started within seconds.
 */
export const CRASH_RESTARTS = 4;

/** The window {@link CRASH_RESTARTS} counts in (the language client's default too). */
export const CRASH_WINDOW_MS = 3 * 60_000;

/**
 * What the extension does when a server's connection closed:
 * - `quiet`: nothing more: the server never got running (the failed start is reported once,
 *   by the start itself), or its start was given up on (reported when it was);
 * - `restart`: a running server crashed: start it again, through the folder's queue;
 * - `give-up`: it crashed too often: leave it stopped and say so.
 */
export type CloseDecision = 'quiet' | 'restart' | 'give-up';

/** The crashes of one folder's servers, over the restarts that follow them. */
export class CrashCount {
  private times: number[] = [];

  constructor(
    private readonly restarts: number = CRASH_RESTARTS,
    private readonly windowMs: number = CRASH_WINDOW_MS,
  ) {}

  /** Note a crash at `now` (ms); true when a restart is still allowed. */
  public crashed(now: number): boolean {
    this.times = [...this.times.filter((t) => now - t < this.windowMs), now];
    return this.times.length <= this.restarts;
  }
}

/**
 * Decide what follows a server's close. `ran`: the client was running at some point (a server
 * that failed to start is never restarted: it would fail the same way, a message per try).
 */
export function onServerClosed(
  ran: boolean,
  abandoned: boolean,
  crashes: CrashCount,
  now: number,
): CloseDecision {
  if (!ran || abandoned) {
    return 'quiet';
  }
  return crashes.crashed(now) ? 'restart' : 'give-up';
}

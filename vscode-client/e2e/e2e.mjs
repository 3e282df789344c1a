// End to end in a real VS Code (code-server) driven by Chromium through playwright-core:
// a temp git repository with a gotcha written by the real `tether` CLI, in a folder whose
// name holds glob characters, `tether` on PATH and no setting naming it, the built .vsix
// installed, then: the Problems panel shows the gotcha, the server log says it started the
// tether on PATH, hover shows the card, the Tether view lists it, and "Tether: Pin Memory"
// rewrites the memory file on disk.
//
// Run by e2e/run.sh, which installs the tools and passes their paths in the environment.

import { spawn, execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const env = (name) => {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set; run e2e/run.sh`);
  }
  return value;
};

const CODE_SERVER = env('E2E_CODE_SERVER');
const PLAYWRIGHT = env('E2E_PLAYWRIGHT_CORE');
const CHROMIUM = env('E2E_CHROMIUM');
const VSIX = env('E2E_VSIX');
const TETHER = env('E2E_TETHER');
const ARTIFACTS = env('E2E_ARTIFACTS');
const SCREENSHOT_COPY = process.env.E2E_SCREENSHOT_COPY || '';

const GOTCHA = 'session save must go through safeRename';
const DETAILS = 'A plain write leaves a half-written session file when the process dies.';
const DECISION = 'sessions are stored as JSON, never pickle';
const REMEMBERED = 'the session file name comes from the user id';
const STEP_TIMEOUT = 60_000;

const { chromium } = createRequire(import.meta.url)(PLAYWRIGHT);

function log(message) {
  process.stdout.write(`e2e: ${message}\n`);
}

function run(command, args, options = {}) {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * The workspace folder's name holds glob characters: the extension must not build a glob from
 * the folder's path (VS Code's globs have no escape, so `[v2]` would match no file of it).
 */
const FOLDER_NAME = 'shop [v2] {a,b}';

/** A git repository with two memories on src/store.py, written by the real CLI. */
function makeWorkspace(base, tetherEnv) {
  const repo = path.join(base, FOLDER_NAME);
  fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
  fs.writeFileSync(
    path.join(repo, 'src', 'store.py'),
    'import os\n\n\ndef save_session(path, data):\n    os.replace(write_temp(path, data), path)\n',
  );
  fs.writeFileSync(path.join(repo, 'src', 'app.py'), 'from src.store import save_session\n');
  const git = (...args) => run('git', args, { cwd: repo });
  git('init', '-q');
  git('config', 'user.email', 'dana@example.com');
  git('config', 'user.name', 'Dana Demo');
  git('add', '.');
  git('commit', '-q', '-m', 'first');
  const tether = (...args) => JSON.parse(run(TETHER, ['--json', ...args], { cwd: repo, env: tetherEnv }));
  tether('init');
  const gotcha = tether('remember', GOTCHA, '-c', 'gotcha', '-f', 'src/store.py', '--details', DETAILS).id;
  tether('remember', DECISION, '-c', 'decision', '-f', 'src/store.py');
  tether('remember', 'use the task runner, never raw pip', '-c', 'pref', '-f', 'src/app.py', '--pin');
  // no tether.server.* setting: the extension finds `tether` on PATH (see main)
  return { repo, gotcha, memoryFile: path.join(repo, '.tether', 'memories', `${gotcha}.md`) };
}

const USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.colorTheme': 'Default Light Modern',
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'security.workspace.trust.enabled': false,
  'chat.disableAIFeatures': true,
  'editor.hover.delay': 100,
  'window.commandCenter': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'git.enabled': false,
};

async function waitFor(what, check, timeout = STEP_TIMEOUT) {
  const until = Date.now() + timeout;
  for (;;) {
    const value = await check();
    if (value) {
      return value;
    }
    if (Date.now() > until) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function command(page, title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ timeout: STEP_TIMEOUT });
  await input.press('Enter');
}

/** Room for the Tether view in the screenshot: a wider sidebar, the folder tree collapsed. */
async function arrangeForScreenshot(page) {
  try {
    const sidebar = await page.locator('.part.sidebar').boundingBox();
    if (sidebar) {
      const x = sidebar.x + sidebar.width + 1;
      const y = sidebar.y + sidebar.height / 2;
      await page.mouse.move(x, y);
      await page.mouse.down();
      await page.mouse.move(x + 170, y, { steps: 5 });
      await page.mouse.up();
    }
    await page.locator('.pane-header', { hasText: 'shop' }).first().click();
  } catch (error) {
    log(`screenshot layout not arranged (${error.message})`);
  }
}

/** The lines of the Tether output channel, which VS Code keeps in a file under its logs. */
function logLines(userData) {
  const found = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(full);
      } else if (/Tether\.log$/.test(entry.name)) {
        found.push(...fs.readFileSync(full, 'utf8').split('\n'));
      }
    }
  };
  try {
    walk(path.join(userData, 'logs'));
  } catch {
    // not written yet
  }
  return found;
}

async function main() {
  const started = Date.now();
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'tether-e2e-'));
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const home = path.join(base, 'home');
  const tetherEnv = {
    ...process.env,
    TETHER_HOME: path.join(base, 'tether-home'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
  };
  const { repo, gotcha, memoryFile } = makeWorkspace(base, tetherEnv);
  // `tether` on PATH as `pipx install` leaves it: in ~/.local/bin, which the shell profile puts
  // on PATH. VS Code's server gives the extension host the PATH of a login shell it runs, not
  // its own, so the profile is what puts it there; no setting names the server.
  const bin = path.join(home, '.local', 'bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.symlinkSync(TETHER, path.join(bin, 'tether'));
  const profile =
    'case ":$PATH:" in *":$HOME/.local/bin:"*) ;; *) PATH="$HOME/.local/bin:$PATH" ;; esac\nexport PATH\n';
  for (const name of ['.profile', '.bashrc']) {
    fs.writeFileSync(path.join(home, name), profile);
  }
  tetherEnv.HOME = home;
  tetherEnv.PATH = `${bin}${path.delimiter}${process.env.PATH ?? ''}`;
  log(`workspace ${repo}, gotcha ${gotcha}`);

  const userData = path.join(base, 'user-data');
  const extensions = path.join(base, 'extensions');
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify(USER_SETTINGS, null, 2));
  const common = ['--user-data-dir', userData, '--extensions-dir', extensions];
  run(CODE_SERVER, [...common, '--install-extension', VSIX], { env: tetherEnv });
  log(`installed ${path.basename(VSIX)}`);

  const port = await freePort();
  const serverLog = fs.openSync(path.join(ARTIFACTS, 'code-server.log'), 'w');
  const codeServer = spawn(
    CODE_SERVER,
    [
      ...common,
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--disable-proxy',
    ],
    { env: tetherEnv, stdio: ['ignore', serverLog, serverLog], detached: true },
  );
  let browser;
  try {
    await waitFor('code-server to listen', async () => {
      try {
        return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
      } catch {
        return false;
      }
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-default-apps',
        '--disable-sync',
        '--no-first-run',
        '--disable-features=Translate,OptimizationHints,MediaRouter',
      ],
    });
    const page = await browser.newPage({ viewport: { width: 1440, height: 860 } });
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(repo)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: STEP_TIMEOUT });
    log('workbench loaded');

    // open the file through Quick Open
    await page.keyboard.press('Control+P');
    const quickOpen = page.locator('.quick-input-widget input');
    await quickOpen.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    await quickOpen.fill('src/store.py');
    await page
      .locator('.quick-input-list .monaco-list-row', { hasText: 'store.py' })
      .first()
      .waitFor({ timeout: STEP_TIMEOUT });
    await quickOpen.press('Enter');
    await page.locator('.tab.active', { hasText: 'store.py' }).waitFor({ timeout: STEP_TIMEOUT });
    log('store.py open');

    // the Problems panel shows the gotcha
    await command(page, 'View: Focus Problems');
    const problem = page
      .locator('.markers-panel .monaco-list-row', { hasText: 'review before editing' })
      .first();
    await problem.waitFor({ timeout: STEP_TIMEOUT });
    const problemText = await problem.innerText();
    if (!problemText.includes(GOTCHA) || !problemText.includes(gotcha)) {
      throw new Error(`the problem row does not name the gotcha: ${problemText}`);
    }
    log(`Problems panel: ${problemText.replace(/\s+/g, ' ').trim()}`);

    // the server log names where the command came from: the tether on PATH
    const startLine = await waitFor('the server log line naming tether on PATH', () =>
      logLines(userData).find((line) => line.includes('starting:')),
    );
    if (!startLine.includes('(from tether on PATH)') || !startLine.includes(path.join(bin, 'tether'))) {
      throw new Error(`the server was not started from the tether on PATH: ${startLine}`);
    }
    log(`server log: ${startLine.trim()}`);

    // the Tether view lists it
    await command(page, 'Tether: Open the Tether View');
    const view = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^Tether/i }) });
    const row = view.locator('.monaco-list-row', { hasText: GOTCHA }).first();
    await row.waitFor({ timeout: STEP_TIMEOUT });
    await view
      .locator('.monaco-list-row', { hasText: 'This file: store.py' })
      .first()
      .waitFor({ timeout: STEP_TIMEOUT });
    log(`Tether view: ${(await row.innerText()).replace(/\s+/g, ' ').trim()}`);
    await arrangeForScreenshot(page);
    const status = page.locator('[aria-label^="Tether: 2 memories name this file"]').first();
    await status.waitFor({ timeout: STEP_TIMEOUT });
    log(`status bar: ${await status.getAttribute('aria-label')}`);

    // hover shows the card (details are only in the card, not in the diagnostic)
    await page
      .locator('.monaco-editor .view-lines')
      .first()
      .click({ position: { x: 40, y: 8 } });
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+I');
    const hover = page.locator('.monaco-hover', { hasText: DETAILS }).first();
    await hover.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    log('hover shows the card');
    const shot = path.join(ARTIFACTS, 'vscode.png');
    await page.screenshot({ path: shot });
    if (SCREENSHOT_COPY) {
      fs.mkdirSync(path.dirname(SCREENSHOT_COPY), { recursive: true });
      fs.copyFileSync(shot, SCREENSHOT_COPY);
    }
    await page.keyboard.press('Escape');

    // "Tether: Pin Memory" from the palette: pick the gotcha, the file on disk changes
    if (/^pinned: true$/m.test(fs.readFileSync(memoryFile, 'utf8'))) {
      throw new Error('the gotcha is pinned before the test pinned it');
    }
    await command(page, 'Tether: Pin Memory');
    const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: GOTCHA }).first();
    await pick.waitFor({ timeout: STEP_TIMEOUT });
    await pick.click();
    await waitFor('pinned: true in the memory file', () =>
      /^pinned: true$/m.test(fs.readFileSync(memoryFile, 'utf8')),
    );
    log(`pinned on disk: ${path.relative(repo, memoryFile)}`);
    await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-after-pin.png') });

    // the lightbulb's quick fix runs on the folder's server: unpin it again
    await page
      .locator('.monaco-editor .view-lines')
      .first()
      .click({ position: { x: 40, y: 8 } });
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Control+.');
    const fix = page
      .locator('.action-widget .monaco-list-row', { hasText: `Tether: unpin gotcha ${gotcha}` })
      .first();
    await fix.waitFor({ timeout: STEP_TIMEOUT });
    await fix.click();
    await waitFor('pinned: false in the memory file', () =>
      /^pinned: false$/m.test(fs.readFileSync(memoryFile, 'utf8')),
    );
    log('quick fix unpinned it');

    // "Remember something about this file": category, summary, files (this one picked), save
    await command(page, 'Tether: Remember Something About This File');
    const input = page.locator('.quick-input-widget input');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'decision' }).first().click();
    await page.locator('.quick-input-widget', { hasText: 'in one line' }).waitFor({ timeout: STEP_TIMEOUT });
    await input.fill(REMEMBERED);
    await input.press('Enter');
    await page
      .locator('.quick-input-list .monaco-list-row', { hasText: 'src/store.py' })
      .first()
      .waitFor({ timeout: STEP_TIMEOUT });
    await input.press('Enter');
    const save = page
      .locator('.quick-input-list .monaco-list-row', { hasText: 'the summary is enough' })
      .first();
    await save.waitFor({ timeout: STEP_TIMEOUT });
    await save.click();
    const written = await waitFor('the new memory file', () => {
      const folder = path.dirname(memoryFile);
      return fs
        .readdirSync(folder)
        .map((n) => fs.readFileSync(path.join(folder, n), 'utf8'))
        .find((t) => t.includes(REMEMBERED));
    });
    if (!/^category: decision$/m.test(written) || !written.includes('- src/store.py')) {
      throw new Error(`the remembered memory is not as asked:\n${written}`);
    }
    await view
      .locator('.monaco-list-row', { hasText: REMEMBERED })
      .first()
      .waitFor({ timeout: STEP_TIMEOUT });
    log('remembered a decision through the UI; the view lists it');
    log(`passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    if (browser) {
      const pages = browser.contexts().flatMap((c) => c.pages());
      if (pages[0]) {
        await pages[0].screenshot({ path: path.join(ARTIFACTS, 'failure.png') }).catch(() => {});
      }
    }
    throw error;
  } finally {
    await browser?.close().catch(() => {});
    try {
      process.kill(-codeServer.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    fs.closeSync(serverLog);
    if (!process.env.E2E_KEEP) {
      fs.rmSync(base, { recursive: true, force: true });
    }
  }
}

main().then(
  () => {
    process.stdout.write('e2e: 1 passed, 0 failed\n');
  },
  (error) => {
    process.stderr.write(`e2e: FAILED: ${error.stack || error}\n`);
    process.stdout.write('e2e: 0 passed, 1 failed\n');
    process.exitCode = 1;
  },
);

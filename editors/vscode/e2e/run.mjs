// End-to-end test of the rlog extension in a real VS Code: code-server 4.100.3
// (VS Code 1.100.3) offline, in headless Debian Chromium driven by
// playwright-core. It builds this platform's .vsix with the release script
// (scripts/release: the server inside), installs it into a fresh code-server
// that runs as on a machine without Go (no go and no rlog-ls on its PATH, an
// empty GOPATH, rlog.server.path not set, so the server can only come from the
// package), opens testdata/sample.rlog and checks what a user sees: syntax
// colours, the Problems panel, a setting, a hover, the outline, the colours of
// a 25 MB log (where VS Code turns TextMate off, so they come from the
// server's semantic tokens), a log beside its companion (the full output in
// the hover, Go to Definition into the companion and back, the code lens,
// rlog: Show Full Record), both conversion commands, the code lenses, the
// inlay hints and the session view (its webview, and a click in it that
// moves the editor's cursor), and the message shown when rlog.server.path
// names a missing binary, and a real Claude Code transcript (recorded from
// Claude Code 2.1.328) opened as an rlog view through the editor title's
// action: its text, a hover with the full record, Go to Definition into the
// transcript and back, read-only, the loss report on its header, the view
// following the transcript as it grows, the sub-agent tree (call hierarchy
// from the view to the sub-agent's view and back), and the message for a file the
// server does not read (JSON of no known shape, from the explorer's context
// menu), and the Sessions view listing recorded Claude Code and Codex CLI
// sessions of the workspace folder and opening one as its rlog view. It takes screenshots of the editor with the hover,
// the Problems panel and the outline (vscode.png), of the lenses and hints
// (vscode-insight.png), of the session view (vscode-session-view.png) and
// of the transcript beside its view (vscode-claude-view.png), of the
// Sessions view with a session opened from it (vscode-sessions.png), of two
// runs of one task in the diff editor through Compare With… from the
// explorer (vscode-compare.png: masked, only the changed answer differs), all beside
// RLOG_E2E_SCREENSHOT. It also checks completion of call
// ids, and that Follow keeps the end of a log that grows on disk in view
// (and what VS Code sends the server on that reload).
//
// Usage: ./install.sh && node run.mjs   (from editors/vscode/e2e)
// Env:   CHROMIUM (default /usr/bin/chromium), RLOG_E2E_KEEP=1 keeps work/,
//        RLOG_E2E_ONLY: a regular expression; only the checks it matches run,
//        RLOG_VSIX: a platform .vsix to test instead of building one,
//        RLOG_E2E_SCREENSHOT: where to keep the screenshot (default work/vscode.png;
//        docs/vscode.png is made with RLOG_E2E_SCREENSHOT=$PWD/../../../docs/vscode.png).
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const ext = join(here, '..');
const root = join(ext, '..', '..');
const work = join(here, 'work');
const codeServer = join(here, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const screenshotPath = process.env.RLOG_E2E_SCREENSHOT || join(work, 'vscode.png');

let failures = 0;
const t0 = Date.now();
function log(msg) {
  console.log(`[e2e ${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}`);
}

function run(cmd, args, opts = {}) {
  log(`$ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal})`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** vsixPath builds this platform's .vsix with the release script, or takes RLOG_VSIX. */
function vsixPath() {
  if (process.env.RLOG_VSIX) return process.env.RLOG_VSIX;
  // VS Code's platform names are Node's: linux-x64, darwin-arm64, win32-x64 ...
  const platform = `${process.platform}-${process.arch}`;
  run('go', ['run', './scripts/release', '-out', join(work, 'dist'), '-archives=false', platform], { cwd: root });
  const built = readdirSync(join(work, 'dist')).filter((f) => f.endsWith(`-${platform}.vsix`));
  if (built.length !== 1) throw new Error(`the release script built ${built} for ${platform}`);
  return join(work, 'dist', built[0]);
}

/**
 * noGoEnv is the environment of a machine without Go: PATH without the
 * folders that hold go or rlog-ls, and an empty GOPATH (where the extension
 * would otherwise look), so the server can only come from the package.
 */
function noGoEnv() {
  const env = { ...process.env };
  const hidden = (d) => ['go', 'rlog-ls'].some((b) => existsSync(join(d, b)));
  env.PATH = (env.PATH || '').split(':').filter((d) => d !== '' && !hidden(d)).join(':');
  env.GOPATH = join(work, 'empty-gopath');
  // The agents' stores the Sessions view lists (sessionStores), and its index.
  env.CLAUDE_CONFIG_DIR = join(work, 'claude');
  env.CODEX_HOME = join(work, 'codex');
  env.RLOG_LS_SESSIONS_INDEX = join(work, 'sessions-index.json');
  delete env.GOBIN;
  delete env.GOROOT;
  for (const b of ['go', 'rlog-ls']) {
    const r = spawnSync('sh', ['-c', `command -v ${b}`], { env });
    if (r.status === 0) throw new Error(`${b} is still on the PATH given to code-server: ${String(r.stdout).trim()}`);
  }
  return env;
}

let extensionDir;

function prepare() {
  if (!existsSync(codeServer)) throw new Error(`code-server is not installed: run ${join(here, 'install.sh')}`);
  if (!existsSync(chromiumPath)) throw new Error(`Chromium not found at ${chromiumPath} (apt-get install chromium)`);
  rmSync(work, { recursive: true, force: true });
  for (const d of ['data/User', 'extensions', 'ws', 'empty-gopath']) mkdirSync(join(work, d), { recursive: true });
  const vsix = vsixPath();
  run(process.execPath, [codeServer, '--user-data-dir', join(work, 'data'), '--extensions-dir', join(work, 'extensions'),
    '--install-extension', vsix], { env: noGoEnv() });
  const installed = readdirSync(join(work, 'extensions')).filter((d) => d.startsWith('rlog-ls.rlog-ls-'));
  if (installed.length !== 1) throw new Error(`the .vsix did not install: ${readdirSync(join(work, 'extensions'))}`);
  extensionDir = join(work, 'extensions', installed[0]);
  copyFileSync(join(root, 'testdata', 'sample.rlog'), join(work, 'ws', 'sample.rlog'));
  copyFileSync(join(root, 'testdata', 'logs', 'timed.rlog'), join(work, 'ws', 'timed.rlog'));
  // A log and its companion (the session's full record) with a subagent file.
  for (const f of readdirSync(join(root, 'testdata', 'companions', 'sdk'))) {
    copyFileSync(join(root, 'testdata', 'companions', 'sdk', f), join(work, 'ws', f));
  }
  // Over 20 MB, VS Code turns TextMate off: colours must come from the server.
  run('go', ['run', './cmd/rlog-gen', '-size', '25MB', '-seed', '7', '-o', join(work, 'ws', 'large.rlog')], { cwd: root });
  writeFileSync(join(work, 'ws', 'claude-session.jsonl'), claudeSession);
  // Real transcripts as Claude Code writes them under ~/.claude/projects
  // (recorded by the producer harness), for the rlog view: the session with
  // a subagent, cut short, so that the rest can be written while it is
  // shown; and JSON lines of a shape no reader knows.
  const projects = join(root, 'testdata', 'agents', 'claude-code', '2.1.328', 'subagent', 'claude', 'projects');
  cpSync(projects, join(work, 'ws', 'projects'), { recursive: true });
  const lines = readFileSync(transcriptPath(), 'utf8').split(/(?<=\n)/);
  transcriptRest = lines.slice(transcriptCut).join('');
  writeFileSync(transcriptPath(), lines.slice(0, transcriptCut).join(''));
  // The same task run twice by Claude Code with one scripted answer
  // changed (the harness's compare-a and compare-b), for Compare With….
  for (const side of ['a', 'b']) {
    const dir = join(root, 'testdata', 'agents', 'claude-code', '2.1.328', `compare-${side}`, 'claude', 'projects');
    const project = readdirSync(dir)[0];
    const transcript = readdirSync(join(dir, project)).find((f) => f.endsWith('.jsonl'));
    copyFileSync(join(dir, project, transcript), join(work, 'ws', `run-${side}.jsonl`));
  }
  sessionStores();
  writeFileSync(join(work, 'ws', 'unknown-session.jsonl'), '{"at":"2026-11-27T09:48:08Z","kind":"start","payload":{}}\n');
  writeFileSync(join(work, 'ws', 'settings-check.rlog'), settingsCheck);
  writeFileSync(join(work, 'ws', 'follow.rlog'), growingLog);
  writeFileSync(join(work, 'ws', 'complete.rlog'), growingLog);
  // The server's debug log says what each didChange was (docs/live.md).
  writeSettings({ 'rlog.disabledCodes': ['W003'], 'rlog.server.args': ['--log-level', 'debug', '--log-file', serverLog] });
}

/**
 * sessionStores puts recorded sessions in the agents' stores (noGoEnv
 * points the server at them) as run in the workspace folder: Claude Code's
 * write-edit and subagent sessions under projects/ENCODED-FOLDER/ (the
 * second with its sub-agent's file), and Codex CLI's patch rollout with the
 * folder as its cwd.
 */
function sessionStores() {
  const ws = join(work, 'ws');
  for (const scenario of ['write-edit', 'subagent']) {
    const recorded = join(root, 'testdata', 'agents', 'claude-code', '2.1.328', scenario, 'claude', 'projects', `-tmp-rlog-producers-claude-${scenario}-work`);
    cpSync(recorded, join(work, 'claude', 'projects', ws.replace(/[^a-zA-Z0-9]/g, '-')), { recursive: true });
  }
  const day = join(root, 'testdata', 'agents', 'codex', '0.169.0', 'patch', 'codex-home', 'sessions', '2026', '11', '27');
  const to = join(work, 'codex', 'sessions', '2026', '11', '27');
  mkdirSync(to, { recursive: true });
  for (const f of readdirSync(day)) {
    writeFileSync(join(to, f), readFileSync(join(day, f), 'utf8').replaceAll('/tmp/rlog-producers/codex/patch/work', ws));
  }
}

// The recorded transcript the rlog view is tried on, and the lines of it
// written while the view is open.
const transcriptName = '8d6b59c6-27db-4aed-8b2b-f2f27d16e2de.jsonl';
const transcriptCut = 26;
let transcriptRest = '';
function transcriptPath() {
  return join(work, 'ws', 'projects', '-tmp-rlog-producers-claude-subagent-work', transcriptName);
}

/** Whether the panel was open before the view's checks hid it. */
let panelWasOpen = false;

/** converted is what `rlog-ls convert --to rlog` writes of a file, which its view must show. */
function converted(file) {
  const r = spawnSync('go', ['run', './cmd/rlog-ls', 'convert', '--to', 'rlog', '-o', '-', file], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`rlog-ls convert ${file}: ${r.stderr}`);
  return r.stdout;
}

/** lineCol is the 1-based line and column of the first occurrence of s in text, plus skip. */
function lineCol(text, s, skip = 0) {
  const i = text.indexOf(s);
  if (i < 0) throw new Error(`${JSON.stringify(s)} is not in the text`);
  const before = text.slice(0, i);
  return [before.split('\n').length, i - before.lastIndexOf('\n') + skip];
}

// A small Claude Code session (the JSONL Claude Code writes under
// ~/.claude/projects), for the conversion to rlog.
const claudeSession = [
  { type: 'user', sessionId: 'e2e-session-0001', uuid: '11111111-1111-4111-8111-111111111111', parentUuid: null,
    timestamp: '2025-12-19T20:29:02.000Z', cwd: '/tmp/shop', version: '2.0.65', gitBranch: 'main',
    message: { role: 'user', content: 'Which files are in the project?' } },
  { type: 'assistant', sessionId: 'e2e-session-0001', uuid: '22222222-2222-4222-8222-222222222222',
    parentUuid: '11111111-1111-4111-8111-111111111111', timestamp: '2025-12-19T20:29:05.000Z',
    message: { id: 'msg_01', role: 'assistant', model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'tool_use', id: 'toolu_01ABCDEF', name: 'Bash', input: { command: 'ls' } }],
      usage: { input_tokens: 10, output_tokens: 5 } } },
  { type: 'user', sessionId: 'e2e-session-0001', uuid: '33333333-3333-4333-8333-333333333333',
    parentUuid: '22222222-2222-4222-8222-222222222222', timestamp: '2025-12-19T20:29:06.000Z',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01ABCDEF', content: 'README.md\nsrc' }] } },
].map((e) => JSON.stringify(e)).join('\n') + '\n';

// A log with a W002 and a W003, for rlog.disabledCodes (W003 is disabled).
const settingsCheck = `---
format: rlog/1
id: settings-check
repo_sha: 4f2a9c1e
runner: local
---
@start id=s1 ts=2025-12-19T20:29:02Z
o: id=nope1234 → [ok] an observation of a call never started
this line is not rlog
@end
`;

// A session still running: one call has its result, one has not.
const growingLog = `---
format: rlog/1
id: growing
repo_sha: 4f2a9c1e
runner: local
---
@start id=g ts=2025-12-19T20:29:02Z
u: build it
t!:Read id=done42ab file_path=Makefile → [running]
o: id=done42ab → [ok] 12 lines
t!:Bash id=run42abc cmd="make" → [running]
`;

const serverLog = join(work, 'server.log');

/** didChanges lists what the server logged of each didChange of a file. */
function didChanges(name) {
  if (!existsSync(serverLog)) return [];
  return readFileSync(serverLog, 'utf8').split('\n')
    .filter((l) => /\bdidChange\t/.test(l) && l.includes(name))
    .map((l) => JSON.parse(l.slice(l.indexOf('{'))));
}

function writeSettings(extra) {
  const settings = {
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.colorTheme': 'Default Dark Modern',
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'chat.commandCenter.enabled': false,
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true,
    'git.enabled': false,
    'editor.minimap.enabled': false,
    'editor.stickyScroll.enabled': false,
    'editor.fontSize': 13,
    'editor.hover.delay': 100,
    'files.simpleDialog.enable': true,
    ...extra,
  };
  writeFileSync(join(work, 'data', 'User', 'settings.json'), JSON.stringify(settings, null, 2));
}

async function startCodeServer() {
  const port = await freePort();
  const env = noGoEnv();
  const cs = spawn(process.execPath, [codeServer, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override',
    '--ignore-last-opened', '--user-data-dir', join(work, 'data'), '--extensions-dir', join(work, 'extensions'),
    join(work, 'ws')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  cs.stdout.on('data', (b) => { out += b; });
  cs.stderr.on('data', (b) => { out += b; });
  const deadline = Date.now() + 60_000;
  while (!out.includes('HTTP server listening')) {
    if (cs.exitCode !== null) throw new Error(`code-server exited (${cs.exitCode}):\n${out}`);
    if (Date.now() > deadline) throw new Error(`code-server did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  log(`code-server listening on ${port}`);
  return { cs, url: `http://127.0.0.1:${port}/?folder=${encodeURIComponent(join(work, 'ws'))}`, output: () => out };
}

/** Checks whose names match RLOG_E2E_ONLY (a regular expression) run; the others are skipped. */
const only = process.env.RLOG_E2E_ONLY ? new RegExp(process.env.RLOG_E2E_ONLY) : null;
let currentPage;

async function check(name, fn) {
  if (only && !only.test(name)) {
    log(`skip ${name} (RLOG_E2E_ONLY)`);
    return;
  }
  const t = Date.now();
  try {
    await fn();
    log(`ok   ${name} (${Date.now() - t} ms)`);
  } catch (e) {
    failures++;
    log(`FAIL ${name}: ${e && e.message ? e.message : e}`);
    // What the editor showed when the check failed.
    const shot = join(work, `failure-${name.replace(/[^a-z0-9]+/gi, '-')}.png`);
    if (currentPage) await currentPage.screenshot({ path: shot }).catch(() => {});
    log(`     screenshot: ${shot}`);
  }
}

/** commandPalette runs a command by its title, as a user would. */
async function commandPalette(page, title) {
  await quickInput(page, 'F1', `>${title}`, page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first());
}

/** explorerIcon is the Explorer's icon in the activity bar. */
function explorerIcon(page) {
  return page.locator('.part.activitybar .action-label[aria-label^="Explorer"]').first();
}

/**
 * quickInput opens the quick input with key, types text and presses Enter
 * once row shows. A view that takes the focus as it settles (a tree view
 * refreshing, the call hierarchy filling in) closes the quick input, as it
 * would a user's: then it is opened again, as a user would, up to three
 * times.
 */
async function quickInput(page, key, text, row) {
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press(key);
    const input = page.locator('.quick-input-widget input');
    try {
      await input.waitFor({ state: 'visible', timeout: attempt < 3 ? 5_000 : 30_000 });
    } catch (e) {
      if (attempt === 3) throw e;
      // The key went nowhere: the focus is in no part of the workbench
      // (a tree that took it and let it go). Give it back with a click on
      // the explorer's icon, as a user would, and try again.
      log(`quick input "${text}": did not open, attempt ${attempt + 1}`);
      await explorerIcon(page).click();
      continue;
    }
    try {
      // The quick input can close between showing and the typing (CI saw
      // the fill wait 30 s on a closed widget): then it is opened again.
      await input.fill(text, { timeout: attempt < 3 ? 5_000 : 10_000 });
      await row.waitFor({ state: 'visible', timeout: attempt < 3 ? 5_000 : 10_000 });
      await page.keyboard.press('Enter');
      return;
    } catch (e) {
      if (attempt === 3) throw e;
      log(`quick input "${text}": closed before its row showed, attempt ${attempt + 1}`);
      await page.keyboard.press('Escape');
    }
  }
}

/**
 * openFile opens a file of the workspace with Quick Open, as a user would.
 * Enter opens the focused row: wait until the filter has put the file
 * there (the list first shows the recently opened files, in their order).
 */
async function openFile(page, name) {
  await quickInput(page, 'Control+P', name, page.locator('.quick-input-list .monaco-list-row.focused', { hasText: name }).first());
  // The active group's: with two groups, each has an active tab, and a
  // file can be open in both.
  await page.locator('.editor-group-container.active .tab.active', { hasText: name }).waitFor();
}

/**
 * explorerMenu chooses item in the explorer's context menu of the active
 * editor's file (its row named name), as a user does.
 */
async function explorerMenu(page, name, item) {
  await commandPalette(page, 'File: Reveal Active File in Explorer View');
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: name });
  await row.click({ button: 'right' });
  // The menu ignores a click that comes right after it opened: choose the item pointing at it.
  const entry = page.locator('.monaco-menu .action-item', { hasText: item });
  await entry.hover();
  await until('the menu item under the pointer', async () => (await entry.getAttribute('class') ?? '').includes('focused'));
  await page.keyboard.press('Enter');
}

async function goTo(page, line, col) {
  await page.keyboard.press('Control+G');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`:${line}:${col}`);
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden' });
}

/**
 * hoverUntil shows the hover at the cursor, as a user would with Show or
 * Focus Hover, and returns its text once want holds of it. A hover that
 * closes before the server's answer fills it in (the focus moving, a busy
 * machine) is asked for again, as a user would, until the deadline.
 */
async function hoverUntil(page, what, want, timeout = 60_000) {
  const hover = page.locator('.monaco-hover:not(.hidden)');
  const deadline = Date.now() + timeout;
  for (let attempt = 1; ; attempt++) {
    await commandPalette(page, 'Show or Focus Hover');
    try {
      return await until(what, async () => {
        const s = await textOf(hover);
        return want(s) ? s : null;
      }, Math.min(20_000, Math.max(1, deadline - Date.now())));
    } catch (e) {
      if (Date.now() >= deadline) throw e;
      log(`hover "${what}": not shown, attempt ${attempt + 1}`);
      await page.keyboard.press('Escape');
    }
  }
}

/** outputLog is the text of the extension's "rlog" output channel. */
function outputLog() {
  const logs = join(work, 'data', 'logs');
  let text = '';
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/^\d+-rlog\.log$/.test(e.name)) text += readFileSync(p, 'utf8');
    }
  };
  if (existsSync(logs)) walk(logs);
  return text;
}

/** groupEditorText is the text of the lines the editor of the active group shows (with editors side by side). */
async function groupEditorText(page) {
  const t = await textOf(page.locator('.editor-group-container.active .editor-instance .view-lines'));
  return t.replace(/\u00a0/g, ' ');
}

/** activeEditorText is the text of the lines the visible editor shows. */
async function activeEditorText(page) {
  return page.evaluate(() => {
    const editor = [...document.querySelectorAll('.editor-instance')].find((e) => e.offsetParent !== null);
    // Spaces are drawn as no-break spaces.
    return editor ? editor.querySelector('.view-lines').innerText.replace(/\u00a0/g, ' ') : '';
  });
}

async function textOf(locator) {
  return (await locator.allInnerTexts()).join('\n');
}

async function until(what, fn, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function main() {
  prepare();
  const { chromium } = await import('playwright-core');
  const server = await startCodeServer();
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // As root, Chromium needs --no-sandbox; the rest keep it off the network.
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  currentPage = page;
  page.setDefaultTimeout(30_000);
  try {
    await page.goto(server.url);
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
    log('workbench loaded');

    await check('open sample.rlog in the rlog language', async () => {
      await page.keyboard.press('Control+P');
      const input = page.locator('.quick-input-widget input');
      await input.fill('sample.rlog');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'sample.rlog' }).first().waitFor();
      await page.keyboard.press('Enter');
      await page.locator('.monaco-editor .view-lines').first().waitFor();
      await until('the language mode "rlog" in the status bar',
        async () => (await textOf(page.locator('.statusbar-item'))).includes('rlog'));
      // The extension's output says which binary it started, and why: the
      // one inside the package.
      await until('the server started from the package', () => outputLog().includes(
        `rlog: starting ${join(extensionDir, 'server', 'rlog-ls')} (from the extension)`));
    });

    await check('syntax colours from the grammar and the server', async () => {
      // Default Dark Modern colours of the scopes the grammar (and the
      // server's semantic tokens, mapped onto the same scopes) give: the
      // prefix is keyword.control, the tool entity.name.function, the id
      // variable.other.constant, the timestamp constant.numeric.
      const want = { 't!:': 'rgb(197, 134, 192)', Read: 'rgb(220, 220, 170)', v678oiff: 'rgb(79, 193, 255)',
        '2025-12-19T20:29:02Z': 'rgb(181, 206, 168)', '[running]': 'rgb(86, 156, 214)' };
      await until('coloured tokens', async () => {
        const got = await page.evaluate((texts) => {
          const out = {};
          for (const span of document.querySelectorAll('.view-line span span')) {
            const t = span.textContent;
            if (t in texts && !(t in out)) out[t] = getComputedStyle(span).color;
          }
          // [running] is split by bracket colourisation when it is on; take its word.
          for (const span of document.querySelectorAll('.view-line span span')) {
            if (span.textContent === 'running' && !('[running]' in out)) out['[running]'] = getComputedStyle(span).color;
          }
          return out;
        }, want);
        for (const [t, c] of Object.entries(want)) {
          if (got[t] !== c) throw new Error(`${t} is ${got[t]}, want ${c}`);
        }
        return true;
      });
    });

    await check('Problems panel lists the server diagnostics', async () => {
      await commandPalette(page, 'View: Focus Problems');
      const panel = page.locator('.markers-panel');
      const text = await until('W002 in Problems', async () => {
        const t = await textOf(panel);
        return t.includes('W002') && t.includes('Observation references unknown call id: Zz9xY8wQ') ? t : null;
      }, 30_000);
      if (!/sample\.rlog/.test(text)) throw new Error(`no file name in Problems: ${text}`);
    });

    await check('rlog.disabledCodes reaches the server', async () => {
      await openFile(page, 'settings-check.rlog');
      const panel = page.locator('.markers-panel');
      const t = await until('the W002 of settings-check.rlog', async () => {
        const s = await textOf(panel);
        return s.includes('nope1234') ? s : null;
      });
      if (t.includes('W003') || t.includes('Unknown line format')) throw new Error(`W003 is disabled but shown:\n${t}`);
      // Back to the sample for the checks that follow.
      await page.locator('.tab', { hasText: 'sample.rlog' }).click();
      await page.locator('.tab.active', { hasText: 'sample.rlog' }).waitFor();
    });

    await check('outline lists the session phases', async () => {
      await commandPalette(page, 'Explorer: Focus on Outline View');
      const outline = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Outline' }) });
      await until('phases in the outline', async () => {
        const t = await textOf(outline.locator('.monaco-list-row'));
        return t.includes('explore') && t.includes('Read src/discount/validate.ts') && t.includes('3f1c9a2e-demo');
      });
    });

    await check('hover on an id says which call it names', async () => {
      await page.locator('.monaco-editor .view-lines').first().click();
      await goTo(page, 24, 10); // o: id=v678oiff → [ok] ...
      const t = await hoverUntil(page, 'hover text', (s) => s.includes('v678oiff') && /Read/.test(s));
      log(`hover: ${t.replace(/\s+/g, ' ').slice(0, 160)}`);
      mkdirSync(dirname(screenshotPath), { recursive: true });
      await page.screenshot({ path: screenshotPath });
      log(`screenshot: ${screenshotPath}`);
    });

    await check('a log beside its companion: the full output in the hover', async () => {
      await page.keyboard.press('Escape');
      await openFile(page, '222000-fix-locked-login.rlog');
      await page.locator('.monaco-editor .view-lines').first().click();
      await goTo(page, 19, 30); // o: id=v678oiff → [ok]      1→use crate::session::{Session, SessionStore};...
      await hoverUntil(page, 'the full output in the hover', (s) => s.includes('Output of Read') &&
        s.includes('BUG: the session is created before the lockout check.') && s.includes('Store(String),'));
      await page.keyboard.press('Escape');
    });

    await check('a code lens on each cut-short output', async () => {
      await until('the lens on line 19', async () => (await textOf(page.locator('.codelens-decoration')))
        .includes('Full output: ') && (await textOf(page.locator('.codelens-decoration'))).includes('in 222000-fix-locked-login.jsonl line 4'));
    });

    await check('Go to Definition opens the companion at the record, and leads back', async () => {
      await goTo(page, 19, 3);
      await commandPalette(page, 'Go to Definition');
      await page.locator('.tab.active', { hasText: '222000-fix-locked-login.jsonl' }).waitFor();
      await until('the cursor on line 4 of the companion', async () => /Ln 4, Col 5[0-9]/.test(await textOf(page.locator('.statusbar-item'))));
      // In the companion, the server answers too: back to the log's line.
      await commandPalette(page, 'Go to Definition');
      await page.locator('.tab.active', { hasText: '222000-fix-locked-login.rlog' }).waitFor();
      await until('the cursor on line 19 of the log', async () => (await textOf(page.locator('.statusbar-item'))).includes('Ln 19, Col 1'));
    });

    await check('rlog: Show Full Record opens the output as a read-only document', async () => {
      await goTo(page, 19, 30);
      await commandPalette(page, 'rlog: Show Full Record of This Line');
      const tab = page.locator('.tab', { hasText: 'line 19 - Output of Read' }).first();
      await tab.waitFor();
      try {
        await until('the whole output in it', async () => {
          // The editor renders spaces as no-break spaces.
          const t = (await textOf(page.locator('.editor-instance .view-lines'))).replace(/\u00a0/g, ' ');
          return t.includes('BUG: the session is created') && t.includes('24→}');
        });
        // Read-only: typing changes nothing.
        await page.locator('.tab.active', { hasText: 'line 19 - Output of Read' }).waitFor();
        await page.keyboard.type('x');
        await until('the read-only message', async () => (await textOf(page.locator('.monaco-editor-overlaymessage'))).includes('read-only'));
      } finally {
        // Close it and the tabs the jumps opened; the checks that follow
        // start from sample.rlog.
        await page.keyboard.press('Escape');
        await commandPalette(page, 'View: Close All Editors');
        await openFile(page, 'sample.rlog');
      }
    });

    await check('a Claude Code transcript opens as an rlog view', async () => {
      await page.keyboard.press('Escape');
      // The whole height for the transcript and its view (the panel comes back at the end).
      panelWasOpen = await page.locator('.part.panel').isVisible();
      if (panelWasOpen) await commandPalette(page, 'View: Hide Panel');
      await openFile(page, transcriptName);
      // The editor title's action: the server read the file and says it is a session.
      const action = page.locator('.editor-actions .action-label[aria-label="Open as rlog View"]');
      await action.waitFor();
      await action.click();
      const viewTab = page.locator(`.tab.active[data-resource-name="${transcriptName}.rlog"]`);
      await viewTab.waitFor();
      const want = converted(transcriptPath());
      await until('the view: the transcript as rlog', async () => {
        const t = await groupEditorText(page);
        return t.includes('format: rlog/1') && t.includes('id: 8d6b59c6-27db-4aed-8b2b-f2f27d16e2de') && t.includes('u: Find out which version this folder is at');
      }, 30_000);
      // The hover on an output the view cut short: the whole record.
      const [line, col] = lineCol(want, 'o: id=toolu_sub_agent → [ok] Async agent launched successfully.', 40);
      await page.locator('.editor-group-container.active .monaco-editor .view-lines').click();
      // The whole window for the transcript and its view, side by side.
      await commandPalette(page, 'View: Toggle Primary Side Bar Visibility');
      await goTo(page, line, col);
      await hoverUntil(page, 'the full record in the hover', (s) => s.includes('in full, from') && s.includes(transcriptName) && s.includes('agentId: ad1d58fb8290d2b47'));
      // The hover fades in: the picture once it has.
      await until('the hover drawn', () => page.evaluate(() => [...document.querySelectorAll('.monaco-hover:not(.hidden)')]
        .every((h) => getComputedStyle(h).opacity === '1')));
      await page.waitForTimeout(300);
      const dir = dirname(screenshotPath);
      await page.screenshot({ path: join(dir, 'vscode-claude-view.png') });
      log(`screenshot: ${join(dir, 'vscode-claude-view.png')}`);
      await page.keyboard.press('Escape');
      await commandPalette(page, 'View: Toggle Primary Side Bar Visibility');
      // Read only.
      await page.keyboard.type('x');
      await until('the read-only message', async () => (await textOf(page.locator('.monaco-editor-overlaymessage'))).includes('read-only'));
      await page.keyboard.press('Escape');
      // What the view does not carry, on its first line.
      await goTo(page, 1, 2);
      await hoverUntil(page, 'the loss report in the header hover', (s) => s.includes('rlog view of') && s.includes('What the view does not carry') && s.includes('dropped_event'));
      await page.keyboard.press('Escape');
      // Go to Definition lands in the transcript, on the record.
      await goTo(page, line, col);
      await commandPalette(page, 'Go to Definition');
      // In the active group: VS Code opens the target beside the view or
      // goes to the transcript's own group, as its timing has it; either
      // way that group's active tab is the transcript.
      await page.locator(`.editor-group-container.active .tab.active[data-resource-name="${transcriptName}"]`).waitFor();
      const record = readFileSync(transcriptPath(), 'utf8').split('\n').findIndex((l) => l.includes('"tool_use_id":"toolu_sub_agent"')) + 1;
      await until(`the cursor on line ${record} of the transcript`, async () => (await textOf(page.locator('.statusbar-item'))).includes(`Ln ${record},`));
      // And back: the transcript leads to the view's line.
      await commandPalette(page, 'Go to Definition');
      await viewTab.waitFor();
      await until(`the cursor on line ${line} of the view`, async () => (await textOf(page.locator('.statusbar-item'))).includes(`Ln ${line}, Col 1`));
    });

    await check('the view follows a transcript still being written', async () => {
      // Claude Code writes the rest of the session.
      appendFileSync(transcriptPath(), transcriptRest);
      const want = converted(transcriptPath());
      const last = 'a: This folder is at version 1.4.2.';
      if (!want.includes(last)) throw new Error(`the conversion lacks ${last}`);
      await page.keyboard.press('Control+End');
      await until('the new lines in the view', async () => (await groupEditorText(page)).includes(last), 30_000);
      // The server got the view's new text as edits (VS Code's didChange).
      const changes = await until('the view\'s didChange', () => {
        const c = didChanges(`${transcriptName}.rlog`);
        return c.length > 0 ? c : null;
      });
      log(`the view's didChange: ${JSON.stringify(changes.at(-1))}`);
      if (changes.some((c) => c.wholeDocument !== 0)) throw new Error(`the view reached the server as ${JSON.stringify(changes)}`);
      await commandPalette(page, 'View: Close All Editors');
    });

    await check('the sub-agent tree: call hierarchy from a transcript\'s view to its sub-agent\'s and back', async () => {
      await openFile(page, transcriptName);
      const action = page.locator('.editor-actions .action-label[aria-label="Open as rlog View"]');
      await action.waitFor();
      await action.click();
      await page.locator(`.tab.active[data-resource-name="${transcriptName}.rlog"]`).waitFor();
      await until('the view', async () => (await groupEditorText(page)).includes('format: rlog/1'), 30_000);
      await page.locator('.editor-group-container.active .monaco-editor .view-lines').click();
      await goTo(page, 1, 1);
      // The server advertises call hierarchy; VS Code's own view shows it
      // (the session at its root), then the calls it makes.
      await commandPalette(page, 'Calls: Show Call Hierarchy');
      const rows = page.locator('.part.sidebar .monaco-list-row');
      await until('the session at the root', async () => (await textOf(rows)).includes(transcriptName), 30_000);
      await page.locator('.part.sidebar .action-label[aria-label="Show Outgoing Calls"]').first().click();
      const sub = rows.filter({ hasText: 'general-purpose' }).first();
      await until('the sub-agent under the session', async () => (await textOf(rows)).includes('general-purpose'), 30_000);
      // An entry opens the sub-agent's own view, made by the server.
      await sub.dblclick();
      const subView = 'agent-ad1d58fb8290d2b47.jsonl.rlog';
      await until('the sub-agent\'s view', async () => (await textOf(page.locator('.tab.active'))).includes(subView)
        && (await groupEditorText(page)).includes('Read the VERSION file'), 30_000);
      // And back: the session that started it.
      await page.locator('.editor-group-container.active .monaco-editor .view-lines').click();
      await goTo(page, 1, 1);
      await commandPalette(page, 'Calls: Show Call Hierarchy');
      await until('the sub-agent at the root', async () => (await textOf(rows)).includes('agent-ad1d58fb8290d2b47.jsonl'), 30_000);
      await page.locator('.part.sidebar .action-label[aria-label="Show Incoming Calls"]').first().click();
      await until('the session above the sub-agent', async () => {
        const t = await textOf(rows);
        return t.includes('general-purpose') && t.includes(transcriptName);
      }, 30_000);
      // Back in the editor, close them all. The tree may take the focus as it
      // settles, which closes the command palette: try again then.
      for (let i = 0; ; i++) {
        await page.locator('.editor-group-container.active .monaco-editor .view-lines').click();
        try {
          await commandPalette(page, 'View: Close All Editors');
          break;
        } catch (e) {
          if (i === 2) throw e;
          await page.keyboard.press('Escape');
        }
      }
      // The side bar back on the explorer: the call hierarchy's tree would
      // keep taking the focus from the quick inputs of the checks after. A
      // click while that tree still fills in can be lost (CI saw the icon's
      // tooltip and no explorer once): click again, as a user would.
      for (let i = 0; ; i++) {
        await explorerIcon(page).click();
        try {
          await page.locator('.part.sidebar .explorer-folders-view').waitFor({ timeout: 10000 });
          break;
        } catch (e) {
          if (i === 2) throw e;
        }
      }
    });

    await check('a session rlog-ls cannot read says so, from the explorer', async () => {
      await openFile(page, 'unknown-session.jsonl');
      // No action in the editor title: the server said it does not read it.
      await until('the server\'s answer about the file', () => outputLog().includes('unknown-session.jsonl is not a session rlog-ls shows as rlog'));
      if (await page.locator('.editor-actions .action-label[aria-label="Open as rlog View"]').count() > 0) {
        throw new Error('Open as rlog View is offered on JSON of no known shape');
      }
      await explorerMenu(page, 'unknown-session.jsonl', 'Open as rlog View');
      const toast = page.locator('.notifications-toasts');
      await until('the message that says why', async () => {
        const t = await textOf(toast);
        return t.includes('unknown-session.jsonl cannot be opened as rlog') && t.includes('is not a session rlog-ls reads');
      }, 30_000);
      await commandPalette(page, 'Notifications: Clear All Notifications');
      await commandPalette(page, 'View: Close All Editors');
      // The panel as the checks before left it.
      if (panelWasOpen) await commandPalette(page, 'View: Focus Problems');
      await openFile(page, 'sample.rlog');
    });

    await check('Compare With… shows two runs in the diff editor, masked', async () => {
      await page.keyboard.press('Escape');
      panelWasOpen = await page.locator('.part.panel').isVisible();
      if (panelWasOpen) await commandPalette(page, 'View: Hide Panel');
      await openFile(page, 'run-a.jsonl');
      const problemCounts = async () => (await textOf(page.locator('.statusbar-item').filter({ has: page.locator('.codicon-error') }))).replace(/\s+/g, ' ');
      const before = await problemCounts();
      // From the explorer's context menu, as a user would.
      await explorerMenu(page, 'run-a.jsonl', 'Compare With…');
      // The other session, from the workspace's session files.
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible' });
      await input.fill('run-b');
      await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: 'run-b.jsonl' }).first().waitFor();
      await page.keyboard.press('Enter');
      await page.locator('.tab.active', { hasText: 'run-a.jsonl.rlog ↔ run-b.jsonl.rlog' }).or(
        page.locator('.tab.active', { hasText: '(masked)' })).first().waitFor();
      // Both sides, masked: no timestamps, ids or token counts, the
      // session's folder as {cwd}; the changed answer is the change.
      const diff = page.locator('.monaco-diff-editor');
      await until('the two masked views side by side', async () => {
        const t = (await textOf(diff.locator('.view-lines'))).replace(/\u00a0/g, ' ');
        return t.includes('cmd="wc -l notes.txt"') && t.includes('cmd="wc -w notes.txt"') && t.includes('file_path={cwd}/notes.txt') &&
          t.includes('ts=…') && !/ts=20\d\d-/.test(t) && !t.includes('toolu_cmp_') ? t : null;
      }, 30_000);
      // Only the changed answer differs: two lines a side (the message and
      // the call), and the masked documents are not checked as logs.
      await until('the changed lines marked', async () => await diff.locator('.editor.original .line-delete').count() === 2 &&
        await diff.locator('.editor.modified .line-insert').count() === 2);
      // The server got no masked document: no new problems (a masked ts=…
      // would be one).
      await page.waitForTimeout(2000);
      const after = await problemCounts();
      if (after !== before) throw new Error(`problems went from ${before} to ${after} with the masked views open`);
      await page.keyboard.press('Escape');
      await page.mouse.move(0, 0);
      await page.waitForTimeout(300);
      const dir = dirname(screenshotPath);
      await page.screenshot({ path: join(dir, 'vscode-compare.png') });
      log(`screenshot: ${join(dir, 'vscode-compare.png')}`);
      await commandPalette(page, 'View: Close All Editors');
      if (panelWasOpen) await commandPalette(page, 'View: Focus Problems');
      await openFile(page, 'sample.rlog');
    });

    await check('the Sessions view lists the folder\'s sessions and opens one', async () => {
      await page.keyboard.press('Escape');
      await commandPalette(page, 'View: Close All Editors');
      await commandPalette(page, 'View: Show Explorer');
      // The explorer's sections but the Sessions view folded, so that it
      // has the room, and the side bar wider, for the picture.
      const folders = page.locator('.explorer-viewlet .pane-header').first();
      const foldersWereOpen = (await folders.getAttribute('aria-expanded')) === 'true';
      if (foldersWereOpen) await folders.click();
      for (const name of ['Outline', 'Timeline']) {
        const header = page.locator(`.pane-header[aria-label^="${name}"][aria-expanded="true"]`);
        if (await header.count() > 0) await header.first().click();
      }
      const side = await page.locator('.part.sidebar').boundingBox();
      if (side) {
        await page.mouse.move(side.x + side.width + 1, side.y + side.height / 2);
        await page.mouse.down();
        await page.mouse.move(side.x + 560, side.y + side.height / 2, { steps: 5 });
        await page.mouse.up();
      }
      const header = page.locator('.pane-header[aria-label^="Sessions"]');
      await header.waitFor();
      if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
      const rows = page.locator('.pane-body .monaco-list-row');
      // Grouped by day: the recorded sessions ran on 2026-11-27; the
      // workspace's logs are listed by their time.
      await until('the recorded sessions in the view', async () => {
        const t = await textOf(rows);
        return t.includes('Create greet.sh that prints hello') && t.includes('claude-code') &&
          t.includes('Create notes.md, then edit its second line.') && t.includes('codex');
      }, 60_000);
      // A session's sub-agents are its children.
      const parent = rows.filter({ hasText: 'Find out which version this folder is at' }).first();
      await parent.locator('.monaco-tl-twistie').click();
      await until('the sub-agent under its session', async () => (await textOf(rows)).includes('sub-agent'));
      const dir = dirname(screenshotPath);
      const claude = rows.filter({ hasText: 'Create greet.sh that prints hello' }).first();
      await claude.hover();
      await page.waitForTimeout(300);
      await claude.click();
      // A transcript opens as its rlog view.
      await page.locator('.tab.active[data-resource-name="63a675e2-d9bb-4137-8655-f2f72ba481e0.jsonl.rlog"]').waitFor();
      await until('the view of the session', async () => (await groupEditorText(page)).includes('u: Create greet.sh that prints hello'), 30_000);
      await page.screenshot({ path: join(dir, 'vscode-sessions.png') });
      log(`screenshot: ${join(dir, 'vscode-sessions.png')}`);
      // Its context menu has the session's actions.
      await claude.click({ button: 'right' });
      for (const item of ['Show Session View', 'Compare With…', 'Convert…', 'Redact a Copy…']) {
        await page.locator('.monaco-menu .action-item', { hasText: item }).first().waitFor();
      }
      await page.keyboard.press('Escape');
      await commandPalette(page, 'View: Close All Editors');
      if (foldersWereOpen) await folders.click();
      await openFile(page, 'sample.rlog');
    });

    await check('a 25 MB log keeps its colours through semantic tokens', async () => {
      await page.keyboard.press('Escape');
      await openFile(page, 'large.rlog');
      // In a remote window VS Code asks before opening a file over 10 MB.
      await page.getByRole('button', { name: 'Open Anyway' }).click();
      // The same colours as in the small log, though TextMate is off here:
      // the u: prefix, a key and a call id.
      const want = { 'u:': 'rgb(197, 134, 192)', id: 'rgb(156, 220, 254)', gen: 'rgb(79, 193, 255)' };
      await until('semantic colours in the large log', async () => {
        const got = await page.evaluate((texts) => {
          const out = {};
          const editor = [...document.querySelectorAll('.editor-instance')].find((e) => e.offsetParent !== null) || document;
          for (const span of editor.querySelectorAll('.view-line span span')) {
            const t = span.textContent;
            if (t in texts && !(t in out)) out[t] = getComputedStyle(span).color;
          }
          return out;
        }, want);
        for (const [t, c] of Object.entries(want)) {
          if (got[t] !== c) throw new Error(`${t} is ${got[t]}, want ${c}`);
        }
        return true;
      }, 120_000);
      await page.keyboard.press('Control+W');
      await page.locator('.tab.active', { hasText: 'large.rlog' }).waitFor({ state: 'detached' });
    });

    await check('convert this rlog file to ATIF', async () => {
      await page.keyboard.press('Escape');
      await page.locator('.monaco-editor .view-lines').first().click();
      await commandPalette(page, 'rlog: Convert This File');
      const input = page.locator('.quick-input-widget input');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Convert to ATIF' }).waitFor();
      await input.fill('ATIF');
      await page.keyboard.press('Enter');
      const out = join(work, 'ws', 'sample.atif.json');
      const atif = await until('sample.atif.json with the session', () => {
        if (!existsSync(out)) return null;
        try { return JSON.parse(readFileSync(out, 'utf8')); } catch { return null; }
      });
      if (!String(atif.schema_version).startsWith('ATIF') || !Array.isArray(atif.steps) || atif.steps.length === 0) {
        throw new Error(`not an ATIF trajectory: ${JSON.stringify(atif).slice(0, 200)}`);
      }
    });

    await check('convert a Claude Code JSONL file to rlog', async () => {
      await page.keyboard.press('Escape');
      await openFile(page, 'claude-session.jsonl');
      await commandPalette(page, 'rlog: Convert This File');
      const out = join(work, 'ws', 'claude-session.converted.rlog');
      const text = await until('claude-session.converted.rlog', () => {
        const t = existsSync(out) ? readFileSync(out, 'utf8') : '';
        return t.includes('format: rlog/1') && t.includes('t!:Bash id=toolu_01ABCDEF') ? t : null;
      });
      void text;
      // The new log is shown, in the rlog language.
      await page.locator('.tab.active', { hasText: 'claude-session.converted.rlog' }).waitFor();
      await until('the rlog language mode', async () => (await textOf(page.locator('.statusbar-item'))).includes('rlog'));
    });

    await check('completion offers the call without a result first', async () => {
      await page.keyboard.press('Escape');
      await openFile(page, 'complete.rlog');
      await page.locator('.monaco-editor .view-lines').first().click();
      await page.keyboard.press('Control+End');
      await page.keyboard.type('o: id=', { delay: 30 });
      const widget = page.locator('.suggest-widget .monaco-list-row');
      const labels = await until('call ids in the suggestions', async () => {
        const rows = await widget.allInnerTexts();
        // The widget's rows are drawn before their labels: wait for both.
        return rows.length >= 2 && rows.every((r) => r.trim() !== '') ? rows : null;
      });
      if (!labels[0].includes('run42abc') || !labels[1].includes('done42ab')) {
        throw new Error(`suggestions ${JSON.stringify(labels)}: want run42abc (no result yet) before done42ab`);
      }
      await page.keyboard.press('Enter');
      await until('the id inserted', async () => (await activeEditorText(page)).includes('o: id=run42abc'));
      await commandPalette(page, 'File: Revert File');
    });

    await check('follow keeps the end of a growing log in view', async () => {
      await openFile(page, 'follow.rlog');
      const follow = page.locator('.statusbar-item', { hasText: 'Follow' });
      await until('the Follow item in the status bar', async () => (await textOf(follow)).includes('Follow'));
      await commandPalette(page, 'rlog: Toggle Follow');
      await until('Follow on', async () => (await textOf(follow)).includes('Following'));
      // The agent writes on: 300 lines, the last one far below the window.
      const lines = [];
      for (let i = 1; i <= 300; i++) lines.push(`a: step ${i} of the growing log`);
      appendFileSync(join(work, 'ws', 'follow.rlog'), lines.join('\n') + '\no: id=run42abc → [ok] built\n');
      await until('the last line in view', async () => (await activeEditorText(page)).includes('o: id=run42abc → [ok] built'), 30_000);
      const changes = didChanges('follow.rlog');
      log(`VS Code's didChange on reload: ${JSON.stringify(changes.at(-1))}`);
      const last = changes.at(-1);
      if (!last || last.ranged !== 1 || last.wholeDocument !== 0 || last.appended !== true) {
        throw new Error(`the reload reached the server as ${JSON.stringify(changes)}, want one ranged change that appends`);
      }
      await commandPalette(page, 'rlog: Toggle Follow');
      await until('Follow off', async () => !(await textOf(follow)).includes('Following'));
    });

    await check('code lenses, inlay hints and the session view', async () => {
      await page.keyboard.press('Escape');
      await openFile(page, 'timed.rlog');
      // The whole window for the log (lenses are drawn for the lines in
      // view): no panel, no side bar (shown again at the end). The palette
      // offers View: Hide Panel only while the panel shows.
      if (await page.locator('.part.panel').isVisible()) await commandPalette(page, 'View: Hide Panel');
      await commandPalette(page, 'View: Toggle Primary Side Bar Visibility');
      await goTo(page, 1, 1);
      // The lenses above the header and each @phase, with the session's numbers.
      const lenses = page.locator('.codelens-decoration');
      const lensText = await until('the code lenses', async () => {
        const t = await textOf(lenses);
        return t.includes('Session: 3m 58s') && t.includes('explore: 18s') && t.includes('fix: 3m 39s') ? t : null;
      }, 60_000);
      log(`lenses: ${lensText.replace(/\s+/g, ' ').slice(0, 200)}`);
      // The inlay hints: the first Read's 92ms and the failed Bash call's 5.2s
      // after their o: lines, the 2m 10s pause before line 40.
      await until('the inlay hints', async () => {
        // VS Code draws inlay hints as text of their own in the line (spaces
        // as no-break spaces).
        const t = await page.evaluate(() => {
          const editor = [...document.querySelectorAll('.editor-instance')].find((e) => e.offsetParent !== null) || document;
          return [...editor.querySelectorAll('.view-line')].map((l) => l.textContent).join('\n').replace(/\u00a0/g, ' ');
        });
        return t.includes('92ms') && t.includes('5.2s') && t.includes('+2m 10s');
      }, 30_000);
      const dir = dirname(screenshotPath);
      await page.screenshot({ path: join(dir, 'vscode-insight.png') });
      log(`screenshot: ${join(dir, 'vscode-insight.png')}`);
      // A phase's lens opens the session view there.
      await lenses.locator('a', { hasText: 'explore:' }).first().click();
      await page.locator('.tab', { hasText: 'Session: timed.rlog' }).waitFor();
      const view = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
      await until('the session view', async () => {
        const t = await view.locator('#summary').innerText();
        return t.includes('3m 58s') && t.includes('4.54');
      }, 30_000);
      await until('the view at the explore phase', async () => (await view.locator('#details').innerText()).includes('phase explore'));
      // Clicking an item reveals its line in the editor.
      await view.locator('#slowest a[data-line="38"]').click();
      await until('the cursor on line 38', async () => (await textOf(page.locator('.statusbar-item'))).includes('Ln 38, Col 1'));
      await view.locator('body').evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: join(dir, 'vscode-session-view.png') });
      log(`screenshot: ${join(dir, 'vscode-session-view.png')}`);
      await commandPalette(page, 'View: Close All Editors');
      await commandPalette(page, 'View: Toggle Primary Side Bar Visibility');
    });

    await check('a missing server binary gets a clear message', async () => {
      // As a user would: point rlog.server.path at nothing in the Settings editor.
      await page.keyboard.press('Escape');
      await commandPalette(page, 'Preferences: Open User Settings');
      await page.locator('.settings-editor').waitFor();
      await page.keyboard.type('rlog.server.path');
      // A machine-overridable setting: in code-server, as in any remote
      // window, it is edited on the Remote tab.
      await page.locator('.settings-tabs-widget .action-label', { hasText: 'Remote' }).click();
      const item = page.locator('.setting-item', { hasText: 'Path to the' }).first();
      const input = item.locator('input').first();
      await input.waitFor();
      await input.fill(join(work, 'no-such-rlog-ls'));
      await page.keyboard.press('Tab');
      const toast = page.locator('.notifications-toasts');
      await until('the not-found notification', async () => {
        const t = await textOf(toast);
        return t.includes('rlog.server.path was not found or is not executable') && t.includes('no-such-rlog-ls');
      }, 30_000);
    });
  } catch (e) {
    failures++;
    log(`FAIL ${e.stack || e}`);
  } finally {
    if (failures > 0) {
      const shot = join(work, 'failure.png');
      await page.screenshot({ path: shot }).catch(() => {});
      log(`failure screenshot: ${shot}`);
      log(`code-server output:\n${server.output().slice(-4000)}`);
    }
    await browser.close();
    server.cs.kill();
  }
  if (failures > 0) {
    console.error(`e2e: ${failures} check(s) failed`);
    process.exit(1);
  }
  if (!process.env.RLOG_E2E_KEEP) rmSync(work, { recursive: true, force: true });
  log('all checks passed');
}

main().catch((e) => {
  console.error(e.stack || e);
  process.exit(1);
});

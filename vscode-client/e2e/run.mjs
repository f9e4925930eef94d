// End to end in a real VS Code (code-server 4.100.3, i.e. VS Code 1.100.3)
// driven by Playwright in Debian's Chromium, offline: the .vsix installed with
// --install-extension, `agentls serve` from the server bundled in the .vsix
// (installed by the extension on first use, with no agentls on PATH and no
// agentls.serverPath; E2E_SERVER=venv uses the repository's .venv instead), the model
// played by tests/fakes/anthropic_server.py. One person's session: ask in the
// chat, review the edit in the Refactor Preview, approve the command in the
// modal dialog, read the answer. Screenshots land in test-results/.
//
// Bounded: every wait has a timeout and the whole run stops after
// E2E_TIMEOUT_SECONDS (default 300).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium } from 'playwright-core';
import { freePort, readPortFile, start, stopAll, until } from './lib/processes.mjs';
import { intelligenceScenario } from './intelligence.mjs';
import { scenario } from './scenario.mjs';
import { workingScenario } from './working.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const client = path.resolve(here, '..');
const repo = path.resolve(client, '..');
const results = path.join(client, 'test-results');
const budgetSeconds = Number(process.env.E2E_TIMEOUT_SECONDS ?? 300);
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const python = path.join(repo, '.venv', 'bin', 'python');
const agentls = path.join(repo, '.venv', 'bin', 'agentls');
const serverMode = process.env.E2E_SERVER ?? 'bundled';
const timings = {};
const t0 = Date.now();

function phase(name) {
  const started = Date.now();
  console.log(`[e2e] ${name}…`);
  return () => {
    timings[name] = (Date.now() - started) / 1000;
  };
}

function vsixPath() {
  const { name, version } = JSON.parse(readFileSync(path.join(client, 'package.json'), 'utf8'));
  return path.join(client, `${name}-${version}.vsix`);
}

function check(condition, message) {
  if (!condition) {
    throw new Error(`check failed: ${message}`);
  }
  console.log(`[e2e] ok: ${message}`);
}

async function main() {
  for (const [what, file] of [['chromium', chromiumPath], ['the .venv agentls (make test sets it up)', agentls], ['the .vsix (npm run package)', vsixPath()]]) {
    if (!existsSync(file)) {
      throw new Error(`missing ${what}: ${file}`);
    }
  }
  rmSync(results, { recursive: true, force: true });
  mkdirSync(results, { recursive: true });
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'agentls-vscode-e2e-'));
  const dirs = Object.fromEntries(
    ['userData', 'extensions', 'state', 'config', 'workspace'].map((name) => [name, path.join(tmp, name)]),
  );
  for (const dir of Object.values(dirs)) {
    mkdirSync(dir, { recursive: true });
  }
  cpSync(path.join(here, 'workspace'), dirs.workspace, { recursive: true });

  let done = phase('code-server install (cached after the first run)');
  const codeServer = execFileSync(path.join(here, 'install-code-server.sh'), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
    .trim()
    .split('\n')
    .at(-1);
  done();

  done = phase('fake model server');
  const portFile = path.join(tmp, 'fake.port');
  const record = path.join(tmp, 'requests.jsonl');
  start('fake-anthropic', python, ['-m', 'tests.fakes.anthropic_server', '--script', path.join(here, 'script.json'), '--port-file', portFile, '--record', record], {
    cwd: repo,
    log: path.join(results, 'fake-anthropic.log'),
  });
  const fakePort = await until('the fake model server', () => readPortFile(portFile), 30_000);
  done();

  done = phase('extension install');
  const common = ['--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions];
  const env = {
    ...process.env,
    XDG_CONFIG_HOME: dirs.config, // no personal ~/.config/agentls settings, no code-server config
    XDG_DATA_HOME: path.join(tmp, 'data'),
    AGENTLS_STATE_DIR: dirs.state,
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${fakePort}`,
    ANTHROPIC_API_KEY: 'test',
  };
  delete env.OPENAI_API_KEY;
  if (serverMode === 'bundled') {
    // No agentls on PATH: the extension must fall back to the server it bundles.
    env.PATH = (env.PATH ?? '').split(path.delimiter).filter((dir) => dir && !existsSync(path.join(dir, 'agentls'))).join(path.delimiter);
  }
  execFileSync(codeServer, [...common, '--install-extension', vsixPath()], { env, stdio: 'inherit' });
  mkdirSync(path.join(dirs.userData, 'User'), { recursive: true });
  writeFileSync(
    path.join(dirs.userData, 'User', 'settings.json'),
    JSON.stringify(
      {
        'security.workspace.trust.enabled': false,
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'workbench.welcomePage.walkthroughs.openOnInstall': false,
        'extensions.ignoreRecommendations': true,
        'telemetry.telemetryLevel': 'off',
        // Offline: nothing may ask a marketplace.
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'workbench.enableExperiments': false,
        'update.mode': 'none',
        'workbench.colorTheme': 'Default Dark Modern',
        'agentls.model': 'anthropic:claude-sonnet-4-5',
      },
      null,
      2,
    ),
  );
  // agentls.serverPath is machine-scoped: in code-server (a remote window) it
  // belongs in the machine's settings, not the browser user's.
  if (serverMode === 'venv') {
    mkdirSync(path.join(dirs.userData, 'Machine'), { recursive: true });
    writeFileSync(path.join(dirs.userData, 'Machine', 'settings.json'), JSON.stringify({ 'agentls.serverPath': agentls }, null, 2));
  }
  done();

  done = phase('code-server start');
  const port = await freePort();
  start('code-server', codeServer, [...common, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', dirs.workspace], {
    env,
    log: path.join(results, 'code-server.log'),
  });
  const base = `http://127.0.0.1:${port}`;
  await until('code-server', async () => (await fetch(`${base}/healthz`).catch(() => undefined))?.ok, 60_000, 250);
  done();

  done = phase('browser and workbench');
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.setDefaultTimeout(30_000);
    await page.goto(`${base}/?folder=${encodeURIComponent(dirs.workspace)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.statusbar-item', { hasText: 'agentls' }).first().waitFor({ timeout: 60_000 });
    done();
    if (serverMode === 'bundled') {
      done = phase('bundled server install (first run)');
      const { version } = JSON.parse(readFileSync(path.join(client, 'package.json'), 'utf8'));
      const ready = path.join(dirs.userData, 'User', 'globalStorage', 'agentls.agentls', `server-${version}`, '.agentls-ready');
      await until('the bundled server install', () => existsSync(ready), 180_000, 250);
      check(existsSync(ready), 'the extension installed its bundled server (no agentls on PATH, no agentls.serverPath)');
      done();
    }
    try {
      await scenario(page, { record, userData: dirs.userData, workspace: dirs.workspace, results, phase, check });
      await intelligenceScenario(page, { record, results, phase, check });
      done = phase('agentls: Doctor');
      await page.keyboard.press('F1');
      await page.locator('.quick-input-widget input').fill('>agentls: Doctor');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'agentls: Doctor' }).first().waitFor();
      await page.keyboard.press('Enter');
      const report = page.locator('.editor-instance .view-lines', { hasText: /agentls\sdoctor:\sready\sto\sask/ }).first();
      await report.waitFor({ timeout: 30_000 });
      const shown = (await report.innerText()).replace(/\s+/g, ' ');
      const { version: extensionVersion } = JSON.parse(readFileSync(path.join(client, 'package.json'), 'utf8'));
      check(shown.includes(`| extension | ${extensionVersion} |`), 'agentls: Doctor shows the server\'s report: ready to ask, and the extension\'s version');
      await page.locator('.tabs-container .tab.active', { hasText: 'agentls doctor' }).waitFor();
      check((await page.locator('.tabs-container .tab', { hasText: 'Untitled' }).count()) === 0, 'the report is a read-only document titled agentls doctor, not an Untitled buffer');
      await page.screenshot({ path: path.join(results, 'doctor.png') });
      done();
      await workingScenario(page, { userData: dirs.userData, workspace: dirs.workspace, results, phase, check });
    } catch (error) {
      await page.screenshot({ path: path.join(results, 'failure.png') }).catch(() => undefined);
      throw error;
    }
  } finally {
    await browser.close();
  }
  rmSync(tmp, { recursive: true, force: true });
}

const timer = setTimeout(() => {
  console.error(`[e2e] gave up after ${budgetSeconds} s`);
  stopAll();
  process.exit(1);
}, budgetSeconds * 1000);

main()
  .then(() => {
    timings.total = (Date.now() - t0) / 1000;
    writeFileSync(path.join(results, 'timings.json'), `${JSON.stringify(timings, null, 2)}\n`);
    console.log(`[e2e] passed in ${timings.total.toFixed(1)} s; screenshots in ${results}`);
    console.log('1 passed, 0 failed');
  })
  .catch((error) => {
    console.error(`[e2e] FAILED: ${error.stack ?? error}`);
    console.log('0 passed, 1 failed');
    process.exitCode = 1;
  })
  .finally(() => {
    clearTimeout(timer);
    stopAll();
  });

// Installing the server bundled in the .vsix into the extension's global
// storage on first use, offline, with a progress notification; later starts
// reuse that venv. Each extension version has its own venv.
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parseManifest, pickPython, planInstall, pythonCandidates, venvPython } from './bundle';
import type { Resolution } from './resolve';

const INSTALL_TIMEOUT_MS = 300_000;
const VERSION_TIMEOUT_MS = 10_000;
const SERVE = ['-m', 'agentls', 'serve'];

export async function bundledServer(extensionPath: string, storage: string, interpreter?: string): Promise<Resolution> {
  const bundle = path.join(extensionPath, 'bundled');
  const manifest = parseManifest(await fs.readFile(path.join(bundle, 'manifest.json'), 'utf8').catch(() => ''));
  if (!manifest) {
    return { ok: false, message: 'this build of the extension has no bundled server', tried: ['the bundled server (none in this build)'] };
  }
  const venv = path.join(storage, `server-${manifest.agentls}`);
  const ready = path.join(venv, '.agentls-ready');
  if (await exists(ready)) {
    return { ok: true, server: { command: venvPython(venv, process.platform), args: SERVE, source: 'bundled' } };
  }
  const python = await pickPython(manifest, pythonCandidates(manifest, interpreter), pythonVersion);
  if (!python.ok) {
    return { ok: false, message: python.message, tried: [`the bundled server (${python.message})`] };
  }
  const plan = planInstall(manifest, storage, bundle, python.python, process.platform, String(process.pid));
  try {
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `agentls: installing its server ${manifest.agentls} (first run, offline)…` },
      async () => {
        await fs.rm(plan.staging, { recursive: true, force: true });
        await fs.mkdir(storage, { recursive: true });
        for (const step of plan.steps) {
          await run(step.command, step.args);
        }
        await fs.writeFile(path.join(plan.staging, '.agentls-ready'), `${manifest.agentls}\n`);
        if (await exists(ready)) {
          // Another window finished first (and may be running it): keep that one.
          await fs.rm(plan.staging, { recursive: true, force: true });
          return;
        }
        await fs.rm(plan.venv, { recursive: true, force: true }); // a half-made one, never marked ready
        await fs.rename(plan.staging, plan.venv);
      },
    );
  } catch (error) {
    await fs.rm(plan.staging, { recursive: true, force: true }).catch(() => undefined);
    const message = `installing the bundled server failed: ${error instanceof Error ? error.message : String(error)}`;
    return { ok: false, message, tried: [`the bundled server (${message})`] };
  }
  return { ok: true, server: { command: plan.python, args: SERVE, source: 'bundled' } };
}

function pythonVersion(python: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { timeout: VERSION_TIMEOUT_MS }, (error, stdout) =>
      resolve(error ? undefined : stdout.trim()),
    );
  });
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: INSTALL_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (error) {
        const tail = stderr.trim().split('\n').slice(-3).join(' ');
        reject(new Error(`${path.basename(command)} ${args.slice(0, 2).join(' ')}: ${tail || error.message}`));
      } else {
        resolve();
      }
    });
  });
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

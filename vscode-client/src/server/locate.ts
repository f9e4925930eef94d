// The VS Code side of finding the server: settings, the Python extension's
// selected interpreter, the file system and PATH, fed to resolveServer(); when
// none has agentls, the server bundled in the .vsix, installed on first use.
import { execFile } from 'node:child_process';
import { constants, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { bundledServer } from './bundled';
import { type Resolution, resolveServer } from './resolve';

const PYTHON_EXTENSION = 'ms-python.python';
const PYTHON_TIMEOUT_MS = 10_000;

/** The part of the Python extension's API we use (its `environments` API). */
interface PythonApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    resolveEnvironment(env: { path: string } | string): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  };
}

let extension: { extensionPath: string; globalStoragePath: string } | undefined;

/** Where the bundled server's wheels are and where it is installed (called on activation). */
export function useExtensionContext(context: vscode.ExtensionContext): void {
  extension = { extensionPath: context.extensionPath, globalStoragePath: context.globalStorageUri.fsPath };
}

export async function locateServer(): Promise<Resolution> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  const serverPath = vscode.workspace.getConfiguration('agentls').get<string>('serverPath') ?? '';
  const interpreter = serverPath ? undefined : await selectedInterpreter(folder?.uri);
  const found = await resolveServer({
    serverPath,
    home: os.homedir(),
    workspaceFolder: folder?.uri.fsPath,
    pythonInterpreter: interpreter,
    pythonHasAgentls,
    isExecutable,
    pathDirs: (process.env.PATH ?? '').split(path.delimiter),
    platform: process.platform,
  });
  // A broken serverPath is the person's to fix; otherwise the bundle is the last resort.
  if (found.ok || serverPath.trim() !== '' || !extension) {
    return found;
  }
  const bundled = await bundledServer(extension.extensionPath, extension.globalStoragePath, interpreter);
  if (bundled.ok) {
    return bundled;
  }
  return { ok: false, message: `${found.message} (Also: ${bundled.message})`, tried: [...found.tried, ...bundled.tried] };
}

async function selectedInterpreter(resource?: vscode.Uri): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension<PythonApi>(PYTHON_EXTENSION);
  if (!extension) {
    return undefined;
  }
  try {
    const api = await withTimeout(Promise.resolve(extension.activate()), PYTHON_TIMEOUT_MS);
    const environments = api?.environments;
    const active = environments?.getActiveEnvironmentPath(resource);
    if (!environments || !active) {
      return undefined;
    }
    const resolved = await withTimeout(environments.resolveEnvironment(active), PYTHON_TIMEOUT_MS);
    return resolved?.executable?.uri?.fsPath ?? active.path;
  } catch {
    return undefined; // the Python extension is optional: PATH comes next
  }
}

function pythonHasAgentls(python: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(python, ['-c', 'import agentls'], { timeout: PYTHON_TIMEOUT_MS }, (error) => resolve(!error));
  });
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) {
      return false;
    }
    if (process.platform !== 'win32') {
      await fs.access(file, constants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

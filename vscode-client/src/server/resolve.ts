// Finding `agentls serve`: the agentls.serverPath setting, else the Python
// extension's selected interpreter (`python -m agentls serve`) when agentls is
// installed there, else `agentls` on PATH (then locate.ts falls back to the
// server bundled in the .vsix). Pure, over injected checks, so the
// order and the messages are tested without VS Code or a real Python.
import * as path from 'node:path';

export interface ServerCommand {
  command: string;
  args: string[];
  /** Where it came from, for the log and the error message. */
  source: 'setting' | 'python' | 'path' | 'bundled';
}

export type Resolution = { ok: true; server: ServerCommand } | { ok: false; message: string; tried: string[] };

export interface ResolveInputs {
  /** agentls.serverPath, '' when unset. */
  serverPath: string;
  home: string;
  /** The first workspace folder, for relative paths and ${workspaceFolder}. */
  workspaceFolder?: string;
  /** The Python extension's interpreter for the workspace, when that extension is there. */
  pythonInterpreter?: string;
  /** Whether `python -c "import agentls"` works (bounded in time by the caller). */
  pythonHasAgentls: (python: string) => Promise<boolean>;
  isExecutable: (file: string) => Promise<boolean>;
  /** PATH, split. */
  pathDirs: string[];
  platform: NodeJS.Platform;
}

const SERVE = ['serve'];
const PYTHON_SERVE = ['-m', 'agentls', 'serve'];

export const INSTALL_HINT =
  'Install it (`pip install agentls` in the Python interpreter selected for this workspace, or anywhere on PATH), ' +
  'or set `agentls.serverPath` to the agentls executable.';

export async function resolveServer(inputs: ResolveInputs): Promise<Resolution> {
  const tried: string[] = [];
  if (inputs.serverPath.trim() !== '') {
    const file = expandPath(inputs.serverPath.trim(), inputs.home, inputs.workspaceFolder);
    if (!(await inputs.isExecutable(file))) {
      return {
        ok: false,
        message: `agentls.serverPath is set to ${file}, which is not an executable file. Fix the setting or clear it.`,
        tried: [`agentls.serverPath: ${file} (not executable)`],
      };
    }
    return { ok: true, server: { command: file, args: isPython(file) ? PYTHON_SERVE : SERVE, source: 'setting' } };
  }
  if (inputs.pythonInterpreter) {
    const python = inputs.pythonInterpreter;
    if (await inputs.pythonHasAgentls(python)) {
      return { ok: true, server: { command: python, args: PYTHON_SERVE, source: 'python' } };
    }
    tried.push(`the selected Python interpreter ${python} (agentls is not installed there)`);
  } else {
    tried.push('the Python extension (not installed, or no interpreter selected)');
  }
  const names = inputs.platform === 'win32' ? ['agentls.exe', 'agentls.cmd', 'agentls'] : ['agentls'];
  for (const dir of inputs.pathDirs) {
    if (dir === '') {
      continue;
    }
    for (const name of names) {
      const candidate = path.join(dir, name);
      if (await inputs.isExecutable(candidate)) {
        return { ok: true, server: { command: candidate, args: SERVE, source: 'path' } };
      }
    }
  }
  tried.push('`agentls` on PATH (not found)');
  return { ok: false, message: `agentls: cannot find the language server. ${INSTALL_HINT}`, tried };
}

/** `~`, `${workspaceFolder}` and paths relative to the workspace folder. */
export function expandPath(value: string, home: string, workspaceFolder?: string): string {
  let out = value;
  if (out === '~' || out.startsWith('~/')) {
    out = path.join(home, out.slice(1));
  }
  if (workspaceFolder !== undefined) {
    out = out.replace(/\$\{workspaceFolder\}/g, workspaceFolder);
    if (!path.isAbsolute(out)) {
      out = path.join(workspaceFolder, out);
    }
  }
  return out;
}

/** python, python3, python3.12, python.exe: such a path runs `-m agentls serve`. */
export function isPython(file: string): boolean {
  return /^python(\d+(\.\d+)*)?(\.exe)?$/i.test(path.basename(file));
}

export function describe(server: ServerCommand): string {
  const origin = {
    setting: 'agentls.serverPath',
    python: 'the selected Python interpreter',
    path: 'PATH',
    bundled: 'the server bundled with the extension',
  }[server.source];
  return `${[server.command, ...server.args].join(' ')} (from ${origin})`;
}

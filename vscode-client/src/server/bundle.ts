// The server bundled in the .vsix (scripts/bundle-server.mjs): which Python can
// take its wheels, and the steps that install them into the extension's own
// storage. Pure, over injected checks, so it is tested without VS Code.
import * as path from 'node:path';

export interface BundleManifest {
  agentls: string;
  /** "3.11": the wheels' Python (native dependencies are built per version). */
  python: string;
  /** sysconfig's platform, e.g. linux-x86_64. */
  platform: string;
  /** pip's wheel file in bundled/, run as `python pip-….whl/pip`. */
  pip: string;
}

export interface InstallPlan {
  /** The finished venv; `python -m agentls serve` runs from it. */
  venv: string;
  python: string;
  /** Built here, then renamed to `venv`, so a half-done install is never used. */
  staging: string;
  steps: Array<{ command: string; args: string[] }>;
}

export function parseManifest(text: string): BundleManifest | undefined {
  try {
    const data = JSON.parse(text) as Partial<BundleManifest>;
    const { agentls, python, platform, pip } = data;
    if (typeof agentls === 'string' && typeof python === 'string' && typeof platform === 'string' && typeof pip === 'string') {
      return { agentls, python, platform, pip };
    }
  } catch {
    // a broken manifest is no bundle
  }
  return undefined;
}

/** The interpreter names to try, most specific first. */
export function pythonCandidates(manifest: BundleManifest, preferred?: string): string[] {
  const names = [`python${manifest.python}`, 'python3', 'python'];
  return preferred ? [preferred, ...names] : names;
}

/** The first candidate whose version is the bundle's, or a sentence saying why there is none. */
export async function pickPython(
  manifest: BundleManifest,
  candidates: string[],
  versionOf: (python: string) => Promise<string | undefined>,
): Promise<{ ok: true; python: string } | { ok: false; message: string }> {
  const seen: string[] = [];
  for (const candidate of candidates) {
    const version = await versionOf(candidate);
    if (version === manifest.python) {
      return { ok: true, python: candidate };
    }
    if (version !== undefined) {
      seen.push(`${candidate} is ${version}`);
    }
  }
  const found = seen.length > 0 ? ` (${seen.join(', ')})` : ' (no Python found on PATH)';
  return {
    ok: false,
    message:
      `the bundled server needs Python ${manifest.python} on ${manifest.platform}${found}. ` +
      'Install agentls yourself (`pipx install agentls` or `uv tool install agentls`) or set `agentls.serverPath`.',
  };
}

export function venvPython(venv: string, platform: NodeJS.Platform): string {
  return platform === 'win32' ? path.join(venv, 'Scripts', 'python.exe') : path.join(venv, 'bin', 'python');
}

export function planInstall(
  manifest: BundleManifest,
  storage: string,
  bundle: string,
  python: string,
  platform: NodeJS.Platform,
  nonce: string,
): InstallPlan {
  const venv = path.join(storage, `server-${manifest.agentls}`);
  const staging = `${venv}.partial-${nonce}`;
  const pip = venvPython(staging, platform);
  return {
    venv,
    python: venvPython(venv, platform),
    staging,
    steps: [
      // No ensurepip needed: pip runs from its bundled wheel with the venv's Python.
      { command: python, args: ['-m', 'venv', '--without-pip', staging] },
      {
        command: pip,
        args: [
          path.join(bundle, manifest.pip, 'pip'),
          'install',
          '--quiet',
          '--no-index',
          '--disable-pip-version-check',
          '--find-links',
          path.join(bundle, 'wheels'),
          `agentls==${manifest.agentls}`,
        ],
      },
    ],
  };
}

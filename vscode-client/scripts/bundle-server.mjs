// Puts the server into the extension: the agentls wheel built from this
// repository and every dependency as a wheel, in bundled/. On first run the
// extension installs them into its own venv with `pip install --no-index`,
// so the .vsix needs no network. Native dependencies (pydantic-core, orjson,
// …) are wheels for the build machine's Python and platform, recorded in
// bundled/manifest.json; elsewhere the extension asks for an agentls install.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const client = path.resolve(here, '..');
const repo = path.resolve(client, '..');
const bundled = path.join(client, 'bundled');
const wheels = path.join(bundled, 'wheels');
const venvPython = path.join(repo, '.venv', 'bin', 'python');
const python = process.env.AGENTLS_BUNDLE_PYTHON ?? (existsSync(venvPython) ? venvPython : 'python3');

const version = /^version\s*=\s*"([^"]+)"/m.exec(readFileSync(path.join(repo, 'pyproject.toml'), 'utf8'))?.[1];
const clientVersion = JSON.parse(readFileSync(path.join(client, 'package.json'), 'utf8')).version;
if (version !== clientVersion) {
  throw new Error(`pyproject.toml says agentls ${version} but package.json ${clientVersion}: make them equal`);
}

rmSync(bundled, { recursive: true, force: true });
mkdirSync(wheels, { recursive: true });
// pip wheel builds agentls and resolves its dependencies to wheels (from pip's cache after the first time).
execFileSync(python, ['-m', 'pip', 'wheel', '--quiet', '--wheel-dir', wheels, repo], { stdio: 'inherit' });
// pip itself, run from its wheel: a venv made --without-pip works even where
// Debian's python3-venv (ensurepip) is missing.
execFileSync(python, ['-m', 'pip', 'download', '--quiet', '--no-deps', '--only-binary=:all:', '--dest', bundled, 'pip'], { stdio: 'inherit' });
const pip = readdirSync(bundled).find((f) => /^pip-.*\.whl$/.test(f));
if (!pip) {
  throw new Error(`no pip wheel in ${bundled}`);
}
const [tag, pyVersion] = execFileSync(
  python,
  ['-c', 'import sys, sysconfig; print(sysconfig.get_platform()); print("%d.%d" % sys.version_info[:2])'],
  { encoding: 'utf8' },
)
  .trim()
  .split('\n');
const files = readdirSync(wheels).sort();
if (!files.some((f) => f.startsWith(`agentls-${version}-`))) {
  throw new Error(`no agentls-${version} wheel in ${wheels}`);
}
writeFileSync(
  path.join(bundled, 'manifest.json'),
  JSON.stringify({ agentls: version, python: pyVersion, platform: tag, pip, wheels: files }, null, 2) + '\n',
);
const megabytes = files.reduce((sum, f) => sum + statSync(path.join(wheels, f)).size, 0) / 1e6;
console.log(`bundled agentls ${version} and ${files.length - 1} dependencies for Python ${pyVersion} on ${tag}: ${megabytes.toFixed(1)} MB`);

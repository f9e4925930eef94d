// Builds the .vsix with @vscode/vsce, offline: the bundle has every
// dependency inside, so vsce does not walk node_modules.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(here, '..');
const { version, name } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const out = path.join(root, `${name}-${version}.vsix`);
const vsce = createRequire(import.meta.url).resolve('@vscode/vsce/vsce');

execFileSync(
  process.execPath,
  [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--out', out],
  { cwd: root, stdio: 'inherit' },
);
console.log(out);

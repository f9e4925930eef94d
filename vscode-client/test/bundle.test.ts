import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseManifest, pickPython, planInstall, pythonCandidates } from '../src/server/bundle';

const manifest = { agentls: '0.1.0', python: '3.11', platform: 'linux-x86_64', pip: 'pip-26.3-py3-none-any.whl' };

describe('the bundled server', () => {
  it('reads the manifest the bundle script writes, and nothing else', () => {
    assert.deepEqual(parseManifest(JSON.stringify({ ...manifest, wheels: ['a.whl'] })), manifest);
    assert.equal(parseManifest('{"agentls": "0.1.0"}'), undefined);
    assert.equal(parseManifest('not json'), undefined);
  });

  it('takes the first Python of the bundle\'s version', async () => {
    const versions: Record<string, string> = { '/sel/python': '3.12', 'python3.11': '3.11', python3: '3.11' };
    const found = await pickPython(manifest, pythonCandidates(manifest, '/sel/python'), async (p) => versions[p]);
    assert.deepEqual(found, { ok: true, python: 'python3.11' });
  });

  it('says which Pythons it saw when none fits', async () => {
    const found = await pickPython(manifest, pythonCandidates(manifest), async (p) => (p === 'python3' ? '3.13' : undefined));
    assert.equal(found.ok, false);
    assert.match(!found.ok ? found.message : '', /needs Python 3\.11 on linux-x86_64 \(python3 is 3\.13\).*pipx install agentls/);
  });

  it('installs offline from the bundled wheels into a staging venv first', () => {
    const plan = planInstall(manifest, '/store', '/ext/bundled', 'python3.11', 'linux', '42');
    assert.equal(plan.venv, '/store/server-0.1.0');
    assert.equal(plan.python, '/store/server-0.1.0/bin/python');
    assert.equal(plan.staging, '/store/server-0.1.0.partial-42');
    assert.deepEqual(plan.steps[0], { command: 'python3.11', args: ['-m', 'venv', '--without-pip', '/store/server-0.1.0.partial-42'] });
    const pip = plan.steps[1]!;
    assert.equal(pip.command, '/store/server-0.1.0.partial-42/bin/python');
    assert.equal(pip.args[0], '/ext/bundled/pip-26.3-py3-none-any.whl/pip');
    assert.ok(pip.args.includes('--no-index'));
    assert.deepEqual(pip.args.slice(-3), ['--find-links', '/ext/bundled/wheels', 'agentls==0.1.0']);
  });
});

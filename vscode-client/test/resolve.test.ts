import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandPath, isPython, type ResolveInputs, resolveServer } from '../src/server/resolve';

function inputs(overrides: Partial<ResolveInputs> = {}): ResolveInputs {
  return {
    serverPath: '',
    home: '/home/me',
    workspaceFolder: '/work/project',
    pythonInterpreter: undefined,
    pythonHasAgentls: async () => false,
    isExecutable: async () => false,
    pathDirs: ['/usr/local/bin', '/usr/bin'],
    platform: 'linux',
    ...overrides,
  };
}

describe('finding the server', () => {
  it('uses agentls.serverPath first, with ~ expanded', async () => {
    const found = await resolveServer(inputs({ serverPath: '~/.venv/bin/agentls', isExecutable: async (f) => f === '/home/me/.venv/bin/agentls' }));
    assert.deepEqual(found, { ok: true, server: { command: '/home/me/.venv/bin/agentls', args: ['serve'], source: 'setting' } });
  });

  it('runs a Python interpreter given as serverPath with -m agentls serve', async () => {
    const found = await resolveServer(inputs({ serverPath: '${workspaceFolder}/.venv/bin/python3', isExecutable: async () => true }));
    assert.ok(found.ok);
    assert.deepEqual(found.server.args, ['-m', 'agentls', 'serve']);
    assert.equal(found.server.command, '/work/project/.venv/bin/python3');
  });

  it('says how to fix a serverPath that is not executable, without falling back', async () => {
    const found = await resolveServer(inputs({ serverPath: '/nope/agentls', pythonInterpreter: '/usr/bin/python3', pythonHasAgentls: async () => true }));
    assert.equal(found.ok, false);
    assert.match(!found.ok ? found.message : '', /agentls.serverPath is set to \/nope\/agentls.*not an executable/);
  });

  it('uses the selected interpreter when agentls is installed there', async () => {
    const found = await resolveServer(inputs({ pythonInterpreter: '/venv/bin/python', pythonHasAgentls: async (p) => p === '/venv/bin/python' }));
    assert.deepEqual(found, { ok: true, server: { command: '/venv/bin/python', args: ['-m', 'agentls', 'serve'], source: 'python' } });
  });

  it('falls back to agentls on PATH', async () => {
    const found = await resolveServer(
      inputs({ pythonInterpreter: '/usr/bin/python3', isExecutable: async (f) => f === '/usr/bin/agentls' }),
    );
    assert.deepEqual(found, { ok: true, server: { command: '/usr/bin/agentls', args: ['serve'], source: 'path' } });
  });

  it('looks for agentls.exe on Windows', async () => {
    const found = await resolveServer(
      inputs({ platform: 'win32', pathDirs: ['C:\\Tools'], isExecutable: async (f) => f.endsWith('agentls.exe') }),
    );
    assert.ok(found.ok && found.server.command.endsWith('agentls.exe'));
  });

  it('explains what it tried and how to fix it when nothing works', async () => {
    const found = await resolveServer(inputs({ pythonInterpreter: '/usr/bin/python3' }));
    assert.equal(found.ok, false);
    if (!found.ok) {
      assert.match(found.message, /cannot find the language server/);
      assert.match(found.message, /pip install agentls/);
      assert.match(found.message, /agentls\.serverPath/);
      assert.equal(found.tried.length, 2);
      assert.match(found.tried[0] ?? '', /\/usr\/bin\/python3.*not installed/);
    }
  });

  it('expands paths', () => {
    assert.equal(expandPath('~', '/h'), '/h');
    assert.equal(expandPath('bin/agentls', '/h', '/w'), '/w/bin/agentls');
    assert.equal(expandPath('/abs/agentls', '/h', '/w'), '/abs/agentls');
  });

  it('knows a Python interpreter by its name', () => {
    for (const name of ['/x/python', '/x/python3', '/x/python3.12', 'C:\\P\\python.exe']) {
      assert.equal(isPython(name.replace(/\\/g, '/')), true, name);
    }
    assert.equal(isPython('/x/agentls'), false);
    assert.equal(isPython('/x/pythonista'), false);
  });
});

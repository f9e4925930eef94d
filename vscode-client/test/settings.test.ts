import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { modalApprovals, SERVER_KEYS, serverEnvironment, serverSettings } from '../src/settings/serverSettings';

/** The keys of the table under "## Settings" in the server's protocol document. */
function documentedSettings(): string[] {
  const doc = readFileSync(path.resolve(__dirname, '..', '..', '..', 'docs', 'protocol.md'), 'utf8');
  const section = doc.split(/^## Settings$/m)[1]?.split(/^#{2,3} /m)[0] ?? '';
  return [...section.matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((match) => match[1] ?? '');
}

const reader = (values: Record<string, unknown>) => (key: string) => values[key];

describe('server settings', () => {
  it('sends only what the person set, under the server names', () => {
    const sent = serverSettings(reader({ model: 'anthropic:claude-sonnet-4-5', maxTurns: 7, mode: 'plan', approvalTimeoutSeconds: 30 }));
    assert.deepEqual(sent, { model: 'anthropic:claude-sonnet-4-5', maxTurns: 7, mode: 'plan', approvalTimeoutSeconds: 30 });
  });

  it('leaves out unset, null and empty values so the server keeps its defaults', () => {
    const sent = serverSettings(reader({ model: '  ', maxTokens: null, permissions: {}, sandboxWritable: [], baseUrl: undefined }));
    assert.deepEqual(sent, {});
  });

  it('never sends the client-only settings, even through additionalSettings', () => {
    const sent = serverSettings(
      reader({
        serverPath: '/usr/bin/agentls',
        serverEnv: { A: 'b' },
        modalApprovals: 'all',
        additionalSettings: { serverPath: '/x', compaction: false, contextWindow: 32000 },
      }),
    );
    assert.deepEqual(sent, { compaction: false, contextWindow: 32000 });
  });

  it('lets the named settings win over additionalSettings', () => {
    const sent = serverSettings(reader({ additionalSettings: { model: 'openai:x' }, model: 'anthropic:y' }));
    assert.equal(sent.model, 'anthropic:y');
  });

  it('passes permission rules through as they are', () => {
    const permissions = { allow: ['run_command(pytest *)'], deny: [{ rule: 'run_command(rm *)', stop: true }] };
    assert.deepEqual(serverSettings(reader({ permissions })).permissions, permissions);
  });

  it('has a VS Code setting for every setting in the table of docs/protocol.md', () => {
    const documented = documentedSettings();
    assert.ok(documented.length >= 20, 'the settings table was found');
    assert.deepEqual(documented.filter((key) => !(SERVER_KEYS as readonly string[]).includes(key)), []);
  });

  it('sends languageIntelligence, and the manifest offers exactly the server\'s choices', () => {
    assert.ok((SERVER_KEYS as readonly string[]).includes('languageIntelligence'));
    assert.deepEqual(serverSettings(reader({ languageIntelligence: 'editor' })), { languageIntelligence: 'editor' });
    assert.deepEqual(serverSettings(reader({})), {});
    const manifest = JSON.parse(readFileSync(path.resolve(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { enum?: string[]; default?: unknown }> } };
    };
    const setting = manifest.contributes.configuration.properties['agentls.languageIntelligence'];
    assert.deepEqual(setting?.enum, ['auto', 'editor', 'agentls']);
    assert.equal(setting?.default, undefined, 'unset unless the person sets it: the server keeps its default');
  });

  it('reads modalApprovals with commands as the default', () => {
    assert.equal(modalApprovals(reader({})), 'commands');
    assert.equal(modalApprovals(reader({ modalApprovals: 'all' })), 'all');
    assert.equal(modalApprovals(reader({ modalApprovals: 'bogus' })), 'commands');
  });

  it('adds serverEnv strings to the environment', () => {
    const env = serverEnvironment({ PATH: '/bin', KEEP: '1' }, reader({ serverEnv: { AGENTLS_STATE_DIR: '/tmp/s', BAD: 3 } }));
    assert.deepEqual(env, { PATH: '/bin', KEEP: '1', AGENTLS_STATE_DIR: '/tmp/s' });
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ScopedValues, scopedServerSettings, splitScopes, WORKSPACE_SCOPED } from '../src/settings/serverSettings';

const inspecting = (values: Record<string, ScopedValues>) => (key: string) => values[key];

describe('workspace-scoped settings', () => {
  it('sends the user scope as it is and marks the workspace scopes', () => {
    const sent = scopedServerSettings(
      inspecting({
        model: { globalValue: 'anthropic:claude-sonnet-4-5', workspaceValue: 'openai:evil' },
        baseUrl: { workspaceFolderValue: 'http://attacker.example/v1' },
        maxTurns: { globalValue: 20, workspaceValue: 5 },
      }),
    );
    assert.deepEqual(sent, {
      model: 'anthropic:claude-sonnet-4-5',
      maxTurns: 20,
      [WORKSPACE_SCOPED]: { model: 'openai:evil', baseUrl: 'http://attacker.example/v1', maxTurns: 5 },
    });
  });

  it('never lets a workspace value pass as the user one', () => {
    const sent = scopedServerSettings(
      inspecting({
        permissions: { workspaceValue: { allow: ['run_command(*)'] } },
        mcpServers: { workspaceFolderValue: { evil: { command: 'sh' } } },
        sandbox: { workspaceLanguageValue: 'off' },
      }),
    );
    assert.equal(sent.permissions, undefined);
    assert.equal(sent.mcpServers, undefined);
    assert.equal(sent.sandbox, undefined);
    assert.deepEqual(Object.keys(sent[WORKSPACE_SCOPED] as object).sort(), ['mcpServers', 'permissions', 'sandbox']);
  });

  it('sends no marked part when the workspace sets nothing', () => {
    assert.deepEqual(scopedServerSettings(inspecting({ mode: { globalValue: 'plan' } })), { mode: 'plan' });
    assert.deepEqual(scopedServerSettings(() => undefined), {});
  });

  it('takes the folder over the workspace and a language value over a plain one', () => {
    const { user, workspace } = splitScopes(
      inspecting({
        mode: { workspaceValue: 'default', workspaceFolderValue: 'plan' },
        temperature: { globalValue: 0.5, globalLanguageValue: 0.1 },
      }),
    );
    assert.equal(workspace('mode'), 'plan');
    assert.equal(user('temperature'), 0.1);
    assert.equal(user('mode'), undefined);
  });

  it('keeps additionalSettings from the workspace in the marked part too', () => {
    const sent = scopedServerSettings(
      inspecting({ additionalSettings: { workspaceValue: { baseUrl: 'http://x/v1', serverPath: '/bin/sh' } } }),
    );
    assert.deepEqual(sent, { [WORKSPACE_SCOPED]: { baseUrl: 'http://x/v1' } });
  });
});

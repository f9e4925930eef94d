// The package.json contributions against the code: every command has a
// handler, the palette hides what it should, the settings match the mapping.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { CLIENT_COMMANDS } from '../src/commands/ids';
import { COMMANDS } from '../src/protocol';
import { CLIENT_KEYS, SERVER_KEYS } from '../src/settings/serverSettings';

interface Manifest {
  engines: { vscode: string };
  main: string;
  devDependencies: Record<string, string>;
  dependencies: Record<string, string>;
  contributes: {
    commands: { command: string; title: string; category: string }[];
    menus: { commandPalette: { command: string; when: string }[] };
    keybindings: { command: string; key: string }[];
    configuration: { properties: Record<string, { scope?: string }> };
    views: Record<string, { id: string; type?: string }[]>;
  };
}

const root = path.resolve(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;

describe('package.json', () => {
  it('accepts VS Code 1.100, and its @types/vscode is not newer', () => {
    assert.equal(manifest.engines.vscode, '^1.100.0');
    assert.equal(manifest.devDependencies['@types/vscode'], '1.100.0');
  });

  it('contributes exactly the commands the extension registers', () => {
    const contributed = manifest.contributes.commands.map((c) => c.command).sort();
    assert.deepEqual(contributed, Object.values(CLIENT_COMMANDS).sort());
    for (const command of manifest.contributes.commands) {
      assert.equal(command.category, 'agentls');
    }
  });

  it('never reuses the server command ids that vscode-languageclient registers itself', () => {
    const server = new Set<string>(Object.values(COMMANDS));
    for (const command of manifest.contributes.commands) {
      assert.equal(server.has(command.command), false, command.command);
    }
  });

  it('shows Undo Last Ask only when the server advertises agentls.undo', () => {
    const undo = manifest.contributes.menus.commandPalette.find((m) => m.command === CLIENT_COMMANDS.undoLastTurn);
    assert.equal(undo?.when, 'agentls.serverCanUndo');
  });

  it('binds a key to Ask', () => {
    assert.ok(manifest.contributes.keybindings.some((k) => k.command === CLIENT_COMMANDS.ask && k.key));
  });

  it('contributes a setting for each server key and each client key', () => {
    const properties = manifest.contributes.configuration.properties;
    for (const key of SERVER_KEYS) {
      assert.ok(properties[`agentls.${key}`], key);
    }
    for (const key of CLIENT_KEYS.filter((k) => k !== 'trace')) {
      assert.ok(properties[`agentls.${key}`], key);
    }
    assert.ok(properties['agentls.trace.server']);
  });

  it('keeps the server path and environment out of workspace settings', () => {
    const properties = manifest.contributes.configuration.properties;
    assert.equal(properties['agentls.serverPath']?.scope, 'machine');
    assert.equal(properties['agentls.serverEnv']?.scope, 'machine');
  });

  it('has the chat as a webview view', () => {
    const views = Object.values(manifest.contributes.views).flat();
    assert.ok(views.some((v) => v.id === 'agentls.chat' && v.type === 'webview'));
  });
});

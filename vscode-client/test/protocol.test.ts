import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { asAgentEvent, COMMAND_NAMES, COMMANDS, EVENT_KINDS } from '../src/protocol';

// out-test/test/ -> the client's folder
const CLIENT = path.resolve(__dirname, '..', '..');
const GENERATOR = path.join(CLIENT, 'scripts', 'generate-protocol.mjs');

describe('protocol types generated from the server schema', () => {
  it('src/protocol.generated.ts and src/protocol-log.generated.ts are what the schema in docs/ generates', () => {
    const check = spawnSync(process.execPath, [GENERATOR, '--check'], { encoding: 'utf8' });
    assert.equal(check.status, 0, check.stderr);
  });

  it('the check fails when the schema and the types drift apart', () => {
    const schemaPath = path.join(CLIENT, '..', 'docs', 'protocol.schema.json');
    const schema = JSON.parse(readFileSync(schemaPath, 'utf8'));
    schema.$defs.TextEvent.properties.text.description = 'drifted';
    const folder = mkdtempSync(path.join(tmpdir(), 'agentls-protocol-'));
    // The generator finds the schema next to the client: a copy of both, the schema changed.
    const scripts = path.join(folder, 'client', 'scripts');
    const src = path.join(folder, 'client', 'src');
    for (const folderPath of [scripts, src, path.join(folder, 'docs')]) {
      mkdirSync(folderPath, { recursive: true });
    }
    copyFileSync(GENERATOR, path.join(scripts, 'generate-protocol.mjs'));
    for (const file of ['protocol.generated.ts', 'protocol-log.generated.ts']) {
      copyFileSync(path.join(CLIENT, 'src', file), path.join(src, file));
    }
    writeFileSync(path.join(folder, 'docs', 'protocol.schema.json'), JSON.stringify(schema));
    const check = spawnSync(process.execPath, [path.join(scripts, 'generate-protocol.mjs'), '--check'], { encoding: 'utf8' });
    assert.equal(check.status, 1);
    assert.match(check.stderr, /src\/protocol.generated.ts differs from docs\/protocol.schema.json/);
    assert.doesNotMatch(check.stderr, /protocol-log/); // the log's part did not drift
  });

  it('names only commands the server has', () => {
    const known = new Set<string>(COMMAND_NAMES);
    for (const command of Object.values(COMMANDS)) {
      assert.ok(known.has(command), command);
    }
  });

  it('takes every kind the server sends and skips kinds it does not know', () => {
    for (const kind of EVENT_KINDS) {
      assert.equal(asAgentEvent({ sessionId: 's1', runId: 'r1', turn: 1, kind })?.kind, kind);
    }
    assert.equal(asAgentEvent({ sessionId: 's1', runId: 'r1', turn: 1, kind: 'from_the_future' }), undefined);
    assert.equal(asAgentEvent({ kind: 'text' }), undefined);
  });
});

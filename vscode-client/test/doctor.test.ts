import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderDoctor } from '../src/commands/doctorReport';

const report = {
  version: '0.1.0',
  python: { version: '3.11.2', executable: '/venv/bin/python' },
  workspace: '/work/p',
  model: { id: 'anthropic:claude-sonnet-4-5', provider: 'anthropic', keyVariable: 'ANTHROPIC_API_KEY', keySet: false },
  ripgrep: { found: false, path: null, version: null },
  sandbox: { on: false, detail: 'unavailable: bubblewrap (bwrap) is not installed', bwrap: false },
  folders: { state: '/s', config: '/c' },
  settings: { user: { path: '/c/settings.json', exists: false }, workspace: { path: '/work/p/.agentls/settings.json', exists: true, trusted: false } },
  mcpServers: ['files'],
  languageServers: [
    { name: 'ruff', command: 'ruff', filePatterns: ['*.py'], found: true, path: '/bin/ruff', version: '0.6.1', wouldRun: true, reason: null, install: null },
    {
      name: 'pyright',
      command: 'pyright-langserver',
      filePatterns: ['*.py'],
      found: true,
      path: '/bin/pyright-langserver',
      version: '1.1.400',
      wouldRun: false,
      reason: 'basedpyright runs instead (both serve the same files)',
      install: null,
    },
    {
      name: 'gopls',
      command: 'gopls',
      filePatterns: ['*.go'],
      found: false,
      path: null,
      version: null,
      wouldRun: false,
      reason: 'gopls was not found on PATH',
      install: 'go install golang.org/x/tools/gopls@latest',
    },
  ],
  editors: [],
  blocking: ['anthropic:claude-sonnet-4-5 needs an API key: set ANTHROPIC_API_KEY'],
  warnings: [],
  ok: false,
};

describe('the doctor report', () => {
  it('says a managed policy is in force, what it overrides, and where telemetry goes', () => {
    const managed = {
      ...report,
      settings: {
        ...report.settings,
        managed: { path: '/etc/agentls/managed-settings.json', exists: true, inForce: true, enforces: ['sandbox required'], overrides: ['sandbox "off": commands run only in the sandbox here'] },
      },
      telemetry: { enabled: true, endpoint: 'http://collector:4318', protocol: 'http/protobuf', logContent: false, exporting: true },
    };
    const text = renderDoctor(managed, '0.1.0');
    assert.match(text, /\| managed settings \| `\/etc\/agentls\/managed-settings.json`: present, \*\*in force\*\*: sandbox required; overrides sandbox "off"/);
    assert.match(text, /\| telemetry \| on: http\/protobuf to http:\/\/collector:4318 \|/);
    assert.doesNotMatch(renderDoctor(report, '0.1.0'), /telemetry/); // an older server sent none
  });

  it('leads with what blocks the next ask and shows each part', () => {
    const text = renderDoctor(report, '0.1.0');
    assert.match(text, /^# agentls doctor: not ready\n\n- \*\*Blocking:\*\* anthropic:claude-sonnet-4-5 needs an API key/);
    assert.match(text, /`ANTHROPIC_API_KEY` \*\*is not set\*\*/);
    assert.match(text, /\| workspace settings \| `\/work\/p\/.agentls\/settings.json`: present, \*\*not approved\*\*/);
    assert.match(text, /\| language servers \| ruff 0\.6\.1 \|/);
    assert.match(text, /\| MCP servers \| files \|/);
    assert.doesNotMatch(text, /differs from the server/);
  });

  it('lists the prompt commands, each with its file and what it allows', () => {
    const commands = {
      commands: [
        {
          name: 'review', description: 'Review', argumentHint: null, inputHint: 'arguments', path: '.agentls/commands/review.md', scope: 'workspace',
          trusted: false, allowedTools: ['Bash(git diff:*)'], rules: [], notes: [], shadows: [],
        },
        {
          name: 'mine', description: 'Mine', argumentHint: null, inputHint: 'arguments', path: '/c/commands/mine.md', scope: 'user',
          trusted: true, allowedTools: ['Read'], rules: ['read_file'], notes: [], shadows: [],
        },
      ],
      problems: [],
    };
    const text = renderDoctor({ ...report, commands }, '0.1.0');
    assert.match(text, /\| prompt commands \| `\/review`, `\/mine` \|/);
    assert.match(text, /\| \/review \| `.agentls\/commands\/review.md`; allowed-tools \*\*not approved\*\* \(`agentls trust`\) \|/);
    assert.match(text, /\| \/mine \| `\/c\/commands\/mine.md`; allows read_file \|/);
    assert.doesNotMatch(renderDoctor(report, '0.1.0'), /prompt commands/); // an older server sent none
  });

  it('names each language server that would not run, why, and how to install it', () => {
    const text = renderDoctor(report, '0.1.0');
    assert.match(text, /\| pyright \| not used: basedpyright runs instead \(both serve the same files\) \|/);
    assert.match(text, /\| gopls \| not used: gopls was not found on PATH; install it: `go install golang\.org\/x\/tools\/gopls@latest` \|/);
    const none = renderDoctor({ ...report, languageServers: [] }, '0.1.0');
    assert.match(none, /\| language servers \| none would run \|/);
  });

  it('lists each hook under its event and layer, and why one would not run', () => {
    const hook = { matcher: '', timeout: 60, sandbox: true, runs: true, reason: null };
    const hooks = {
      disableAllHooks: true,
      allowManagedHooksOnly: false,
      configured: [
        { ...hook, event: 'PreToolUse', matcher: 'Edit|Write', command: 'jq -r .tool_input | fmt', source: 'user', path: '/c/settings.json', runs: false, reason: 'disableAllHooks is set' },
        { ...hook, event: 'SessionStart', command: 'echo `date`', source: 'managed', path: '/etc/agentls/managed-settings.json' },
      ],
      problems: [],
    };
    const text = renderDoctor({ ...report, hooks }, '0.1.0');
    assert.match(text, /\| hooks \| 1 of 2 would run; `disableAllHooks`: only the managed settings' hooks run \|/);
    // a `|` in a matcher or a command would end the table cell: escaped
    assert.ok(text.includes('| PreToolUse | `jq -r .tool_input \\| fmt` (matcher `Edit\\|Write`; user settings), **not run**: disableAllHooks is set |'));
    assert.ok(text.includes('| SessionStart | `` echo `date` `` (managed settings) |'));
    const none = renderDoctor({ ...report, hooks: { ...hooks, disableAllHooks: false, configured: [] } }, '0.1.0');
    assert.match(none, /\| hooks \| none configured \|/);
    assert.doesNotMatch(renderDoctor(report, '0.1.0'), /\| hooks \|/); // an older server sent none
  });

  it('says when the extension and the server differ, and when there is no report', () => {
    assert.match(renderDoctor({ ...report, ok: true, blocking: [] }, '0.2.0'), /ready to ask[\s\S]*0\.2\.0 \(\*\*differs from the server\*\*\)/);
    assert.match(renderDoctor(null, '0.1.0'), /no report/);
  });
});

// `agentls.doctor`'s report (the same as `agentls doctor --json`) as markdown.
// Free of `vscode`, so it is unit-tested.

import type { DoctorReport, LanguageServerInfo, SettingsFileState } from '../protocol';

/** agentls's own servers: those that would run, then each that would not, why and how to install it. */
function languageServerRows(servers: LanguageServerInfo[]): string[] {
  const runs = (s: LanguageServerInfo) => s.wouldRun;
  const running = servers.filter(runs).map((s) => `${s.name} ${s.version ?? ''}`.trim());
  const rows = [`| language servers | ${running.join(', ') || 'none would run'} |`];
  for (const s of servers.filter((server) => !runs(server))) {
    const install = s.install ? `; install it: \`${s.install}\`` : '';
    rows.push(`| ${s.name} | not used: ${s.reason ?? 'not found on PATH'}${install} |`);
  }
  return rows;
}

/** The managed policy in force: what it holds and which of the person's settings it overrides. */
function managedText(r: DoctorReport, scope: string): string {
  const managed = r.settings.managed;
  if (scope !== 'managed' || !managed?.inForce) return '';
  const holds = managed.enforces.join(', ') || 'no restriction';
  return `, **in force**: ${holds}${managed.overrides.length ? `; overrides ${managed.overrides.join('; ')}` : ''}`;
}

/** Text as inline code in a table cell: a fence longer than any backtick run in it, `|` escaped. */
function code(text: string): string {
  const fence = '`'.repeat(Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length)) + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text.replace(/\|/g, '\\|')}${pad}${fence}`;
}

/** Each configured hook under its event: its settings layer, and why it would not run (the doctor runs none). */
function hookRows(r: DoctorReport): string[] {
  const hooks = r.hooks;
  if (!hooks) return []; // an older server
  const running = hooks.configured.filter((h) => h.runs).length;
  let summary = hooks.configured.length ? `${running} of ${hooks.configured.length} would run` : 'none configured';
  if (hooks.allowManagedHooksOnly) summary += "; only the managed settings' hooks run here (`allowManagedHooksOnly`)";
  else if (hooks.disableAllHooks) summary += "; `disableAllHooks`: only the managed settings' hooks run";
  const rows = [`| hooks | ${summary} |`];
  for (const h of hooks.configured) {
    const matcher = h.matcher ? `matcher ${code(h.matcher)}; ` : '';
    const notRun = h.runs ? '' : `, **not run**: ${(h.reason ?? '').replace(/\|/g, '\\|')}`;
    rows.push(`| ${h.event} | ${code(h.command)} (${matcher}${h.source} settings)${notRun} |`);
  }
  return rows;
}

function telemetryRows(r: DoctorReport): string[] {
  const t = r.telemetry;
  if (!t) return []; // an older server
  if (!t.enabled) return ['| telemetry | off |'];
  const content = t.logContent ? ', with content (masked)' : '';
  return [`| telemetry | on: ${t.protocol} to ${t.endpoint}${content}${t.exporting ? '' : ', **cannot export here**'} |`];
}

/** The prompt commands an ask here may start with, each with its file (the files skipped are warnings). */
function commandRows(r: DoctorReport): string[] {
  const listed = r.commands;
  if (!listed) return []; // an older server
  const rows = [`| prompt commands | ${listed.commands.map((c) => `\`/${c.name}\``).join(', ') || 'none'} |`];
  for (const c of listed.commands) {
    const allows = c.rules.length ? `; allows ${c.rules.join(', ')}` : c.allowedTools.length && !c.trusted ? '; allowed-tools **not approved** (`agentls trust`)' : '';
    rows.push(`| /${c.name} | \`${c.path}\`${allows} |`);
  }
  return rows;
}

export function renderDoctor(data: unknown, clientVersion: string): string {
  const r = data as DoctorReport;
  if (!r || typeof r !== 'object' || typeof r.version !== 'string') {
    return '# agentls doctor\n\nThe server sent no report.\n';
  }
  const key =
    r.model.keySet === null ? 'no key needed' : `\`${r.model.keyVariable}\` ${r.model.keySet ? 'is set' : '**is not set**'}`;
  const files = Object.entries(r.settings).filter((entry): entry is [string, SettingsFileState] => entry[1] !== undefined);
  const settings = files.map(([scope, s]) => {
    const trust = s.trusted === true ? ', approved' : s.trusted === false ? ', **not approved** (`agentls trust`)' : '';
    return `| ${scope} settings | \`${s.path}\`: ${s.exists ? 'present' : 'none'}${trust}${managedText(r, scope)}${s.error ? `, **error**: ${s.error}` : ''} |`;
  });
  const editors = r.editors.map((e) => `${e.editor} ${e.version ?? '?'}`);
  const lines = [
    `# agentls doctor: ${r.ok ? 'ready to ask' : 'not ready'}`,
    '',
    ...r.blocking.map((b) => `- **Blocking:** ${b}`),
    ...r.warnings.map((w) => `- Warning: ${w}`),
    ...(r.blocking.length + r.warnings.length > 0 ? [''] : []),
    '| | |',
    '|---|---|',
    `| server | ${r.version} (Python ${r.python.version}, \`${r.python.executable}\`) |`,
    `| extension | ${clientVersion}${clientVersion === r.version ? '' : ' (**differs from the server**)'} |`,
    `| workspace | ${r.workspace ? `\`${r.workspace}\`` : '-'} |`,
    `| model | ${r.model.id ?? '-'}: ${key}${r.model.baseUrl ? `, base URL ${r.model.baseUrl}` : ''} |`,
    `| ripgrep | ${r.ripgrep.found ? `${r.ripgrep.version ?? ''} \`${r.ripgrep.path}\`` : 'not found (slower search)'} |`,
    `| sandbox | ${r.sandbox.on ? 'on' : 'off'}: ${r.sandbox.detail} |`,
    `| state | \`${r.folders.state}\` |`,
    `| config | \`${r.folders.config}\` |`,
    ...settings,
    ...telemetryRows(r),
    ...commandRows(r),
    ...hookRows(r),
    `| MCP servers | ${r.mcpServers.join(', ') || 'none configured'} |`,
    ...languageServerRows(r.languageServers),
    `| editors | ${editors.join(', ') || 'none found'} |`,
  ];
  return lines.join('\n') + '\n';
}

// Which of the `agentls.*` settings go to the server, and how.
//
// Only what the person set is sent: a default from package.json would
// override their ~/.config/agentls/settings.json (editor settings are a later
// layer), and the server rejects keys it does not know (so the client's own
// keys stay here).

/** The server's settings (docs/protocol.md), under the same names. */
export const SERVER_KEYS = [
  'model',
  'baseUrl',
  'temperature',
  'toolChoice',
  'reasoning',
  'mode',
  'maxTurns',
  'maxTokens',
  'maxCostUsd',
  'timeoutSeconds',
  'commandTimeoutSeconds',
  'maxBackgroundProcesses',
  'maxOutputTokens',
  'approvalTimeoutSeconds',
  'approvalsVia',
  'reviewVia',
  'permissions',
  'alwaysAllowScope',
  'sandbox',
  'sandboxNetwork',
  'sandboxWritable',
  'sandboxEnv',
  'secretFiles',
  'mcpServers',
  'languageIntelligence',
  'telemetry',
  'instructions',
  'hooks',
  'disableAllHooks',
] as const;

/** The client's own settings: never sent. */
export const CLIENT_KEYS = ['serverPath', 'serverEnv', 'modalApprovals', 'additionalSettings', 'trace'] as const;

/** Changing one of these needs a new server process. */
export const RESTART_KEYS = ['serverPath', 'serverEnv'] as const;

/** Returns the value the person set for `agentls.<key>` in any scope, or undefined. */
export type ReadSetting = (key: string) => unknown;

export function serverSettings(read: ReadSetting): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const extra = read('additionalSettings');
  if (isPlainObject(extra)) {
    for (const [key, value] of Object.entries(extra)) {
      if (!(CLIENT_KEYS as readonly string[]).includes(key) && isSet(value)) {
        out[key] = value;
      }
    }
  }
  for (const key of SERVER_KEYS) {
    const value = read(key);
    if (isSet(value)) {
      out[key] = value;
    }
  }
  return out;
}

/** Empty strings, lists and objects mean "not set" in a settings UI. */
function isSet(value: unknown): boolean {
  if (value === undefined || value === null) {
    return false;
  }
  if (typeof value === 'string') {
    return value.trim() !== '';
  }
  if (Array.isArray(value)) {
    return value.length > 0;
  }
  if (isPlainObject(value)) {
    return Object.keys(value).length > 0;
  }
  return true;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type ModalApprovals = 'commands' | 'all' | 'none';

export function modalApprovals(read: ReadSetting): ModalApprovals {
  const value = read('modalApprovals');
  return value === 'all' || value === 'none' ? value : 'commands';
}

/** The server's environment: ours plus `agentls.serverEnv` (strings only). */
export function serverEnvironment(base: NodeJS.ProcessEnv, read: ReadSetting): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  const extra = read('serverEnv');
  if (isPlainObject(extra)) {
    for (const [key, value] of Object.entries(extra)) {
      if (typeof value === 'string') {
        env[key] = value;
      }
    }
  }
  return env;
}

/** One key's values by scope, as `WorkspaceConfiguration.inspect` gives them. */
export interface ScopedValues {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
  globalLanguageValue?: unknown;
  workspaceLanguageValue?: unknown;
  workspaceFolderLanguageValue?: unknown;
}

export type InspectSetting = (key: string) => ScopedValues | undefined;

/** Where the server gets values of the workspace scopes: they come with the repository, so
 * the server applies only harmless ones from there (like `.agentls/settings.json` before
 * `agentls trust`). */
export const WORKSPACE_SCOPED = 'workspaceScoped';

/** The person's own (user scope) values, and the workspace's (workspace and folder scopes). */
export function splitScopes(inspect: InspectSetting): { user: ReadSetting; workspace: ReadSetting } {
  return {
    user: (key) => {
      const values = inspect(key);
      return values?.globalLanguageValue ?? values?.globalValue;
    },
    workspace: (key) => {
      const values = inspect(key);
      return (
        values?.workspaceFolderLanguageValue ??
        values?.workspaceLanguageValue ??
        values?.workspaceFolderValue ??
        values?.workspaceValue
      );
    },
  };
}

/** What goes to the server: the user's values as they are, the workspace's marked as such. */
export function scopedServerSettings(inspect: InspectSetting): Record<string, unknown> {
  const { user, workspace } = splitScopes(inspect);
  const out = serverSettings(user);
  const scoped = serverSettings(workspace);
  if (Object.keys(scoped).length > 0) {
    out[WORKSPACE_SCOPED] = scoped;
  }
  return out;
}

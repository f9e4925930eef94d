// Reading `agentls.*` from VS Code's configuration for the pure mapping in
// settings/serverSettings.ts.
import * as vscode from 'vscode';
import type { InspectSetting, ReadSetting, ScopedValues } from '../settings/serverSettings';

export const SECTION = 'agentls';

/** What the person set (in any scope), never a package.json default. */
export function explicitSettings(scope?: vscode.Uri): ReadSetting {
  const config = vscode.workspace.getConfiguration(SECTION, scope ?? null);
  return (key) => {
    const inspected = config.inspect(key);
    if (!inspected) {
      return undefined;
    }
    const set = [
      inspected.globalValue,
      inspected.workspaceValue,
      inspected.workspaceFolderValue,
      inspected.globalLanguageValue,
      inspected.workspaceLanguageValue,
      inspected.workspaceFolderLanguageValue,
    ].some((value) => value !== undefined);
    // A plain copy: configuration objects are read-only proxies.
    return set ? (JSON.parse(JSON.stringify(config.get(key) ?? null)) as unknown) : undefined;
  };
}

/** Values with package.json's defaults, for the client's own settings. */
export function effectiveSettings(scope?: vscode.Uri): ReadSetting {
  const config = vscode.workspace.getConfiguration(SECTION, scope ?? null);
  return (key) => config.get(key);
}

/** Each key's values by scope, so that workspace values can be sent apart from the user's. */
export function inspectSettings(scope?: vscode.Uri): InspectSetting {
  const config = vscode.workspace.getConfiguration(SECTION, scope ?? null);
  // A plain copy: configuration objects are read-only proxies.
  return (key) => (JSON.parse(JSON.stringify(config.inspect(key) ?? null)) as ScopedValues | null) ?? undefined;
}

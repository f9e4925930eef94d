// Reading `agentls.*` from VS Code's configuration for the pure mapping in
// settings/serverSettings.ts.
import * as vscode from 'vscode';
import type { ReadSetting } from '../settings/serverSettings';

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

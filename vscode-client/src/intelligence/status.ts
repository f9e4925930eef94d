// What the status bar's tooltip says about language intelligence: VS Code's own
// answers, and the language servers agentls runs itself (agentls/languageServers).
// Pure: no `vscode` here.
import { languageStatusLine } from './convert';
import type { LanguageStatus } from './wire';

export class LanguageStatusStore {
  private status: LanguageStatus | undefined;
  private answered = false;
  private readonly listeners = new Set<() => void>();

  /** The client declared it answers the agentls/* language requests. */
  answering(on: boolean): void {
    this.answered = on;
    this.changed();
  }

  set(status: LanguageStatus): void {
    this.status = status;
    this.changed();
  }

  line(): string {
    return languageStatusLine(this.status, this.answered);
  }

  subscribe(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private changed(): void {
    for (const listener of this.listeners) {
      listener();
    }
  }
}

/** One per extension host: the connection feeds it, the status bar reads it. */
export const languageStatus = new LanguageStatusStore();

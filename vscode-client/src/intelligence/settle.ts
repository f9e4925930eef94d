// When VS Code's verdict on a file is fresh. VS Code ties no version to
// diagnostics: a file is settled once its problems changed after its text last
// did. A checker that finds nothing new fires no event, so the wait is bounded
// by the server's settle time. Pure: fed by the handlers (handlers.ts).

export interface Settled {
  settled: boolean;
}

export class DiagnosticsClock {
  private tick = 0;
  private readonly changedAt = new Map<string, number>();
  private readonly diagnosedAt = new Map<string, number>();
  private readonly waiters = new Map<string, Set<() => void>>();
  /** Languages some checker reported on: files of those are "checked". VS Code checks
   * these itself, so a clean file of theirs is checked before any report. */
  private readonly checkedLanguages = new Set<string>(['typescript', 'typescriptreact', 'json', 'jsonc', 'css', 'scss', 'less']);

  textChanged(uri: string): void {
    this.changedAt.set(uri, ++this.tick);
  }

  diagnosticsChanged(uri: string, languageId: string | undefined, count: number): void {
    this.diagnosedAt.set(uri, ++this.tick);
    if (languageId && count > 0) {
      this.checkedLanguages.add(languageId);
    }
    for (const wake of this.waiters.get(uri) ?? []) {
      wake();
    }
  }

  isSettled(uri: string): boolean {
    const changed = this.changedAt.get(uri);
    if (changed === undefined) {
      return true; // unchanged since this client started: its checkers have had their time
    }
    return (this.diagnosedAt.get(uri) ?? 0) > changed;
  }

  isChecked(languageId: string | undefined, problems: number): boolean {
    return problems > 0 || (languageId !== undefined && this.checkedLanguages.has(languageId));
  }

  /** Resolves once the file is settled, or after `timeoutMs` (settled: false). */
  waitSettled(uri: string, timeoutMs: number): Promise<Settled> {
    if (this.isSettled(uri)) {
      return Promise.resolve({ settled: true });
    }
    return new Promise((resolve) => {
      const set = this.waiters.get(uri) ?? new Set<() => void>();
      this.waiters.set(uri, set);
      const finish = (settled: boolean): void => {
        clearTimeout(timer);
        set.delete(check);
        if (set.size === 0) {
          this.waiters.delete(uri);
        }
        resolve({ settled });
      };
      const check = (): void => {
        if (this.isSettled(uri)) {
          finish(true);
        }
      };
      const timer = setTimeout(() => finish(this.isSettled(uri)), Math.max(0, timeoutMs));
      set.add(check);
    });
  }
}

// Edits the server sends with needsConfirmation open VS Code's Refactor
// Preview, where every change starts unticked: the person ticks the hunks to
// keep and applies them there (per hunk), or discards. The chat view adds
// "Apply all": it closes the preview and applies the same edit in full,
// answering the server's workspace/applyEdit with `applied: true`.
// Pure over the LSP JSON and an injected "close the preview".

export interface EditParams {
  label?: string;
  edit: {
    changeAnnotations?: Record<string, { label: string; needsConfirmation?: boolean; description?: string }>;
  };
}

export function needsConfirmation(params: EditParams): boolean {
  return Object.values(params.edit.changeAnnotations ?? {}).some((annotation) => annotation.needsConfirmation === true);
}

/** The same edit, applied without a preview: the person already said yes to all of it. */
export function withoutConfirmation<T extends EditParams>(params: T): T {
  const annotations = Object.fromEntries(
    Object.entries(params.edit.changeAnnotations ?? {}).map(([id, annotation]) => [id, { ...annotation, needsConfirmation: false }]),
  );
  return { ...params, edit: { ...params.edit, changeAnnotations: annotations } };
}

type Outcome<R> = { from: 'preview'; result: R } | { from: 'chat' };

export class ReviewBroker {
  private applyAllNow: (() => void) | undefined;

  constructor(private readonly closePreview: () => Promise<unknown>) {}

  get waiting(): boolean {
    return this.applyAllNow !== undefined;
  }

  /** The languageclient's handleApplyEdit middleware: `next` is VS Code's own applyEdit. */
  async handle<P extends EditParams, R>(params: P, next: (params: P) => Promise<R>): Promise<R> {
    if (!needsConfirmation(params)) {
      return next(params);
    }
    const preview = next(params).then((result): Outcome<R> => ({ from: 'preview', result }));
    const chat = new Promise<Outcome<R>>((resolve) => {
      this.applyAllNow = () => resolve({ from: 'chat' });
    });
    try {
      const first = await Promise.race([preview, chat]);
      if (first.from === 'preview') {
        return first.result;
      }
      await this.closePreview();
      await preview; // the preview answers "not applied" once closed; that answer is not the person's
      return await next(withoutConfirmation(params));
    } finally {
      this.applyAllNow = undefined;
    }
  }

  /** From the chat view's "Apply all"; false when no edit waits in the preview. */
  applyAll(): boolean {
    const apply = this.applyAllNow;
    if (!apply) {
      return false;
    }
    apply();
    return true;
  }
}

// Edits the server sends with needsConfirmation wait here for the person's
// answer: Apply (all of it), Reject, or Pick changes, which opens VS Code's
// Refactor Preview to tick hunks. The preview cannot say whether nothing was
// ticked or it was discarded (VS Code answers both "not applied"), so an
// empty answer from it is never taken as a no: the review waits again. Only
// Reject says no to the server; a review whose run ended is closed.
// Pure over the LSP JSON and an injected host.

export interface EditParams {
  label?: string;
  edit: {
    changeAnnotations?: Record<string, { label: string; needsConfirmation?: boolean; description?: string }>;
  };
}

export interface EditResult {
  applied: boolean;
  failureReason?: string;
}

/** What the person can say, from the chat, the diff's title bar or the palette; `ended`: the run is over. */
export type Decision = 'apply' | 'reject' | 'pick' | 'ended';

/** Shown on the chat's card: the preview is open, or it came back with nothing applied. */
export type ReviewPhase = 'waiting' | 'picking' | 'nothing_picked';

export interface Review<P extends EditParams = EditParams> {
  id: number;
  params: P;
}

export interface ReviewHost {
  /** The review begins: show the person what the edit changes. */
  opened(review: Review): Promise<void>;
  phase(review: Review, phase: ReviewPhase): void;
  /** Close the Refactor Preview; VS Code then answers its applyEdit with "not applied". */
  closePreview(): Promise<unknown>;
  /** The review is answered: take down what `opened` showed. */
  closed(review: Review): Promise<void>;
  /** Something failed on the way (shown in the log). */
  warn(message: string): void;
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

const REJECTED: EditResult = { applied: false };
const NOT_APPLIED = 'VS Code did not apply it: the file changed while the edit waited for review (read it again)';
const ENDED: EditResult = { applied: false, failureReason: 'the run ended before the review was answered' };

type Step<R> = { decision: Decision } | { preview: R };

export class ReviewBroker {
  private current: { review: Review; decide: (decision: Decision) => void } | undefined;
  private reviews = 0;

  constructor(private readonly host: ReviewHost) {}

  get waiting(): Review | undefined {
    return this.current?.review;
  }

  /** The languageclient's handleApplyEdit middleware: `next` is VS Code's own applyEdit. */
  async handle<P extends EditParams, R extends EditResult>(params: P, next: (params: P) => Promise<R>): Promise<R> {
    if (!needsConfirmation(params)) {
      return next(params);
    }
    const review: Review<P> = { id: ++this.reviews, params };
    const decisions = new Channel<Decision>();
    this.current = { review, decide: (decision) => decisions.put(decision) };
    let preview: Promise<R> | undefined;
    try {
      this.host.phase(review, 'waiting');
      await this.host.opened(review).catch((error: unknown) => this.host.warn(`showing the edit: ${String(error)}`));
      let decided = decisions.take(); // kept across a preview's answer: no decision is lost
      for (;;) {
        const waits: Promise<Step<R>>[] = [decided.then((decision) => ({ decision }))];
        if (preview) {
          waits.push(preview.then((result) => ({ preview: result })));
        }
        const step = await Promise.race(waits);
        if ('preview' in step) {
          preview = undefined;
          if (step.preview.applied) {
            return step.preview; // the ticked hunks, applied in the preview
          }
          this.host.phase(review, 'nothing_picked');
          continue;
        }
        decided = decisions.take();
        if (step.decision === 'pick') {
          if (!preview) {
            preview = next(params).catch((error: unknown) => {
              this.host.warn(`the Refactor Preview: ${String(error)}`);
              return REJECTED as R;
            });
            this.host.phase(review, 'picking');
          }
          continue;
        }
        if (preview) {
          // Closing the preview answers it "not applied"; that answer is not the person's.
          // An Apply the person pressed there first stands, and is not applied twice.
          await this.host.closePreview();
          const answered = await preview;
          preview = undefined;
          if (answered.applied) {
            return answered;
          }
        }
        if (step.decision === 'apply') {
          const result = await next(withoutConfirmation(params));
          // VS Code refuses an edit made for an older version of the file.
          return result.applied || result.failureReason ? result : ({ ...result, failureReason: NOT_APPLIED } as R);
        }
        return (step.decision === 'reject' ? REJECTED : ENDED) as R;
      }
    } finally {
      this.current = undefined;
      await this.host.closed(review).catch((error: unknown) => this.host.warn(`closing the review: ${String(error)}`));
    }
  }

  /** The person's answer (or the run's end) for the edit waiting now; false when none waits. */
  decide(decision: Decision): boolean {
    const current = this.current;
    if (!current) {
      return false;
    }
    current.decide(decision);
    return true;
  }
}

/** Decisions in the order they come; one taker at a time. */
class Channel<T> {
  private readonly queued: T[] = [];
  private taker: ((value: T) => void) | undefined;

  put(value: T): void {
    const taker = this.taker;
    if (taker) {
      this.taker = undefined;
      taker(value);
    } else {
      this.queued.push(value);
    }
  }

  take(): Promise<T> {
    const first = this.queued.shift();
    if (first !== undefined) {
      return Promise.resolve(first);
    }
    return new Promise((resolve) => (this.taker = resolve));
  }
}

// What an edit waiting for review would make of each file it touches, so the
// person can look at a side-by-side diff before answering. Pure over the LSP
// JSON: the current texts come from an injected lookup.

export interface Position {
  line: number;
  character: number;
}

export interface TextEdit {
  range: { start: Position; end: Position };
  newText: string;
}

export interface ProposedFile {
  uri: string;
  /** The file does not exist yet: the edit creates it. */
  created: boolean;
  before: string;
  after: string;
}

interface DocumentChange {
  kind?: string;
  uri?: string;
  textDocument?: { uri?: string };
  edits?: TextEdit[];
}

/** Every file of the edit with its text now and after the edit, in the edit's order. */
export function proposedFiles(
  edit: { documentChanges?: unknown[]; changes?: Record<string, TextEdit[]> },
  current: (uri: string) => string | undefined,
): ProposedFile[] {
  const files = new Map<string, ProposedFile>();
  const fileOf = (uri: string, created: boolean): ProposedFile => {
    let file = files.get(uri);
    if (!file) {
      const before = created ? '' : (current(uri) ?? '');
      file = { uri, created: created || current(uri) === undefined, before, after: before };
      files.set(uri, file);
    }
    return file;
  };
  for (const raw of edit.documentChanges ?? []) {
    const change = raw as DocumentChange;
    if (change.kind === 'create' && typeof change.uri === 'string') {
      fileOf(change.uri, true);
    } else if (typeof change.textDocument?.uri === 'string') {
      const file = fileOf(change.textDocument.uri, false);
      file.after = applyEdits(file.after, change.edits ?? []);
    }
  }
  for (const [uri, edits] of Object.entries(edit.changes ?? {})) {
    const file = fileOf(uri, false);
    file.after = applyEdits(file.after, edits);
  }
  return [...files.values()];
}

/** The text with the edits applied; their ranges all refer to `text` (LSP's rule), in UTF-16 units. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const starts = lineStarts(text);
  const offsetOf = (position: Position): number => {
    if (position.line >= starts.length) {
      return text.length;
    }
    const start = starts[position.line] ?? 0;
    const end = position.line + 1 < starts.length ? lineContentEnd(text, starts[position.line + 1] ?? text.length) : text.length;
    return Math.min(start + position.character, end);
  };
  const spans = edits
    .map((edit, order) => ({ from: offsetOf(edit.range.start), to: offsetOf(edit.range.end), text: edit.newText, order }))
    .sort((a, b) => b.from - a.from || b.order - a.order);
  let result = text;
  for (const span of spans) {
    result = result.slice(0, span.from) + span.text + result.slice(Math.max(span.from, span.to));
  }
  return result;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\r' && text[i + 1] === '\n') {
      i += 1;
    }
    if (c === '\n' || c === '\r') {
      starts.push(i + 1);
    }
  }
  return starts;
}

/** The offset where a line's text ends, given where the next line starts (before its line break). */
function lineContentEnd(text: string, nextStart: number): number {
  if (text[nextStart - 1] === '\n' && text[nextStart - 2] === '\r') {
    return nextStart - 2;
  }
  return nextStart - 1;
}

// Fix Problem at Cursor: which diagnostic, and what to ask. Pure.
import type { Position, Range } from '../protocol';

export interface ProblemLike {
  message: string;
  range: Range;
  /** 0 error, 1 warning, 2 information, 3 hint (vscode.DiagnosticSeverity). */
  severity: number;
  source?: string;
  code?: string | number;
}

function contains(range: Range, at: Position): boolean {
  const after = at.line > range.start.line || (at.line === range.start.line && at.character >= range.start.character);
  const before = at.line < range.end.line || (at.line === range.end.line && at.character <= range.end.character);
  return after && before;
}

function touchesLine(range: Range, line: number): boolean {
  return range.start.line <= line && line <= range.end.line;
}

function span(range: Range): number {
  return (range.end.line - range.start.line) * 10_000 + (range.end.character - range.start.character);
}

/** Under the cursor first, else on its line; the most severe, then the narrowest. */
export function pickProblem<T extends ProblemLike>(problems: readonly T[], cursor: Position): T | undefined {
  const rank = (list: T[]) => list.slice().sort((a, b) => a.severity - b.severity || span(a.range) - span(b.range))[0];
  const under = problems.filter((p) => contains(p.range, cursor));
  return rank(under.length > 0 ? under : problems.filter((p) => touchesLine(p.range, cursor.line)));
}

export function fixPrompt(problem: ProblemLike, relPath: string): { prompt: string; range: Range } {
  const origin = [problem.source, problem.code === undefined ? undefined : String(problem.code)].filter(Boolean).join(' ');
  const line = problem.range.start.line + 1;
  const prompt = `Fix this problem in ${relPath} at line ${line}${origin ? ` (${origin})` : ''}: ${problem.message}`;
  // Whole lines, so the server attaches the code around the problem.
  const range: Range = {
    start: { line: problem.range.start.line, character: 0 },
    end: { line: problem.range.end.line, character: 0 },
  };
  return { prompt, range };
}

/**
 * A selection as the lines it covers: one that ends at the start of a line
 * (a whole-line selection made with Shift+Down) does not take that line.
 */
export function selectedLines(range: Range): Range {
  if (range.end.character === 0 && range.end.line > range.start.line) {
    return { start: range.start, end: { line: range.end.line - 1, character: Number.MAX_SAFE_INTEGER } };
  }
  return range;
}

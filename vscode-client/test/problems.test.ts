import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixPrompt, pickProblem, type ProblemLike, selectedLines } from '../src/commands/problems';

const problem = (message: string, line: number, start: number, end: number, severity = 0): ProblemLike => ({
  message,
  range: { start: { line, character: start }, end: { line, character: end } },
  severity,
  source: 'pyright',
  code: 'reportUndefinedVariable',
});

describe('fix problem at cursor', () => {
  it('picks the problem under the cursor, the most severe first', () => {
    const list = [problem('hint', 3, 0, 20, 3), problem('error', 3, 4, 9, 0), problem('elsewhere', 8, 0, 5)];
    assert.equal(pickProblem(list, { line: 3, character: 5 })?.message, 'error');
  });

  it('falls back to a problem on the cursor line', () => {
    assert.equal(pickProblem([problem('on the line', 3, 10, 12)], { line: 3, character: 0 })?.message, 'on the line');
    assert.equal(pickProblem([problem('other line', 4, 0, 2)], { line: 3, character: 0 }), undefined);
  });

  it('asks to fix it with the whole lines attached', () => {
    const { prompt, range } = fixPrompt(problem('"foo" is not defined', 3, 4, 7), 'src/a.py');
    assert.equal(prompt, 'Fix this problem in src/a.py at line 4 (pyright reportUndefinedVariable): "foo" is not defined');
    assert.deepEqual(range, { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } });
  });

  it('leaves out the line a whole-line selection ends on', () => {
    const whole = selectedLines({ start: { line: 0, character: 0 }, end: { line: 2, character: 0 } });
    assert.equal(whole.end.line, 1);
    const partial = { start: { line: 0, character: 4 }, end: { line: 1, character: 7 } };
    assert.deepEqual(selectedLines(partial), partial);
    const empty = { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } };
    assert.deepEqual(selectedLines(empty), empty);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { diagnostic, fileEdits, languageStatusLine, locations, symbols } from '../src/intelligence/convert';
import { DiagnosticsClock } from '../src/intelligence/settle';
import { LanguageStatusStore } from '../src/intelligence/status';
import { INTELLIGENCE_METHODS, requestName } from '../src/intelligence/wire';

const r = (line: number, start: number, end: number) => ({ start: { line, character: start }, end: { line, character: end } });
const uri = (text: string) => ({ toString: () => text });

describe('VS Code answers in the wire shapes', () => {
  it('turns a diagnostic into LSP severity, source and code', () => {
    const error = diagnostic({ range: r(2, 4, 9), message: "Type 'string' is not assignable to type 'number'.", severity: 0, source: 'ts', code: 2322 });
    assert.deepEqual(error, { range: r(2, 4, 9), severity: 1, message: "Type 'string' is not assignable to type 'number'.", source: 'ts', code: 2322 });
    const hint = diagnostic({ range: r(0, 0, 1), message: 'unused', severity: 3, code: { value: 'reportUnused' } });
    assert.equal(hint.severity, 4);
    assert.equal(hint.code, 'reportUnused');
    assert.equal('source' in hint, false);
  });

  it('gives locations and location links as locations, a link by its name', () => {
    const found = locations([
      { uri: uri('file:///w/a.ts'), range: r(3, 0, 5) },
      { targetUri: uri('file:///w/b.ts'), targetRange: r(10, 0, 40), targetSelectionRange: r(10, 9, 14) },
      { targetUri: 'file:///w/c.ts', targetRange: r(1, 0, 2) },
    ]);
    assert.deepEqual(found, [
      { uri: 'file:///w/a.ts', range: r(3, 0, 5) },
      { uri: 'file:///w/b.ts', range: r(10, 9, 14) },
      { uri: 'file:///w/c.ts', range: r(1, 0, 2) },
    ]);
    assert.deepEqual(locations(undefined), []);
  });

  it('flattens a document symbol tree with containers and LSP kinds', () => {
    const tree = [
      { name: 'Shape', kind: 4, range: r(0, 0, 9), selectionRange: r(0, 6, 11), children: [{ name: 'area', kind: 5, range: r(1, 2, 3), selectionRange: r(1, 2, 6) }] },
    ];
    assert.deepEqual(symbols(tree, 'file:///w/s.ts'), [
      { name: 'Shape', kind: 5, location: { uri: 'file:///w/s.ts', range: r(0, 6, 11) } },
      { name: 'area', kind: 6, location: { uri: 'file:///w/s.ts', range: r(1, 2, 6) }, containerName: 'Shape' },
    ]);
  });

  it('keeps workspace symbols where they are', () => {
    const found = symbols([{ name: 'total', kind: 11, location: { uri: uri('file:///w/t.ts'), range: r(4, 16, 21) }, containerName: 'shapes' }]);
    assert.deepEqual(found, [{ name: 'total', kind: 12, location: { uri: 'file:///w/t.ts', range: r(4, 16, 21) }, containerName: 'shapes' }]);
  });

  it("gives a rename's workspace edit by file, edits to one file together", () => {
    const edits = fileEdits([
      [uri('file:///w/a.ts'), [{ range: r(0, 9, 14), newText: 'sum' }]],
      [uri('file:///w/b.ts'), [{ range: r(2, 0, 5), newText: 'sum' }]],
      [uri('file:///w/a.ts'), [{ range: r(7, 1, 6), newText: 'sum' }]],
    ]);
    assert.deepEqual(edits, [
      { uri: 'file:///w/a.ts', edits: [{ range: r(0, 9, 14), newText: 'sum' }, { range: r(7, 1, 6), newText: 'sum' }] },
      { uri: 'file:///w/b.ts', edits: [{ range: r(2, 0, 5), newText: 'sum' }] },
    ]);
  });

  it('names every request under agentls/', () => {
    assert.deepEqual(INTELLIGENCE_METHODS.map(requestName), ['agentls/problems', 'agentls/definition', 'agentls/references', 'agentls/symbols', 'agentls/rename']);
  });
});

describe('when a verdict is fresh', () => {
  it('is settled once the problems changed after the text did', async () => {
    const clock = new DiagnosticsClock();
    clock.textChanged('file:///w/a.ts');
    assert.equal(clock.isSettled('file:///w/a.ts'), false);
    const waiting = clock.waitSettled('file:///w/a.ts', 60_000);
    clock.diagnosticsChanged('file:///w/b.ts', 'typescript', 1); // another file: still waiting
    clock.diagnosticsChanged('file:///w/a.ts', 'typescript', 2);
    assert.deepEqual(await waiting, { settled: true });
    clock.textChanged('file:///w/a.ts');
    assert.equal(clock.isSettled('file:///w/a.ts'), false);
  });

  it('takes a file unchanged since the client started as settled', async () => {
    assert.deepEqual(await new DiagnosticsClock().waitSettled('file:///w/old.ts', 60_000), { settled: true });
  });

  it('gives up after the settle time, unsettled', async () => {
    const clock = new DiagnosticsClock();
    clock.textChanged('file:///w/a.py');
    assert.deepEqual(await clock.waitSettled('file:///w/a.py', 0), { settled: false });
  });

  it('counts a file as checked when its language has a checker in VS Code', () => {
    const clock = new DiagnosticsClock();
    assert.equal(clock.isChecked('typescript', 0), true); // built in
    assert.equal(clock.isChecked('python', 0), false);
    assert.equal(clock.isChecked('python', 2), true);
    clock.diagnosticsChanged('file:///w/a.py', 'python', 1);
    assert.equal(clock.isChecked('python', 0), true);
  });
});

describe('the status tooltip', () => {
  it("says who answers and which of agentls's servers run", () => {
    assert.equal(languageStatusLine(undefined, true), "Language intelligence: VS Code's own");
    const status = {
      editor: null,
      servers: [
        { name: 'basedpyright', root: '/w', state: 'running' as const, detail: '' },
        { name: 'ruff', root: '/w', state: 'failed' as const, detail: 'ruff crashed twice' },
      ],
    };
    assert.equal(languageStatusLine(status, false), "agentls's language servers: basedpyright, ruff (failed)");
    assert.equal(languageStatusLine({ editor: null, servers: [] }, false), "agentls's language servers: none running");
  });

  it('tells its listeners', () => {
    const store = new LanguageStatusStore();
    const seen: string[] = [];
    const subscription = store.subscribe(() => seen.push(store.line()));
    store.answering(true);
    store.set({ editor: { name: 'code-server', answers: ['problems'] }, servers: [] });
    subscription.dispose();
    store.answering(false);
    assert.deepEqual(seen, ["Language intelligence: VS Code's own", "Language intelligence: VS Code's own"]);
  });
});

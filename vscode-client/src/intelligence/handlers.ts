// Answers the server's agentls/* language requests from VS Code's own language
// support, so agentls starts no second language server here: problems from
// vscode.languages.getDiagnostics, the rest from the vscode.execute*Provider
// commands. A rename's edit goes back to the server, which reviews it like any edit.
import * as vscode from 'vscode';
import type { ClientCapabilities, FeatureState, LanguageClient, StaticFeature } from 'vscode-languageclient/node';
import { diagnostic, fileEdits, locations, symbols } from './convert';
import { DiagnosticsClock } from './settle';
import { languageStatus } from './status';
import {
  type FileProblems,
  INTELLIGENCE_METHODS,
  type LanguageStatus,
  type ProblemsParams,
  type RenameParams,
  requestName,
  STATUS_METHOD,
  type SymbolsParams,
  type TextDocumentPositionParams,
} from './wire';

/** Declares the requests in `experimental.agentls.intelligence`, and that the status bar shows
 * agentls/languageServers (after AgentlsFeature wrote `agentls`). */
class IntelligenceFeature implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    const mine = (experimental.agentls ?? {}) as Record<string, unknown>;
    capabilities.experimental = { ...experimental, agentls: { ...mine, intelligence: [...INTELLIGENCE_METHODS], languageServers: true } };
  }

  initialize(): void {}

  getState(): FeatureState {
    return { kind: 'static' };
  }

  clear(): void {}
}

export interface IntelligenceOptions {
  log: vscode.LogOutputChannel;
}

/** Register before `client.start()`. */
export function registerIntelligence(client: LanguageClient, options: IntelligenceOptions): vscode.Disposable[] {
  const clock = new DiagnosticsClock();
  languageStatus.answering(true);
  const languageOf = (uri: vscode.Uri): string | undefined =>
    vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri.toString())?.languageId;
  client.registerFeature(new IntelligenceFeature());
  const safely =
    <P, R>(what: string, answer: (params: P) => Promise<R>) =>
    async (params: P): Promise<R | null> => {
      try {
        return await answer(params);
      } catch (error) {
        options.log.info(`${what}: ${error instanceof Error ? error.message : String(error)}`);
        return null; // the server then answers from its own servers, or says VS Code could not
      }
    };
  return [
    vscode.workspace.onDidOpenTextDocument((doc) => clock.textChanged(doc.uri.toString())),
    vscode.workspace.onDidChangeTextDocument((event) => {
      if (event.contentChanges.length > 0) {
        clock.textChanged(event.document.uri.toString());
      }
    }),
    vscode.languages.onDidChangeDiagnostics((event) => {
      for (const uri of event.uris) {
        clock.diagnosticsChanged(uri.toString(), languageOf(uri), vscode.languages.getDiagnostics(uri).length);
      }
    }),
    client.onRequest(requestName('problems'), safely('agentls/problems', (params: ProblemsParams) => problems(params, clock))),
    client.onRequest(
      requestName('definition'),
      safely('agentls/definition', async (params: TextDocumentPositionParams) =>
        locations(await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[]>('vscode.executeDefinitionProvider', ...at(params))),
      ),
    ),
    client.onRequest(
      requestName('references'),
      safely('agentls/references', async (params: TextDocumentPositionParams) =>
        locations(await vscode.commands.executeCommand<vscode.Location[]>('vscode.executeReferenceProvider', ...at(params))),
      ),
    ),
    client.onRequest(requestName('symbols'), safely('agentls/symbols', symbolsOf)),
    client.onRequest(
      requestName('rename'),
      safely('agentls/rename', async (params: RenameParams) => {
        const edit = await vscode.commands.executeCommand<vscode.WorkspaceEdit | undefined>(
          'vscode.executeDocumentRenameProvider',
          ...at(params),
          params.newName,
        );
        return edit ? fileEdits(edit.entries()) : null;
      }),
    ),
    client.onNotification(STATUS_METHOD, (status: LanguageStatus) => languageStatus.set(status)),
  ];
}

/** The problems VS Code's checkers found, without agentls's own (its questions). */
function theirs(found: readonly vscode.Diagnostic[]): vscode.Diagnostic[] {
  return found.filter((d) => d.source !== 'agentls');
}

function at(params: TextDocumentPositionParams): [vscode.Uri, vscode.Position] {
  return [vscode.Uri.parse(params.textDocument.uri), new vscode.Position(params.position.line, params.position.character)];
}

async function problems(params: ProblemsParams, clock: DiagnosticsClock): Promise<FileProblems[]> {
  const settleMs = Math.max(0, params.settleSeconds) * 1000;
  if (params.uris === null) {
    return vscode.languages.getDiagnostics().map(([uri, found]) => ({
      uri: uri.toString(),
      diagnostics: theirs(found).map(diagnostic),
      settled: clock.isSettled(uri.toString()),
      checked: true,
    }));
  }
  return Promise.all(
    params.uris.map(async (text): Promise<FileProblems> => {
      const uri = vscode.Uri.parse(text);
      let languageId: string | undefined;
      try {
        // A file VS Code has not opened has no verdict yet: opening it (not showing it) asks its checkers.
        languageId = (await vscode.workspace.openTextDocument(uri)).languageId;
      } catch {
        return { uri: text, diagnostics: [], settled: true, checked: true }; // no such file: no problems
      }
      const { settled } = await clock.waitSettled(uri.toString(), settleMs);
      const found = theirs(vscode.languages.getDiagnostics(uri));
      return { uri: text, diagnostics: found.map(diagnostic), settled, checked: clock.isChecked(languageId, found.length) };
    }),
  );
}

async function symbolsOf(params: SymbolsParams) {
  if (params.textDocument) {
    const uri = vscode.Uri.parse(params.textDocument.uri);
    const found = await vscode.commands.executeCommand<(vscode.DocumentSymbol | vscode.SymbolInformation)[]>(
      'vscode.executeDocumentSymbolProvider',
      uri,
    );
    return symbols(found, uri.toString());
  }
  return symbols(await vscode.commands.executeCommand<vscode.SymbolInformation[]>('vscode.executeWorkspaceSymbolProvider', params.query));
}

// The agentls/* language requests this client answers from VS Code's own
// language support (docs/editor-intelligence.md). Positions are LSP's: 0-based
// lines, UTF-16 characters; answers are arrays, or null when VS Code has none.
// Pure: no `vscode` here.

/** The requests, as listed in `experimental.agentls.intelligence`. */
export const INTELLIGENCE_METHODS = ['problems', 'definition', 'references', 'symbols', 'rename'] as const;
export type IntelligenceMethod = (typeof INTELLIGENCE_METHODS)[number];

export const STATUS_METHOD = 'agentls/languageServers';

export function requestName(method: IntelligenceMethod): string {
  return `agentls/${method}`;
}

export interface WirePosition {
  line: number;
  character: number;
}

export interface WireRange {
  start: WirePosition;
  end: WirePosition;
}

export interface TextDocumentPositionParams {
  textDocument: { uri: string };
  position: WirePosition;
}

export interface ProblemsParams {
  /** null: every file VS Code has problems for. */
  uris: string[] | null;
  /** How long to wait for a verdict on a file that changed since its last one. */
  settleSeconds: number;
}

export interface WireDiagnostic {
  range: WireRange;
  /** 1 error, 2 warning, 3 information, 4 hint. */
  severity: number;
  message: string;
  source?: string;
  code?: string | number;
}

export interface FileProblems {
  uri: string;
  diagnostics: WireDiagnostic[];
  /** The verdict came after the file's last change (else: what VS Code had when the wait ended). */
  settled: boolean;
  /** false: nothing in VS Code checks this kind of file (agentls may check it itself). */
  checked: boolean;
}

export interface WireLocation {
  uri: string;
  range: WireRange;
}

export interface SymbolsParams {
  query: string;
  /** Document symbols of this file; without it, workspace symbols matching `query`. */
  textDocument?: { uri: string };
}

export interface WireSymbol {
  name: string;
  /** LSP's SymbolKind (1 File … 26 TypeParameter). */
  kind: number;
  location: WireLocation;
  containerName?: string;
}

export interface RenameParams extends TextDocumentPositionParams {
  newName: string;
}

export interface WireTextEdit {
  range: WireRange;
  newText: string;
}

/** A rename's WorkspaceEdit, by file. */
export interface FileEdits {
  uri: string;
  edits: WireTextEdit[];
}

/** `agentls/languageServers`: which servers agentls runs itself, and what the editor answers. */
export interface LanguageStatus {
  editor: { name: string; answers: string[] } | null;
  servers: { name: string; root: string; state: 'running' | 'stopped' | 'failed'; detail: string }[];
}

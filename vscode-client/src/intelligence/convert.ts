// VS Code's answers (diagnostics, locations, symbols, workspace edits) in the
// wire shapes of wire.ts. Pure: the vscode objects are described structurally,
// so the unit tests pass plain objects.
import type {
  FileEdits,
  LanguageStatus,
  WireDiagnostic,
  WireLocation,
  WirePosition,
  WireRange,
  WireSymbol,
  WireTextEdit,
} from './wire';

export interface RangeLike {
  start: WirePosition;
  end: WirePosition;
}

/** Something with a `toString()` that gives the URI (vscode.Uri), or the string itself. */
export type UriLike = { toString(): string } | string;

export interface DiagnosticLike {
  range: RangeLike;
  message: string;
  /** VS Code's DiagnosticSeverity: 0 Error, 1 Warning, 2 Information, 3 Hint. */
  severity: number;
  source?: string;
  code?: string | number | { value: string | number };
}

export interface LocationLike {
  uri: UriLike;
  range: RangeLike;
}

export interface LocationLinkLike {
  targetUri: UriLike;
  targetRange: RangeLike;
  targetSelectionRange?: RangeLike;
}

export interface DocumentSymbolLike {
  name: string;
  /** VS Code's SymbolKind: 0-based (File = 0). */
  kind: number;
  range: RangeLike;
  selectionRange: RangeLike;
  children?: DocumentSymbolLike[];
}

export interface SymbolInformationLike {
  name: string;
  kind: number;
  location: LocationLike;
  containerName?: string;
}

export interface TextEditLike {
  range: RangeLike;
  newText: string;
}

const MAX_SYMBOLS = 2000;

export function range(r: RangeLike): WireRange {
  return { start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } };
}

export function diagnostic(d: DiagnosticLike): WireDiagnostic {
  const out: WireDiagnostic = { range: range(d.range), severity: Math.min(Math.max(d.severity, 0), 3) + 1, message: d.message };
  if (d.source) {
    out.source = d.source;
  }
  const code = typeof d.code === 'object' && d.code !== null ? d.code.value : d.code;
  if (code !== undefined && code !== '') {
    out.code = code;
  }
  return out;
}

function isLink(item: LocationLike | LocationLinkLike): item is LocationLinkLike {
  return 'targetUri' in item;
}

/** Definitions and references: Location or LocationLink, as Locations (a link's name, not its body). */
export function locations(items: readonly (LocationLike | LocationLinkLike)[] | undefined | null): WireLocation[] {
  return (items ?? []).map((item) =>
    isLink(item)
      ? { uri: String(item.targetUri), range: range(item.targetSelectionRange ?? item.targetRange) }
      : { uri: String(item.uri), range: range(item.range) },
  );
}

function isDocumentSymbol(item: DocumentSymbolLike | SymbolInformationLike): item is DocumentSymbolLike {
  return 'selectionRange' in item;
}

/** Document symbols (a tree, or flat SymbolInformation) or workspace symbols, flat, with containers. */
export function symbols(
  items: readonly (DocumentSymbolLike | SymbolInformationLike)[] | undefined | null,
  documentUri?: string,
): WireSymbol[] {
  const out: WireSymbol[] = [];
  const walk = (list: readonly (DocumentSymbolLike | SymbolInformationLike)[], container: string): void => {
    for (const item of list) {
      if (out.length >= MAX_SYMBOLS) {
        return;
      }
      if (isDocumentSymbol(item)) {
        const symbol: WireSymbol = { name: item.name, kind: item.kind + 1, location: { uri: documentUri ?? '', range: range(item.selectionRange) } };
        if (container) {
          symbol.containerName = container;
        }
        out.push(symbol);
        walk(item.children ?? [], item.name);
      } else {
        const symbol: WireSymbol = { name: item.name, kind: item.kind + 1, location: { uri: String(item.location.uri), range: range(item.location.range) } };
        if (item.containerName) {
          symbol.containerName = item.containerName;
        }
        out.push(symbol);
      }
    }
  };
  walk(items ?? [], '');
  return out;
}

/** A WorkspaceEdit's `entries()` ([uri, edits] pairs), by file; edits to one file are merged. */
export function fileEdits(entries: readonly (readonly [UriLike, readonly TextEditLike[]])[] | undefined | null): FileEdits[] {
  const byUri = new Map<string, WireTextEdit[]>();
  for (const [uri, edits] of entries ?? []) {
    const key = String(uri);
    const list = byUri.get(key) ?? [];
    list.push(...edits.map((edit) => ({ range: range(edit.range), newText: edit.newText })));
    byUri.set(key, list);
  }
  return [...byUri].map(([uri, edits]) => ({ uri, edits }));
}

/** One line for the status bar's tooltip: who answers language questions, which servers run. */
export function languageStatusLine(status: LanguageStatus | undefined, answeredHere: boolean, editorName = 'VS Code'): string {
  const parts: string[] = [];
  if (answeredHere) {
    parts.push(`Language intelligence: ${editorName}'s own`);
  }
  const servers = status?.servers ?? [];
  if (servers.length > 0) {
    const shown = servers.map((server) => (server.state === 'running' ? server.name : `${server.name} (${server.state})`));
    parts.push(`agentls's language servers: ${shown.join(', ')}`);
  } else if (!answeredHere) {
    parts.push("agentls's language servers: none running");
  }
  return parts.join('\n');
}

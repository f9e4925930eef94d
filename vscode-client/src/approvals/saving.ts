// An accepted agentls edit is on disk before the server runs its next tool
// (a command reading the file): after applying it, the documents it touched
// that had no unsaved changes of the person's own are saved, and only then is
// the server's workspace/applyEdit answered. A document the person had left
// unsaved stays unsaved (the server tells the review and the model so).
// Pure over the LSP JSON and an injected host.

export interface SaveHost {
  /** Whether the open document at `uri` has unsaved changes; false when it is not open. */
  isDirty(uri: string): boolean;
  /** Save the open document at `uri`. */
  save(uri: string): Promise<unknown>;
}

export interface WorkspaceEditParams {
  edit: {
    documentChanges?: unknown[];
    changes?: Record<string, unknown>;
  };
}

/** The documents a WorkspaceEdit changes (text edits and created files). */
export function editedUris(params: WorkspaceEditParams): string[] {
  const uris = new Set<string>();
  for (const change of params.edit.documentChanges ?? []) {
    const document = (change as { textDocument?: { uri?: unknown } }).textDocument;
    if (typeof document?.uri === 'string') {
      uris.add(document.uri);
    }
  }
  for (const uri of Object.keys(params.edit.changes ?? {})) {
    uris.add(uri);
  }
  return [...uris];
}

/** `R` is the client's answer: an ApplyWorkspaceEditResult, or an error. */
export async function applyThenSave<P extends WorkspaceEditParams, R>(
  params: P,
  apply: (params: P) => Promise<R>,
  host: SaveHost,
): Promise<R> {
  const clean = editedUris(params).filter((uri) => !host.isDirty(uri));
  const result = await apply(params);
  if ((result as { applied?: unknown } | undefined)?.applied === true) {
    for (const uri of clean) {
      await host.save(uri);
    }
  }
  return result;
}

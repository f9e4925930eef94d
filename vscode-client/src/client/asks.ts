// One ask, from whichever surface: the prompt shows in the chat at once, then
// moves into its session when the server says which one.
import type { ChatStore } from '../chat/store';
import { NEW_SESSION } from '../chat/model';
import type { AskParams, AskStarted } from '../protocol';

export async function trackAsk(
  store: ChatStore,
  params: AskParams,
  send: () => Promise<AskStarted>,
  context: string | undefined = contextLabel(params),
): Promise<AskStarted> {
  const localId = store.newLocalId();
  store.dispatch({ type: 'ask_sent', localId, prompt: params.prompt, sessionId: params.sessionId ?? NEW_SESSION, context });
  try {
    const started = await send();
    store.dispatch({ type: 'ask_started', localId, sessionId: started.sessionId, runId: started.runId });
    return started;
  } catch (error) {
    store.dispatch({ type: 'ask_failed', localId, message: error instanceof Error ? error.message : String(error) });
    throw error;
  }
}

/** "greet.py:3-9", "shot.png": what the ask attached, for the prompt's line in the chat. */
export function contextLabel(params: AskParams): string | undefined {
  const parts = [documentLabel(params), ...(params.images ?? []).map((image, n) => image.name ?? image.path ?? `image ${n + 1}`)];
  const shown = parts.filter((part): part is string => part !== undefined);
  return shown.length ? shown.join(', ') : undefined;
}

function documentLabel(params: AskParams): string | undefined {
  if (!params.uri) {
    return undefined;
  }
  const name = decodeURIComponent(params.uri.split('/').pop() ?? params.uri);
  if (!params.range) {
    return name;
  }
  const first = params.range.start.line + 1;
  const last = params.range.end.line + 1;
  return first === last ? `${name}:${first}` : `${name}:${first}-${last}`;
}

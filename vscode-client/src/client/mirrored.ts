// Info messages the server sends every editor that the chat view shows too:
// the end of a run (completed or cancelled) and the outcome of an undo. While
// the chat is visible they go to the log instead of a notification. Pure.

const INFO = 3; // MessageType.Info
const MIRRORED = ['agentls answered:', 'agentls: completed.', 'agentls: aborted:', 'agentls: undid ', 'agentls: undo of '];

export function isMirroredInChat(params: { type: number; message: string }): boolean {
  return params.type === INFO && MIRRORED.some((prefix) => params.message.startsWith(prefix));
}

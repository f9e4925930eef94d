// The client's own command ids (package.json contributes them). Not the
// server's `agentls.*` ids: vscode-languageclient registers those itself.
export const CLIENT_COMMANDS = {
  ask: 'agentls.client.ask',
  askAboutSelection: 'agentls.client.askAboutSelection',
  fixProblem: 'agentls.client.fixProblem',
  cancel: 'agentls.client.cancel',
  showSessions: 'agentls.client.showSessions',
  newSession: 'agentls.client.newSession',
  openTranscript: 'agentls.client.openTranscript',
  setMode: 'agentls.client.setMode',
  undoLastTurn: 'agentls.client.undoLastTurn',
  rewind: 'agentls.client.rewind',
  fork: 'agentls.client.fork',
  restartServer: 'agentls.client.restartServer',
  showServerLog: 'agentls.client.showServerLog',
  doctor: 'agentls.client.doctor',
  memory: 'agentls.client.memory',
  runPromptCommand: 'agentls.client.runPromptCommand',
  processes: 'agentls.client.processes',
  applyEdit: 'agentls.client.applyEdit',
  rejectEdit: 'agentls.client.rejectEdit',
  pickChanges: 'agentls.client.pickChanges',
} as const;

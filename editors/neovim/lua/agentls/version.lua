-- The plugin's version: the same as the agentls Python package's (a unit test
-- compares them), so :checkhealth agentls can tell a stale plugin from the server.
return '0.1.0'

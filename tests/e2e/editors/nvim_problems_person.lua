-- Plays a person whose Neovim already checks greet.py (a linter's diagnostics in
-- its own namespace, as any language server would leave them): opens it, asks
-- agentls what is wrong, and reports what the plugin answered. Writes JSON to
-- $AGENTLS_TEST_REPORT, then quits.
local report = { errors = {} }

local ok, err = pcall(function()
  local agentls = require('agentls')
  agentls.setup({
    cmd = vim.fn.json_decode(os.getenv('AGENTLS_TEST_SERVER')),
    settings = { model = 'anthropic:claude-sonnet-4-5' },
  })
  vim.cmd('edit greet.py')
  local buf = vim.api.nvim_get_current_buf()
  agentls.attach(buf)
  local linter = vim.api.nvim_create_namespace('person-linter')
  vim.diagnostic.set(linter, buf, {
    { lnum = 1, col = 11, end_lnum = 1, end_col = 15, severity = vim.diagnostic.severity.ERROR,
      message = 'name is never defined here', source = 'person-linter', code = 'E999' },
  })
  vim.cmd('AgentAsk what is wrong in greet.py?')
  report.asked = vim.wait(60000, function()
    return agentls.state.last_result ~= nil
  end, 20)
  report.result = agentls.state.last_result
  report.status = agentls.language_status()
end)
if not ok then
  table.insert(report.errors, tostring(err))
end
local file = io.open(os.getenv('AGENTLS_TEST_REPORT'), 'w')
file:write(vim.fn.json_encode(report))
file:close()
vim.cmd('qa!')

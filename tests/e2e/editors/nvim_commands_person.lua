-- Plays the person in a headless Neovim, through the agentls plugin: completes
-- `:AgentAsk /re<Tab>` (the prompt commands the server lists), asks with one, and lists
-- them with :AgentCommands. Writes what it saw as JSON to $AGENTLS_TEST_REPORT, then quits.
local report = { errors = {} }

local ok, err = pcall(function()
  local agentls = require('agentls')
  agentls.setup({
    cmd = vim.fn.json_decode(os.getenv('AGENTLS_TEST_SERVER')),
    settings = { model = 'anthropic:claude-sonnet-4-5' },
  })
  vim.cmd('edit greet.py')
  report.completed = vim.fn.getcompletion('AgentAsk /re', 'cmdline')
  report.all = vim.fn.getcompletion('AgentAsk /', 'cmdline')
  report.second_word = vim.fn.getcompletion('AgentAsk /review /re', 'cmdline')
  vim.cmd('AgentAsk /review greet.py speed')
  report.asked = vim.wait(60000, function()
    return agentls.state.last_result ~= nil
  end, 20)
  report.result = agentls.state.last_result
  vim.cmd('AgentCommands')
  local function log()
    return table.concat(vim.api.nvim_buf_get_lines(agentls.state.log_buf, 0, -1, false), '\n')
  end
  report.listed = vim.wait(30000, function()
    return log():find('⌘ commands', 1, true) ~= nil
  end, 20)
  report.log = log()
end)
if not ok then
  table.insert(report.errors, tostring(err))
end
local file = io.open(os.getenv('AGENTLS_TEST_REPORT'), 'w')
file:write(vim.fn.json_encode(report))
file:close()
vim.cmd('qa!')

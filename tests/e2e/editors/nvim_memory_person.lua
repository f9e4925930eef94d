-- Plays the person in a headless Neovim, through the agentls plugin: open greet.py,
-- :AgentMemory (the first command: it starts the server), read the list in the log,
-- then :AgentForget the id in $AGENTLS_TEST_FORGET and read the list again. Writes
-- what it saw as JSON to $AGENTLS_TEST_REPORT, then quits.
local report = { errors = {}, notified = {} }
local agentls

local function save_report()
  local file = io.open(os.getenv('AGENTLS_TEST_REPORT'), 'w')
  file:write(vim.fn.json_encode(report))
  file:close()
end

local function log()
  local buf = agentls.state.log_buf
  if not buf then
    return ''
  end
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
end

local function log_shown()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == agentls.state.log_buf then
      return true
    end
  end
  return false
end

vim.notify = function(message)
  table.insert(report.notified, message)
end

local ok, err = pcall(function()
  agentls = require('agentls')
  agentls.setup({ cmd = vim.fn.json_decode(os.getenv('AGENTLS_TEST_SERVER')) })
  vim.cmd('edit greet.py')
  vim.cmd('AgentMemory')
  report.listed = vim.wait(60000, function()
    return log():find('🧠 memory:', 1, true) ~= nil
  end, 20)
  report.list = log()
  report.shown = log_shown()
  local id = os.getenv('AGENTLS_TEST_FORGET')
  vim.cmd('AgentForget ' .. id)
  report.forgot = vim.wait(60000, function()
    return log():find('🧠 forgot ' .. id, 1, true) ~= nil
  end, 20)
  report.log = log()
end)
if not ok then
  table.insert(report.errors, tostring(err))
end
save_report()
vim.cmd('qa!')

-- Is it working? What a person sees in a headless Neovim, through the plugin.
-- AGENTLS_TEST_FLOW:
--
-- "working": the scripted model ($AGENTLS_TEST_MODEL) pauses, asks to run a
-- command that waits for the file `release`, then pauses again. The person
-- looks at the log's last line, its window's status line and status() while
-- the model thinks, when asked (and allows once), while the command runs (its
-- seconds going up), and once the run is over; then makes `release`.
--
-- "restart": no key in the environment; the ask fails, the person sets the key
-- in Neovim (:let $ANTHROPIC_API_KEY = inputsecret(…)), runs :AgentRestart and asks again.
--
-- Writes what it saw as JSON to $AGENTLS_TEST_REPORT, then quits.
local report = { errors = {}, notified = {} }
local agentls

local function save_report()
  local file = io.open(os.getenv('AGENTLS_TEST_REPORT'), 'w')
  file:write(vim.fn.json_encode(report))
  file:close()
end

local function log_lines()
  return vim.api.nvim_buf_get_lines(agentls.state.log_buf, 0, -1, false)
end

local function log_line()
  local lines = log_lines()
  for i = #lines, 1, -1 do
    if lines[i] ~= '' then
      return lines[i]
    end
  end
  return ''
end

local function log_window_status()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == agentls.state.log_buf then
      return vim.api.nvim_eval_statusline(vim.wo[win].statusline, { winid = win }).str
    end
  end
  return ''
end

local function look(key)
  report[key] = { status = agentls.status(), logLine = log_line(), statusLine = log_window_status() }
end

local function seconds()
  return tonumber(log_line():match('%((%d+) s%)$') or '-1')
end

vim.notify = function(message)
  table.insert(report.notified, message)
end

vim.ui.select = function(items, opts, on_choice)
  look('asked')
  vim.schedule(function()
    on_choice(items[1], 1) -- Allow once
  end)
end

local function working()
  vim.cmd('AgentAsk run the slow command')
  vim.wait(10000, function()
    return agentls.status():find('thinking', 1, true) ~= nil
  end, 20)
  look('thinking')
  vim.wait(30000, function()
    return log_line():find('running run_command', 1, true) ~= nil and seconds() >= 2
  end, 20)
  look('running')
  vim.fn.writefile({}, 'release')
  vim.wait(30000, function()
    return table.concat(log_lines(), '\n'):find('✓ run_command', 1, true) ~= nil
      and log_line():find('thinking', 1, true) ~= nil
  end, 20)
  look('thinkingAgain')
  report.finished = vim.wait(30000, function()
    return agentls.state.last_result ~= nil
  end, 20)
  look('after')
end

local function restart()
  vim.cmd('AgentAsk say hello')
  vim.wait(20000, function()
    return table.concat(log_lines(), '\n'):find('✗ ', 1, true) ~= nil
  end, 20)
  report.failed = table.concat(log_lines(), '\n')
  vim.env.ANTHROPIC_API_KEY = 'test-key' -- :let $ANTHROPIC_API_KEY = inputsecret('key: ')
  vim.cmd('AgentRestart')
  vim.cmd('AgentAsk say hello')
  report.finished = vim.wait(30000, function()
    return agentls.state.last_result ~= nil
  end, 20)
  report.result = agentls.state.last_result
end

local ok, err = pcall(function()
  agentls = require('agentls')
  agentls.setup({
    cmd = vim.fn.json_decode(os.getenv('AGENTLS_TEST_SERVER')),
    settings = { model = os.getenv('AGENTLS_TEST_MODEL') },
  })
  vim.cmd('edit greet.py')
  if os.getenv('AGENTLS_TEST_FLOW') == 'restart' then
    restart()
  else
    working()
  end
  report.log = table.concat(log_lines(), '\n')
end)
if not ok then
  table.insert(report.errors, tostring(err))
end
save_report()
vim.cmd('qa!')

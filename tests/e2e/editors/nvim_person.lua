-- Plays the person in a headless Neovim, through the agentls plugin:
-- open greet.py, :AgentAsk, allow the command, look at the diff and apply the
-- edit (or dismiss both), save, read the answer in the log. Writes what it saw as JSON to
-- $AGENTLS_TEST_REPORT, then quits.
local report = { prompts = {}, errors = {} }

local function save_report()
  local file = io.open(os.getenv('AGENTLS_TEST_REPORT'), 'w')
  file:write(vim.fn.json_encode(report))
  file:close()
end

local function lines_of(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
end

-- AGENTLS_TEST_ESC: the person dismisses (Esc) every question instead.
local dismiss = os.getenv('AGENTLS_TEST_ESC') ~= nil
report.notified = {}
vim.notify = function(message)
  table.insert(report.notified, message)
end

-- The person's choices: the first offered (Allow once, then Apply), noting
-- what was asked and whether a diff was on screen at the time.
vim.ui.select = function(items, opts, on_choice)
  local diff = nil
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    local buf = vim.api.nvim_win_get_buf(win)
    if vim.bo[buf].filetype == 'diff' then
      diff = lines_of(buf)
    end
  end
  local titles = {}
  for _, item in ipairs(items) do
    table.insert(titles, opts.format_item and opts.format_item(item) or tostring(item))
  end
  table.insert(report.prompts, { prompt = opts.prompt, choices = titles, diff = diff })
  vim.schedule(function()
    if dismiss then
      on_choice(nil, nil)
    else
      on_choice(items[1], 1)
    end
  end)
end

local ok, err = pcall(function()
  local agentls = require('agentls')
  agentls.setup({
    cmd = vim.fn.json_decode(os.getenv('AGENTLS_TEST_SERVER')),
    settings = { model = 'anthropic:claude-sonnet-4-5' },
  })
  vim.cmd('edit greet.py')
  local source = vim.api.nvim_get_current_buf()
  vim.cmd('AgentAsk add a shout() function to greet.py and make sure it runs')
  report.asked = vim.wait(60000, function()
    return agentls.state.last_result ~= nil
  end, 20)
  report.result = agentls.state.last_result
  report.buffer = lines_of(source)
  report.modified_before_save = vim.bo[source].modified
  vim.api.nvim_set_current_buf(source)
  vim.cmd('write')
  report.log = lines_of(agentls.state.log_buf)
  report.version = vim.version()
end)
if not ok then
  table.insert(report.errors, tostring(err))
end
save_report()
vim.cmd('qa!')

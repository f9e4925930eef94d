-- Plays the person in a headless Neovim, through the agentls plugin, in plan mode:
-- :AgentAsk, read the plan in the log, pick the first answer to the proposed plan
-- (Switch to default), read the answer. Writes what it saw as JSON to
-- $AGENTLS_TEST_REPORT, then quits.
local report = { prompts = {}, errors = {} }

vim.notify = function() end
vim.ui.select = function(items, opts, on_choice)
  local titles = {}
  for _, item in ipairs(items) do
    table.insert(titles, opts.format_item and opts.format_item(item) or tostring(item))
  end
  table.insert(report.prompts, { prompt = opts.prompt, choices = titles })
  vim.schedule(function()
    on_choice(items[1], 1)
  end)
end

local ok, err = pcall(function()
  local agentls = require('agentls')
  agentls.setup({
    cmd = vim.fn.json_decode(os.getenv('AGENTLS_TEST_SERVER')),
    settings = { model = 'anthropic:claude-sonnet-4-5', mode = 'plan' },
  })
  vim.cmd('edit greet.py')
  vim.cmd('AgentAsk plan a shout() function for greet.py')
  report.asked = vim.wait(60000, function()
    return agentls.state.last_result ~= nil
  end, 20)
  report.result = agentls.state.last_result
  report.log = table.concat(vim.api.nvim_buf_get_lines(agentls.state.log_buf, 0, -1, false), '\n')
end)
if not ok then
  table.insert(report.errors, tostring(err))
end
local file = io.open(os.getenv('AGENTLS_TEST_REPORT'), 'w')
file:write(vim.fn.json_encode(report))
file:close()
vim.cmd('qa!')

-- Plays a person in a headless Neovim with the plugin: two asks, then :AgentRewind
-- (the ask picked from the list, the rewind confirmed), an ask after it, then
-- :AgentFork before ask 2 and an ask in the fork. The model is the fake Anthropic
-- server; the session runs in bypass mode (no approvals: the story is the rewind).
-- Writes what it saw as JSON to $AGENTLS_TEST_REPORT, then quits.
local report = { prompts = {}, errors = {} }

local function save_report()
  local file = io.open(os.getenv('AGENTLS_TEST_REPORT'), 'w')
  file:write(vim.fn.json_encode(report))
  file:close()
end

-- Every pick list: noted; the ask whose label starts with "Ask 2" (or "Before Ask 2"),
-- else the first choice ("Rewind").
vim.ui.select = function(items, opts, on_choice)
  local titles = {}
  local pick = 1
  for i, item in ipairs(items) do
    local title = opts.format_item and opts.format_item(item) or tostring(item)
    table.insert(titles, title)
    if title:find('^Ask 2:') or title:find('^Before Ask 2:') then
      pick = i
    end
  end
  table.insert(report.prompts, { prompt = opts.prompt, choices = titles })
  vim.schedule(function()
    on_choice(items[pick], pick)
  end)
end

local ok, err = pcall(function()
  vim.cmd('edit a.py')
  local agentls = require('agentls')
  agentls.setup({
    cmd = vim.fn.json_decode(os.getenv('AGENTLS_TEST_SERVER')),
    settings = { model = 'anthropic:claude-sonnet-4-5', mode = 'bypass' },
  })
  local function ask(prompt)
    agentls.state.last_result = nil
    vim.cmd('AgentAsk ' .. prompt)
    local done = vim.wait(60000, function()
      return agentls.state.last_result ~= nil
    end, 20)
    table.insert(report.results, done and agentls.state.last_result.terminalReason or 'timeout')
  end
  report.results = {}
  ask('first: set A to 2')
  ask('second: make made.txt')
  report.session = agentls.state.session
  report.made_before = vim.fn.filereadable('made.txt') == 1

  vim.cmd('AgentRewind')
  report.rewound = vim.wait(60000, function()
    return agentls.state.last_rewind ~= nil
  end, 20)
  report.rewind = agentls.state.last_rewind
  report.made_after = vim.fn.filereadable('made.txt') == 1
  ask('fourth')

  vim.cmd('AgentFork')
  report.forked = vim.wait(60000, function()
    return agentls.state.session ~= report.session
  end, 20)
  report.fork = agentls.state.session
  ask('forked')
  report.log = table.concat(vim.api.nvim_buf_get_lines(agentls.state.log_buf, 0, -1, false), '\n')
end)
if not ok then
  table.insert(report.errors, tostring(err))
end
save_report()
vim.cmd('qa!')

-- Plays a person whose init.lua is editors/neovim/without-plugin.lua, as written
-- (Neovim started with -u on it, `agentls` on PATH): open greet.py, :Agentls,
-- answer Neovim's own prompts (inputlist() on 0.7: the first action, or with
-- AGENTLS_TEST_ESC dismissed), save when asked in one line, then
-- :AgentlsTranscript. Writes what it saw as JSON to $AGENTLS_TEST_REPORT.
local report = { errors = {}, prompts = {}, shown = {}, notified = {} }
local dismiss = os.getenv('AGENTLS_TEST_ESC') ~= nil

local function save_report()
  local file = io.open(os.getenv('AGENTLS_TEST_REPORT'), 'w')
  file:write(vim.fn.json_encode(report))
  file:close()
end

local function lines_of(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n'
end

vim.fn.inputlist = function(items)
  table.insert(report.prompts, { prompt = items[1], choices = vim.list_slice(items, 2) })
  return dismiss and 0 or 1
end

vim.notify = function(message)
  table.insert(report.notified, message)
end

-- What the server says in one line; asked to save, the person types :w.
local show = vim.lsp.handlers['window/showMessage']
vim.lsp.handlers['window/showMessage'] = function(err, params, ctx, config)
  table.insert(report.shown, params.message)
  if params.message:find('save it to go on', 1, true) then
    vim.schedule(function()
      vim.api.nvim_buf_call(vim.fn.bufnr('greet.py'), function()
        vim.cmd('write')
      end)
    end)
  end
  return show(err, params, ctx, config)
end

local function said(text)
  for _, message in ipairs(report.shown) do
    if message:find(text, 1, true) then
      return true
    end
  end
  return false
end

local ok, err = pcall(function()
  vim.cmd('edit greet.py')
  local source = vim.api.nvim_get_current_buf()
  report.attached = vim.wait(10000, function()
    for _, c in pairs(vim.lsp.buf_get_clients(source)) do
      if c.name == 'agentls' and c.initialized then
        return true
      end
    end
    return false
  end, 20)
  vim.cmd('Agentls add a shout() function to greet.py and make sure it runs')
  report.finished = vim.wait(60000, function()
    return said('agentls answered') or said('agentls: model_error')
  end, 20)
  report.buffer = lines_of(source)
  report.modified = vim.bo[source].modified
  vim.cmd('AgentlsTranscript')
  vim.wait(10000, function()
    return vim.api.nvim_buf_get_name(0):find('/transcripts/', 1, true) ~= nil
  end, 20)
  report.window = vim.api.nvim_buf_get_name(0)
  report.transcript = lines_of(0)
  report.windows = #vim.api.nvim_list_wins()
end)
if not ok then
  table.insert(report.errors, tostring(err))
end
save_report()
vim.cmd('qa!')

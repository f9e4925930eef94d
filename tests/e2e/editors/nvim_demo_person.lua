-- Plays a new user in a headless Neovim running the bundled demo
-- (`scripted:demo`): open greet.py, ask, review the edit, allow the command.
-- AGENTLS_TEST_FLOW is "plugin" (editors/neovim) or "plain" (vim.lsp alone,
-- whose prompts are inputlist() on 0.7). Writes what it saw as JSON to
-- $AGENTLS_TEST_REPORT, then quits.
local report = { prompts = {}, errors = {}, shown = {} }
local flow = os.getenv('AGENTLS_TEST_FLOW')
-- AGENTLS_TEST_NO_SAVE: the person never saves (agentls then writes the file itself).
local never_save = os.getenv('AGENTLS_TEST_NO_SAVE') ~= nil
-- AGENTLS_TEST_AGENT_UNDO: without the plugin, Undo last ask (agentls.undo) instead of u.
local agent_undo = os.getenv('AGENTLS_TEST_AGENT_UNDO') ~= nil

local function save_report()
  local file = io.open(os.getenv('AGENTLS_TEST_REPORT'), 'w')
  file:write(vim.fn.json_encode(report))
  file:close()
end

local function lines_of(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n'
end

local function note_prompt(prompt, titles)
  table.insert(report.prompts, { prompt = prompt, choices = titles })
end

-- The plugin's questions and the code action menu: pick the first choice
-- (Apply, Allow once), or the code action that answers the waiting review.
vim.ui.select = function(items, opts, on_choice)
  local titles = {}
  for _, item in ipairs(items) do
    table.insert(titles, opts.format_item and opts.format_item(item) or tostring(item))
  end
  note_prompt(opts.prompt, titles)
  local pick = 1
  if opts.kind ~= 'agentls' then -- the code action menu
    for i, title in ipairs(titles) do
      if title:find('agentls: Apply', 1, true) then
        pick = i
      end
    end
  end
  vim.schedule(function()
    on_choice(items[pick], pick)
  end)
end

-- Neovim 0.7 asks window/showMessageRequest with inputlist(): the first action.
vim.fn.inputlist = function(items)
  note_prompt(items[1], vim.list_slice(items, 2))
  return 1
end

local finished = false
local result = nil

local function start_plain(source)
  local root = vim.fn.getcwd()
  local id = vim.lsp.start_client({
    name = 'agentls',
    cmd = vim.fn.json_decode(os.getenv('AGENTLS_TEST_SERVER')),
    root_dir = root,
    init_options = { model = 'scripted:demo', approvalTimeoutSeconds = never_save and 3 or nil },
    handlers = {
      -- Told to save the file that holds the accepted edit: the person types :w.
      ['window/showMessage'] = function(_, params)
        table.insert(report.shown, params.message)
        if params.message:find('save it to go on', 1, true) and not never_save then
          vim.schedule(function()
            vim.api.nvim_buf_call(source, function()
              vim.cmd('write')
            end)
          end)
        end
      end,
      ['agentls/event'] = function(_, ev)
        if ev.kind == 'run_finished' then
          finished, result = true, ev
        end
      end,
    },
  })
  vim.lsp.buf_attach_client(source, id)
  vim.wait(10000, function()
    local c = vim.lsp.get_client_by_id(id)
    return c ~= nil and c.initialized
  end, 20)
  return id
end

local ok, err = pcall(function()
  vim.cmd('edit greet.py')
  local source = vim.api.nvim_get_current_buf()
  report.before = lines_of(source)
  local prompt = 'Add a shout() function to greet.py that returns the greeting in capitals, then run it.'
  local agentls
  if flow == 'plugin' then
    agentls = require('agentls')
    agentls.setup({
      cmd = vim.fn.json_decode(os.getenv('AGENTLS_TEST_SERVER')),
      settings = { model = 'scripted:demo' },
    })
    vim.cmd('AgentAsk ' .. prompt)
    report.asked = vim.wait(60000, function()
      return agentls.state.last_result ~= nil
    end, 20)
    result = agentls.state.last_result
    report.log = lines_of(agentls.state.log_buf)
  else
    local id = start_plain(source)
    vim.lsp.buf.execute_command({ command = 'agentls.ask', arguments = { { prompt = prompt } } })
    report.asked = vim.wait(60000, function()
      return finished
    end, 20)
    report.client = id ~= nil
  end
  vim.api.nvim_set_current_buf(source)
  report.result = result
  report.buffer = lines_of(source)
  report.disk = table.concat(vim.fn.readfile('greet.py'), '\n') .. '\n'
  report.modified = vim.bo[source].modified
  -- Would Neovim now warn that the file changed on disk (W11/W12)? With a
  -- FileChangedShell autocommand it says why instead of asking ('' : no change).
  vim.v.warningmsg = ''
  vim.g.agentls_fcs = ''
  vim.cmd([[autocmd FileChangedShell * let g:agentls_fcs = v:fcs_reason]])
  vim.cmd('checktime')
  vim.cmd('autocmd! FileChangedShell')
  report.warning = vim.v.warningmsg
  report.changed_on_disk = vim.g.agentls_fcs
  report.messages = vim.api.nvim_exec('messages', true)
  if flow ~= 'plugin' and agent_undo then
    -- Undo last ask; asked in one line, the person saves the restored buffer.
    local shown = #report.shown
    vim.lsp.buf.execute_command({ command = 'agentls.undo', arguments = { { sessionId = result.sessionId } } })
    report.agent_undone = vim.wait(20000, function()
      local disk = table.concat(vim.fn.readfile('greet.py'), '\n') .. '\n'
      return disk == report.before and not vim.bo[source].modified
    end, 20)
    report.shown_after_undo = vim.list_slice(report.shown, shown + 1)
    report.buffer_after_agent_undo = lines_of(source)
    report.disk_after_agent_undo = table.concat(vim.fn.readfile('greet.py'), '\n') .. '\n'
    vim.g.agentls_fcs = ''
    vim.cmd([[autocmd FileChangedShell * let g:agentls_fcs = v:fcs_reason]])
    vim.cmd('checktime')
    vim.cmd('autocmd! FileChangedShell')
    report.changed_on_disk_after_agent_undo = vim.g.agentls_fcs
  end
  -- The editor's own undo takes the edit back out of the buffer.
  vim.cmd('silent undo')
  report.after_undo = lines_of(source)
  if flow == 'plugin' then
    -- redo, then the plugin's Undo last ask: the server puts the file back
    vim.cmd('silent redo')
    report.modified_after_redo = vim.bo[source].modified
    agentls.undo()
    report.agent_undone = vim.wait(20000, function()
      return lines_of(agentls.state.log_buf):find('undo last ask', 1, true) ~= nil
    end, 20)
    report.log = lines_of(agentls.state.log_buf)
    report.buffer_after_agent_undo = lines_of(source)
    report.disk_after_agent_undo = table.concat(vim.fn.readfile('greet.py'), '\n') .. '\n'
  end
end)
if not ok then
  table.insert(report.errors, tostring(err))
end
save_report()
vim.cmd('qa!')

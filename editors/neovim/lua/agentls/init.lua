-- agentls for Neovim (0.7 and later): :AgentAsk, :AgentCancel, :AgentUndo,
-- :AgentRewind and :AgentFork (an ask picked with vim.ui.select), a log buffer
-- that renders the run, approvals through vim.ui.select, and a review of every
-- edit (the diff in a split, then Apply or Reject) before it reaches a buffer.
-- While a run goes on, the log's last line and its window's status line say
-- what it does (thinking, running a command, waiting for you) and for how long;
-- require('agentls').status() gives the same for a statusline of your own.
-- :AgentAsk /name args asks with a prompt command (completed with <Tab>);
-- :AgentCommands lists them.
--
--   require('agentls').setup({ settings = { model = 'anthropic:claude-sonnet-4-5' } })
--
-- The server keeps approvals and reviews waiting (approvalsVia / reviewVia =
-- "codeAction"); this plugin answers them with agentls.answer when the person
-- picks, and they are also offered as code actions (vim.lsp.buf.code_action()).
-- An accepted edit is saved at once (so the commands that follow see it),
-- unless the buffer held unsaved changes of the person's own.

local M = {}

M.config = {
  cmd = { 'agentls', 'serve' },
  cmd_env = nil,
  settings = {}, -- sent as initializationOptions and as the `agentls` configuration section
  root_markers = { '.git', 'pyproject.toml', 'package.json', 'Cargo.toml', 'go.mod' },
  log_height = 12,
}

-- What the plugin knows; read by tests and statuslines.
M.state = {
  client_id = nil,
  session = nil, -- the session :AgentAsk continues
  running = false,
  last_result = nil, -- the run_finished event of the last run
  last_rewind = nil, -- what the last :AgentRewind did (agentls.rewind's answer)
  log_buf = nil,
  in_text = false, -- the log's last line is answer text still streaming
  language_servers = nil, -- the last agentls/languageServers: what agentls runs itself
  doing = nil, -- what the run does now, { what = 'thinking' | 'running …' | 'waiting for you: …', since = seconds }
  tool = nil, -- the summary of the tool that runs now
  status_line = false, -- the log's last line is the status line
}

local function notify(msg, level)
  vim.notify('agentls: ' .. msg, level or vim.log.levels.INFO)
end

local function client()
  return M.state.client_id and vim.lsp.get_client_by_id(M.state.client_id) or nil
end

local function is_file(bufnr)
  return vim.api.nvim_buf_is_loaded(bufnr) and vim.bo[bufnr].buftype == ''
    and vim.api.nvim_buf_get_name(bufnr) ~= ''
end

-- 0.11 wants client:request() and vim.lsp.start(); 0.7 has only client.request and start_client.
local NEW_API = vim.fn.has('nvim-0.11') == 1

local function start_client(config)
  if NEW_API then
    return vim.lsp.start(config, { attach = false })
  end
  return vim.lsp.start_client(config)
end

-- --- the log buffer ----------------------------------------------------------

local function log_buf()
  local buf = M.state.log_buf
  if buf and vim.api.nvim_buf_is_valid(buf) then
    return buf
  end
  buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, 'agentls://log')
  vim.bo[buf].filetype = 'markdown'
  vim.bo[buf].bufhidden = 'hide'
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { '# agentls' })
  M.state.log_buf = buf
  M.state.status_line = false
  return buf
end

local function scroll(buf)
  local last = vim.api.nvim_buf_line_count(buf)
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf then
      vim.api.nvim_win_set_cursor(win, { last, 0 })
    end
  end
end

-- --- what the run does: the log's last line, its window's status line ---------

--- "agentls: running run_command: make (12 s)", or '' when no run goes on;
--- at most `width` characters when given (what it does is cut, not the seconds).
function M.status(width)
  local doing = M.state.doing
  if not doing then
    return ''
  end
  local head, tail = 'agentls: ' .. doing.what, string.format(' (%d s)', os.time() - doing.since)
  if width and vim.fn.strchars(head .. tail) > width then
    head = vim.fn.strcharpart(head, 0, math.max(width - vim.fn.strchars(tail) - 1, 10)) .. '…'
  end
  return head .. tail
end

--- The log window's status line: what the run does, else the log's name.
function M.log_statusline(width)
  local status = M.status(width)
  return status ~= '' and status or 'agentls log'
end

local function erase_status_line(buf)
  if M.state.status_line then
    local last = vim.api.nvim_buf_line_count(buf)
    vim.api.nvim_buf_set_lines(buf, last - 1, last, false, {})
    M.state.status_line = false
  end
end

local function draw_status_line(buf)
  if M.state.doing then
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, { '… ' .. M.status():gsub('^agentls: ', '') })
    M.state.status_line = true
  end
end

local function redraw_status()
  local buf = M.state.log_buf
  if buf and vim.api.nvim_buf_is_valid(buf) then
    erase_status_line(buf)
    draw_status_line(buf)
    scroll(buf)
  end
  vim.cmd('redrawstatus!')
end

local timer = nil

-- What the run now does (nil: no run goes on); the seconds count from here.
local function set_doing(what)
  if what == nil then
    M.state.doing = nil
  elseif not (M.state.doing and M.state.doing.what == what) then
    M.state.doing = { what = what, since = os.time() }
  end
  if what and not timer then
    timer = vim.loop.new_timer()
    timer:start(1000, 1000, vim.schedule_wrap(redraw_status))
  elseif not what and timer then
    timer:stop()
    timer:close()
    timer = nil
  end
  redraw_status()
end

-- after a question: the tool it was about runs on, or the model thinks
local function back_to_work()
  set_doing(M.state.tool and ('running ' .. M.state.tool) or 'thinking')
end

local function append(lines)
  local buf = log_buf()
  -- a buffer line cannot hold a newline: a multi-line detail or summary takes several
  local split = {}
  for _, line in ipairs(lines) do
    vim.list_extend(split, vim.split(line, '\n', true))
  end
  erase_status_line(buf)
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, split)
  M.state.in_text = false
  draw_status_line(buf)
  scroll(buf)
end

local function append_text(text)
  local buf = log_buf()
  local pieces = vim.split(text, '\n', true)
  erase_status_line(buf)
  if M.state.in_text then
    local last = vim.api.nvim_buf_line_count(buf)
    local line = vim.api.nvim_buf_get_lines(buf, last - 1, last, false)[1] or ''
    pieces[1] = line .. pieces[1]
    vim.api.nvim_buf_set_lines(buf, last - 1, last, false, pieces)
  else
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, pieces)
  end
  M.state.in_text = true
  draw_status_line(buf)
  scroll(buf)
end

function M.show_log()
  local buf = log_buf()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf then
      return
    end
  end
  local current = vim.api.nvim_get_current_win()
  vim.cmd('botright ' .. M.config.log_height .. 'split')
  vim.api.nvim_win_set_buf(0, buf)
  vim.wo.statusline = [[%{luaeval("require('agentls').log_statusline(_A)", winwidth(0) - 1)}]]
  scroll(buf)
  vim.api.nvim_set_current_win(current)
end

-- --- talking to the server -----------------------------------------------------

local function execute(command, argument, on_result)
  local c = client()
  if not c then
    notify('the server is not running (open a file in the project first)', vim.log.levels.ERROR)
    return
  end
  local params = { command = command, arguments = argument and { argument } or {} }
  local function handler(err, result)
    if err then
      local message = (err.message or vim.inspect(err))
        :gsub('restart the server', 'restart the server (:AgentRestart)')
      if command == 'agentls.ask' then
        M.state.running = false
        set_doing(nil)
      end
      if M.state.log_buf and vim.api.nvim_buf_is_valid(M.state.log_buf) then
        append(vim.split('✗ ' .. message, '\n', true))
      end
      notify((message:gsub('^agentls: ', '')), vim.log.levels.ERROR)
    elseif on_result then
      on_result(result)
    end
  end
  if NEW_API then
    c:request('workspace/executeCommand', params, handler)
  else
    c.request('workspace/executeCommand', params, handler)
  end
end

local function answer(id, value)
  execute('agentls.answer', { id = id, answer = value })
end

-- --- questions: approvals and reviews --------------------------------------------

local function show_diff(question)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, 'agentls://diff/' .. question.id)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(question.detail or '', '\n', true))
  vim.bo[buf].filetype = 'diff'
  vim.bo[buf].modifiable = false
  vim.cmd('topleft split')
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, buf)
  vim.cmd('redraw')
  return win, buf
end

local function ask_person(question)
  local win, buf
  if question.question == 'review' then
    win, buf = show_diff(question)
  end
  local prompt = question.question == 'approval' and ('agentls asks to use ' .. question.summary)
    or ('agentls: ' .. question.summary .. '?')
  vim.ui.select(question.answers, {
    prompt = prompt,
    kind = 'agentls',
    format_item = function(item)
      return item.title
    end,
  }, function(choice)
    if win and vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_close(win, true)
    end
    if buf and vim.api.nvim_buf_is_valid(buf) then
      vim.api.nvim_buf_delete(buf, { force = true })
    end
    if not choice then
      -- dismissed (Esc): no, at once, and said where the person looks
      local no = ({ review = 'reject', plan = 'keep-planning' })[question.question] or 'deny'
      local said = ({
        reject = 'Reject (the edit is not made)',
        ['keep-planning'] = 'Keep planning (the mode stays plan)',
      })[no] or 'Deny (the call does not run)'
      append({ '  → dismissed, so: ' .. said })
      notify('dismissed, so: ' .. said)
      answer(question.id, no)
      return
    end
    append({ '  → ' .. choice.title })
    answer(question.id, choice.answer)
  end)
end

-- --- events ----------------------------------------------------------------------

-- 1234567 -> "1,234,567", as the CLI writes numbers
local function grouped(n)
  local text = tostring(math.floor(n or 0))
  local sign, digits = text:match('^(-?)(%d+)$')
  if not digits then
    return text
  end
  return sign .. digits:reverse():gsub('(%d%d%d)', '%1,'):reverse():gsub('^,', '')
end

local function plural(n, word)
  return string.format('%d %s%s', n or 0, word, n == 1 and '' or 's')
end

function M.finished_line(ev)
  local usage = ev.usage or {}
  local parts = {
    ev.terminalReason or '?',
    plural(ev.turns, 'turn'),
    grouped(usage.inputTokens) .. ' in / ' .. grouped(usage.outputTokens) .. ' out tokens',
  }
  if type(usage.costUsd) == 'number' and usage.costUsd > 0 then -- none for free or unknown
    table.insert(parts, string.format('$%.4f', usage.costUsd))
  end
  local line = '[' .. table.concat(parts, ' · ') .. ']'
  if ev.terminalReason ~= 'completed' and ev.detail and ev.detail ~= '' then
    line = line .. ' ' .. ev.detail
  end
  return line
end

-- "✓ summary — first line (+N more lines)"; a command that exited non-zero is ✗
function M.finished_tool_line(ev)
  local failed = not ev.ok or (type(ev.exitCode) == 'number' and ev.exitCode ~= 0)
  local line = (failed and '✗ ' or '✓ ') .. ev.summary
  if type(ev.exitCode) == 'number' and ev.exitCode ~= 0 then
    line = line .. ' (exit code ' .. ev.exitCode .. ')'
  end
  if ev.line and ev.line ~= '' then
    line = line .. ' — ' .. ev.line
  end
  if type(ev.moreLines) == 'number' and ev.moreLines > 0 then
    line = line .. ' (+' .. plural(ev.moreLines, 'more line') .. ')'
  end
  return line
end

-- "! PostToolUse hook `cmd`: exited with 1: …; the run goes on" (i for a message it asked
-- to show), one line as the CLI prints it
function M.hook_line(ev)
  local said = (ev.event or '?') .. ' hook `' .. (ev.command or '') .. '`: ' .. (ev.text or '')
  local one_line = said:gsub('\r?\n', '\\n')
  return (ev.error and '! ' or 'i ') .. one_line
end

-- The model's checklist, a line per step, as the CLI prints it.
local MARKS = { pending = '[ ]', in_progress = '[>]', completed = '[x]' }

function M.plan_lines(ev)
  local steps = ev.plan or {}
  local done = 0
  for _, step in ipairs(steps) do
    if step.status == 'completed' then
      done = done + 1
    end
  end
  local why = (ev.explanation and ev.explanation ~= '') and (': ' .. ev.explanation:gsub('\n', ' ')) or ''
  local lines = { string.format('☰ plan (%d/%d done)%s', done, #steps, why) }
  for _, step in ipairs(steps) do
    table.insert(lines, '  ' .. (MARKS[step.status] or '[?]') .. ' ' .. step.step)
  end
  return lines
end

-- "⚙ p1 started: cmd", "⚙ p1 exited (exit code 0): cmd", "⚙ p1 stopped (person): cmd"
function M.process_line(ev)
  local what = ev.action
  if ev.action == 'exited' then
    what = 'exited (exit code ' .. tostring(ev.exitCode) .. ')'
  elseif ev.action == 'stopped' then
    what = 'stopped (' .. (type(ev.by) == 'string' and ev.by or 'stopped') .. ')'
  end
  return '⚙ background ' .. ev.id .. ' ' .. what .. ': ' .. ev.command
end

local render = {
  plan = function(ev)
    append(M.plan_lines(ev))
  end,
  plan_proposed = function(ev)
    set_doing('waiting for you: the proposed plan')
    local lines = { '⚑ proposed plan:' }
    for _, line in ipairs(vim.split(ev.plan or '', '\n', true)) do
      table.insert(lines, '  ' .. line)
    end
    append(lines)
  end,
  mode_changed = function(ev)
    append({ '  mode: ' .. ev.mode .. ' (the run goes on in it)' })
  end,
  steered = function(ev)
    append({ '» (while it worked) ' .. ev.text:gsub('\n', ' ') })
  end,
  text = function(ev)
    set_doing('thinking')
    append_text(ev.text)
  end,
  tool_started = function(ev)
    M.state.tool = ev.summary
    set_doing('running ' .. ev.summary)
    append({ '→ ' .. ev.summary })
  end,
  tool_finished = function(ev)
    M.state.tool = nil
    set_doing('thinking')
    local lines = { M.finished_tool_line(ev) }
    for _, note in ipairs(ev.notes or {}) do
      table.insert(lines, '  note: ' .. note)
    end
    append(lines)
  end,
  approval_asked = function(ev)
    set_doing('waiting for you: ' .. ev.summary)
    append({ '? approval: ' .. ev.summary })
  end,
  approval_answered = function(ev)
    back_to_work()
    local said = { allow_once = 'allowed once', allow_always = 'always allowed', deny = 'denied' }
    local rule = ev.rule and (' (rule ' .. ev.rule .. ' added)') or ''
    append({ '  ' .. (said[ev.answer] or ev.answer) .. rule })
  end,
  question = function(ev)
    set_doing('waiting for you: ' .. (ev.question == 'review' and 'review ' or '') .. ev.summary)
    if ev.question == 'review' then
      append({ '? review: ' .. ev.summary })
    end
    ask_person(ev)
  end,
  question_closed = back_to_work,
  waiting_for_save = function(ev)
    set_doing('waiting for you to save ' .. table.concat(ev.paths or {}, ', '))
  end,
  edit_proposed = function(ev)
    append({ '✎ ' .. ev.summary })
  end,
  edit_applied = function(ev)
    append({ '✓ applied to ' .. ev.path .. (ev.changed and ' (changed on the way)' or '') })
  end,
  edit_rejected = function(ev)
    append({ '✗ not applied to ' .. ev.path .. ': ' .. (ev.reason or '') })
  end,
  hook = function(ev)
    append({ M.hook_line(ev) })
  end,
  -- a background process: also between runs (it may exit long after the run that started it)
  process = function(ev)
    append({ M.process_line(ev) })
  end,
  run_finished = function(ev)
    M.state.running = false
    M.state.last_result = ev
    M.state.tool = nil
    set_doing(nil)
    append({ '', M.finished_line(ev), '' })
  end,
}

-- what a run says first: a run not started by :AgentAsk (a code action) opens the log too
local OPENING = { text = true, tool_started = true, approval_asked = true, question = true }

local function on_event(_, ev)
  if type(ev) ~= 'table' then
    return
  end
  if ev.sessionId and M.state.session == nil then
    M.state.session = ev.sessionId
  end
  if not M.state.running and OPENING[ev.kind] then
    M.state.running = true
    M.state.last_result = nil
    M.show_log()
    append({ '', '» (asked from a code action)' })
    set_doing('thinking')
  end
  local handler = render[ev.kind]
  if handler then
    handler(ev)
  end
end

-- Apply an edit, then save each buffer it touched that had no unsaved changes
-- of the person's own, and only then answer: the server runs the next tool
-- (a command reading the file) once this answer is in.
local function apply_edit(err, result, ctx, config)
  local clean = {}
  local edit = result and result.edit or {}
  local uris = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.textDocument then
      table.insert(uris, change.textDocument.uri)
    elseif change.kind == 'create' and change.uri then
      -- 0.7 cannot create a file in a folder that does not exist yet
      vim.fn.mkdir(vim.fn.fnamemodify(vim.uri_to_fname(change.uri), ':h'), 'p')
    end
  end
  for uri in pairs(edit.changes or {}) do
    table.insert(uris, uri)
  end
  local empty = {}
  for _, uri in ipairs(uris) do
    local bufnr = vim.uri_to_bufnr(uri)
    clean[bufnr] = not (vim.api.nvim_buf_is_loaded(bufnr) and vim.bo[bufnr].modified)
    empty[bufnr] = vim.fn.getfsize(vim.uri_to_fname(uri)) <= 0
      and table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '') == ''
  end
  local response = vim.lsp.handlers['workspace/applyEdit'](err, result, ctx, config)
  if response and response.applied then
    for bufnr, was_empty in pairs(empty) do
      -- an empty buffer still has its one empty line after the text: drop it
      local count = vim.api.nvim_buf_line_count(bufnr)
      if was_empty and count > 1 and vim.api.nvim_buf_get_lines(bufnr, count - 1, count, false)[1] == '' then
        vim.api.nvim_buf_set_lines(bufnr, count - 1, count, false, {})
      end
    end
    for bufnr, was_clean in pairs(clean) do
      if was_clean and vim.api.nvim_buf_is_loaded(bufnr) and vim.bo[bufnr].modified then
        local name = vim.api.nvim_buf_get_name(bufnr)
        vim.fn.mkdir(vim.fn.fnamemodify(name, ':h'), 'p')
        vim.api.nvim_buf_call(bufnr, function()
          vim.cmd('silent write')
        end)
      end
    end
  end
  return response
end

-- --- problems as this Neovim sees them (agentls/problems) -----------------------------
-- The server asks for the problems of files (docs/editor-intelligence.md); they come
-- from vim.diagnostic, i.e. from the person's own language servers and linters, never
-- from agentls's own question diagnostics. A buffer's verdict is fresh ("settled") when
-- some other source set its diagnostics after its last change; the server asks again
-- until then. A file not loaded here is not checked here: the server checks it itself.
local verdict_tick = {} -- bufnr -> b:changedtick when another source last set its diagnostics

local function agentls_namespace()
  local id = M.state.client_id
  return id and vim.lsp.diagnostic.get_namespace(id) or nil
end

local function watch_diagnostics()
  if M._watching then
    return
  end
  M._watching = true
  -- vim.diagnostic.set is where every source's verdict lands (0.7 has no event naming it)
  local set = vim.diagnostic.set
  vim.diagnostic.set = function(namespace, bufnr, ...)
    if namespace ~= agentls_namespace() and bufnr and vim.api.nvim_buf_is_valid(bufnr) then
      verdict_tick[bufnr] = vim.api.nvim_buf_get_changedtick(bufnr)
    end
    return set(namespace, bufnr, ...)
  end
end

local function file_problems(uri)
  local bufnr = vim.uri_to_bufnr(uri)
  if not vim.api.nvim_buf_is_loaded(bufnr) then
    return { uri = uri, diagnostics = {}, settled = true, checked = false }
  end
  local own = agentls_namespace()
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.namespace ~= own and d.source ~= 'agentls' then
      table.insert(found, {
        range = {
          start = { line = d.lnum, character = d.col },
          ['end'] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
        },
        severity = d.severity,
        message = d.message,
        source = d.source,
        code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or nil,
      })
    end
  end
  local others = false
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr }) or vim.lsp.buf_get_clients(bufnr)
  for _, c in pairs(clients) do
    others = others or c.id ~= M.state.client_id
  end
  local tick = verdict_tick[bufnr]
  -- no verdict seen since this plugin started: settled unless the text moved since the save
  local settled = tick == vim.api.nvim_buf_get_changedtick(bufnr) or (tick == nil and not vim.bo[bufnr].modified)
  return {
    uri = uri,
    diagnostics = found,
    settled = settled,
    checked = others or tick ~= nil or #found > 0,
  }
end

local function problems(_, params)
  local uris = type(params) == 'table' and type(params.uris) == 'table' and params.uris or nil
  if not uris then
    uris = {}
    for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
      if is_file(bufnr) then
        table.insert(uris, vim.uri_from_bufnr(bufnr))
      end
    end
  end
  local answer = {}
  for _, uri in ipairs(uris) do
    table.insert(answer, file_problems(uri))
  end
  return answer
end

-- agentls/languageServers: the servers agentls runs itself (for statuslines and the log)
local function language_servers(_, status)
  M.state.language_servers = type(status) == 'table' and status or nil
end

--- "agentls: basedpyright, ruff", or '' when agentls runs no language server.
function M.language_status()
  local names = {}
  for _, server in ipairs((M.state.language_servers or {}).servers or {}) do
    table.insert(names, server.state == 'running' and server.name or (server.name .. ' (' .. server.state .. ')'))
  end
  return #names > 0 and ('agentls: ' .. table.concat(names, ', ')) or ''
end

local function show_document(_, result)
  local path = vim.uri_to_fname(result.uri)
  vim.cmd('split ' .. vim.fn.fnameescape(path))
  return { success = true }
end

-- --- the client --------------------------------------------------------------------

local function root_for(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local dir = name ~= '' and vim.fn.fnamemodify(name, ':p:h') or vim.fn.getcwd()
  for _, marker in ipairs(M.config.root_markers) do
    local found = vim.fn.finddir(marker, dir .. ';')
    if found == '' then
      found = vim.fn.findfile(marker, dir .. ';')
    end
    if found ~= '' then
      return vim.fn.fnamemodify(found, ':p:h:h')
    end
  end
  return vim.fn.getcwd()
end

local function settings()
  return vim.tbl_extend('force', { approvalsVia = 'codeAction', reviewVia = 'codeAction' }, M.config.settings)
end

function M.start(bufnr, root)
  if client() then
    return M.state.client_id
  end
  root = root or root_for(bufnr or 0)
  local capabilities = vim.lsp.protocol.make_client_capabilities()
  capabilities.window = capabilities.window or {}
  capabilities.window.showDocument = { support = true }
  capabilities.workspace.workspaceEdit = capabilities.workspace.workspaceEdit or {}
  capabilities.workspace.workspaceEdit.documentChanges = true
  -- this plugin saves the buffers an accepted edit touched (see apply_edit), and
  -- answers agentls/problems from vim.diagnostic (see file_problems)
  capabilities.experimental = {
    agentls = { savesEdits = true, intelligence = { 'problems' }, languageServers = true },
  }
  watch_diagnostics()
  local id
  id = start_client({
    name = 'agentls',
    cmd = M.config.cmd,
    cmd_env = M.config.cmd_env,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = settings(),
    settings = { agentls = settings() },
    capabilities = capabilities,
    handlers = {
      ['agentls/event'] = on_event,
      ['agentls/problems'] = problems,
      ['agentls/languageServers'] = language_servers,
      ['window/showDocument'] = show_document,
      ['workspace/applyEdit'] = apply_edit,
    },
    on_exit = function()
      vim.schedule(function()
        if M.state.client_id ~= id then
          return -- a client :AgentRestart replaced
        end
        M.state.client_id = nil
        if M.state.running then
          M.state.running = false
          set_doing(nil)
          append({ '✗ the server stopped (:AgentRestart starts it again)' })
        end
      end)
    end,
  })
  M.state.client_id = id
  -- the buffers already open in the project: the server reads them, unsaved text included
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(buf)
    if M.state.client_id and is_file(buf) and vim.startswith(name, root .. '/') then
      vim.lsp.buf_attach_client(buf, M.state.client_id)
    end
  end
  return M.state.client_id
end

function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not is_file(bufnr) then
    return
  end
  local id = M.start(bufnr)
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
end

-- --- what the person does ----------------------------------------------------------------

-- opts: { range = {first_line, last_line} (1-based), new = true for a new session }
function M.ask(prompt, opts)
  opts = opts or {}
  if not prompt or prompt == '' then
    vim.ui.input({ prompt = 'Ask agentls: ' }, function(text)
      if text and text ~= '' then
        M.ask(text, opts)
      end
    end)
    return
  end
  local bufnr = vim.api.nvim_get_current_buf()
  M.attach(bufnr)
  local argument = { prompt = prompt }
  if not opts.new and M.state.session then
    argument.sessionId = M.state.session
  end
  if is_file(bufnr) then
    argument.uri = vim.uri_from_bufnr(bufnr)
    if opts.range then
      argument.range = {
        start = { line = opts.range[1] - 1, character = 0 },
        ['end'] = { line = opts.range[2] - 1, character = 0 },
      }
    end
  end
  M.show_log()
  M.state.running = true
  M.state.last_result = nil
  M.state.tool = nil
  append({ '', '» ' .. prompt })
  set_doing('starting')
  execute('agentls.ask', argument, function(result)
    M.state.session = result.sessionId
    if M.state.doing and M.state.doing.what == 'starting' then
      set_doing('thinking') -- the run has begun
    end
  end)
end

function M.cancel()
  execute('agentls.cancel', M.state.session and { sessionId = M.state.session } or nil, function(result)
    notify(result.cancelled and 'cancelled' or 'nothing to cancel')
  end)
end

function M.transcript()
  execute('agentls.showTranscript', M.state.session and { sessionId = M.state.session } or nil, function(result)
    if result.shown ~= true and result.uri then
      vim.cmd('split ' .. vim.fn.fnameescape(vim.uri_to_fname(result.uri)))
    end
  end)
end

-- Stop the server and start a new one in the same project, with Neovim's environment
-- as it is now (a key set with :let $ANTHROPIC_API_KEY = inputsecret('key: ')); the
-- session goes on, a run going on ends with the old server.
function M.restart()
  local old = client()
  local root = old and old.config.root_dir
  M.state.client_id = nil
  if M.state.running then
    M.state.running = false
    set_doing(nil)
    append({ '✗ the run ended with the server (:AgentRestart)' })
  end
  if old and NEW_API then
    old:stop()
  elseif old then
    old.stop()
  end
  local bufnr = vim.api.nvim_get_current_buf()
  local id = M.start(bufnr, root)
  notify(id and 'server restarted' or 'the server did not start', id and vim.log.levels.INFO or vim.log.levels.ERROR)
  return id
end

-- Undo last ask: puts back everything the session's last ask changed
-- (edits and what its commands did); the server says what it did.
function M.undo()
  if not M.state.session then
    notify('no session to undo in')
    return
  end
  execute('agentls.undo', { sessionId = M.state.session }, function(result)
    local what = (#(result.restored or {}) + #(result.removed or {})) .. ' file(s) put back'
    if #(result.conflicts or {}) > 0 then
      what = 'nothing undone: ' .. table.concat(result.conflicts, ', ') .. ' changed since'
    end
    append({ '', '↶ undo last ask: ' .. what })
  end)
end

-- Rewind and fork. Asks are numbered from 1 as `agentls show` prints them (agentls.asks);
-- without a number, the person picks one with vim.ui.select.
local function pick_ask(title, entries, on_pick)
  vim.ui.select(entries, {
    prompt = title,
    kind = 'agentls',
    format_item = function(entry)
      return entry.label
    end,
  }, function(entry)
    if entry then
      on_pick(entry)
    end
  end)
end

local function ask_entries(on_entries)
  execute('agentls.asks', { sessionId = M.state.session }, function(asks)
    local entries = {}
    for _, entry in ipairs(asks) do
      local words = vim.split(entry.prompt, '\n', true)[1]
      table.insert(entries, {
        ask = entry.ask,
        rewound = entry.rewound,
        label = 'Ask ' .. entry.ask .. ': ' .. words,
      })
    end
    on_entries(entries)
  end)
end

local REWIND_CHOICES = {
  { label = 'Rewind', conversation = true, files = true },
  { label = 'Conversation only (leave the files)', conversation = true, files = false },
  { label = 'Files only (keep the asks)', conversation = false, files = true },
}

-- Rewind the session to before ask `ask`: it and every later ask leave the conversation,
-- the files they changed go back (those changed since are kept and named). What it will
-- undo is shown first (a dry run), and the person picks how far it goes.
function M.rewind(ask)
  if not M.state.session then
    notify('no session to rewind')
    return
  end
  local session = M.state.session
  local function confirm(number)
    execute('agentls.rewind', { sessionId = session, ask = number, dryRun = true }, function(preview)
      vim.ui.select(REWIND_CHOICES, {
        prompt = 'agentls: ' .. preview.summary .. '. Rewind?',
        kind = 'agentls',
        format_item = function(choice)
          return choice.label
        end,
      }, function(choice)
        if not choice then
          return
        end
        local argument = { sessionId = session, ask = number, conversation = choice.conversation, files = choice.files }
        execute('agentls.rewind', argument, function(result)
          M.state.last_rewind = result
          append({ '', '↶ ' .. result.summary })
        end)
      end)
    end)
  end
  if ask then
    confirm(ask)
    return
  end
  ask_entries(function(entries)
    local live = vim.tbl_filter(function(entry)
      return not entry.rewound
    end, entries)
    if #live == 0 then
      notify('no ask to rewind to')
      return
    end
    pick_ask('Rewind to before which ask?', live, function(entry)
      confirm(entry.ask)
    end)
  end)
end

-- Fork the session: a new one whose history ends before ask `ask` (or is the whole of
-- it); :AgentAsk goes on in the fork. No file changes.
function M.fork(ask)
  if not M.state.session then
    notify('no session to fork')
    return
  end
  local session = M.state.session
  local function fork(number)
    execute('agentls.fork', { sessionId = session, ask = number }, function(result)
      M.state.session = result.sessionId
      local where = number and ('before ask ' .. number) or 'whole'
      append({ '', '⑂ forked ' .. session .. ' (' .. where .. '): this is now ' .. result.sessionId })
    end)
  end
  if ask then
    fork(ask)
    return
  end
  ask_entries(function(entries)
    local choices = { { label = 'The whole session' } }
    for _, entry in ipairs(entries) do
      table.insert(choices, { ask = entry.ask, label = 'Before ' .. entry.label })
    end
    pick_ask('Fork the session: its history up to where?', choices, function(entry)
      fork(entry.ask)
    end)
  end)
end

-- What the agent remembers here (agentls.memory): one line each, in the log; with an id,
-- that memory is forgotten first. Like an ask, it starts the server if none runs yet.
local function memory_where()
  M.attach(0)
  M.show_log()
  local name = vim.api.nvim_buf_get_name(0)
  return name ~= '' and { uri = vim.uri_from_fname(name) } or {}
end

local function show_memories(result, said)
  local lines = { '', said or '🧠 memory:' }
  for _, warning in ipairs(result.warnings or {}) do
    table.insert(lines, '  ' .. warning)
  end
  for _, memory in ipairs(result.memories or {}) do
    table.insert(lines, '  ' .. memory.line)
  end
  if #(result.memories or {}) == 0 then
    table.insert(lines, '  no memories')
  end
  append(lines)
end

function M.memory()
  execute('agentls.memory', memory_where(), function(result)
    show_memories(result)
  end)
end

function M.forget_memory(id)
  local argument = vim.tbl_extend('force', memory_where(), { action = 'forget', id = id })
  execute('agentls.memory', argument, function(result)
    show_memories(result, '🧠 forgot ' .. result.changed .. '; memory:')
  end)
end

-- The current file, for the prompt commands of its folder (nothing started or shown).
local function this_folder()
  local name = vim.api.nvim_buf_get_name(0)
  return name ~= '' and { uri = vim.uri_from_fname(name) } or {}
end

-- Prompt commands (agentls.commands): the workspace's and your own `/name` files, which
-- :AgentAsk /name args asks with. commands_now() asks the server and waits (at most
-- `timeout_ms`; the first completion may start the server, which takes a few seconds),
-- for completion; :AgentCommands lists them in the log.
function M.commands_now(timeout_ms)
  local bufnr = vim.api.nvim_get_current_buf()
  if not client() then
    M.attach(bufnr)
  end
  local c = client()
  if not c then
    return nil
  end
  local params = { command = 'agentls.commands', arguments = { this_folder() } }
  local answer
  if NEW_API then
    answer = c:request_sync('workspace/executeCommand', params, timeout_ms or 15000, bufnr)
  else
    answer = c.request_sync('workspace/executeCommand', params, timeout_ms or 15000, bufnr)
  end
  return answer and not answer.err and answer.result or nil
end

--- :AgentAsk's completion: the command names for a first word that starts with `/`.
function M.complete_ask(arglead, cmdline, cursorpos)
  local typed = cmdline:sub(1, cursorpos):match('^%S*Agent%a+%s+(.*)$') or ''
  if not vim.startswith(arglead, '/') or typed ~= arglead then
    return {}
  end
  local names = {}
  for _, command in ipairs((M.commands_now() or {}).commands or {}) do
    local name = '/' .. command.name
    if vim.startswith(name, arglead) then
      table.insert(names, name)
    end
  end
  return names
end

function M.list_commands()
  M.attach(0) -- like an ask, it starts the server if none runs yet
  M.show_log()
  execute('agentls.commands', this_folder(), function(result)
    local lines = { '', '⌘ commands (:AgentAsk /name …):' }
    for _, command in ipairs(result.commands or {}) do
      local hint = command.argumentHint and (' ' .. command.argumentHint) or ''
      table.insert(lines, string.format('  /%s%s — %s (%s)', command.name, hint,
        command.description, command.path))
    end
    if #(result.commands or {}) == 0 then
      table.insert(lines, '  none: add .agentls/commands/NAME.md')
    end
    for _, problem in ipairs(result.problems or {}) do
      table.insert(lines, '  ✗ ' .. problem)
    end
    append(lines)
  end)
end

-- the open sessions' background processes, in the log; one stopped first with `stop`
local function show_processes(result)
  local lines = { '', result.stopped and ('⚙ stopped ' .. result.stopped .. '; background processes:')
    or '⚙ background processes:' }
  for _, p in ipairs(result.processes or {}) do
    local state = p.state == 'running' and 'running' or (p.state .. ', exit code ' .. tostring(p.exitCode))
    table.insert(lines, '  ' .. p.id .. ' (' .. state .. '): ' .. p.command)
  end
  if #(result.processes or {}) == 0 then
    table.insert(lines, '  none')
  end
  append(lines)
end

function M.processes(stop)
  local argument = stop and { stop = stop, sessionId = M.state.session } or vim.empty_dict()
  execute('agentls.processes', argument, show_processes)
end

function M.set_mode(mode)
  if not client() then
    -- before the first ask: the server starts with this mode as its setting
    M.config.settings = vim.tbl_extend('force', M.config.settings, { mode = mode })
    M.attach(0)
    if not client() then
      M.start(vim.api.nvim_get_current_buf())
    end
    notify('mode ' .. mode)
    return
  end
  execute('agentls.setMode', { mode = mode, sessionId = M.state.session }, function(result)
    notify('mode ' .. result.mode)
  end)
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', M.config, opts or {})
  local command = vim.api.nvim_create_user_command
  command('AgentAsk', function(o)
    M.ask(o.args, { range = o.range > 0 and { o.line1, o.line2 } or nil })
  end, { nargs = '*', range = true, complete = M.complete_ask,
         desc = 'Ask agentls (continues the session); /name asks with a prompt command' })
  command('AgentNew', function(o)
    M.ask(o.args, { new = true, range = o.range > 0 and { o.line1, o.line2 } or nil })
  end, { nargs = '*', range = true, complete = M.complete_ask,
         desc = 'Ask agentls in a new session' })
  command('AgentCommands', M.list_commands, { desc = 'The prompt commands agentls offers here' })
  command('AgentCancel', M.cancel, { desc = 'Cancel the agentls run' })
  command('AgentLog', M.show_log, { desc = 'Show the agentls log' })
  command('AgentTranscript', M.transcript, { desc = 'Open the session transcript' })
  command('AgentUndo', M.undo, { desc = 'Undo last ask (agentls)' })
  command('AgentRewind', function(o)
    M.rewind(tonumber(o.args))
  end, { nargs = '?', desc = 'Rewind the agentls session to before an ask (picked, or N)' })
  command('AgentFork', function(o)
    M.fork(tonumber(o.args))
  end, { nargs = '?', desc = 'Fork the agentls session before an ask (picked, or N)' })
  command('AgentMemory', M.memory, { desc = 'What agentls remembers here' })
  command('AgentForget', function(o)
    M.forget_memory(o.args)
  end, { nargs = 1, desc = 'Forget one agentls memory by its id' })
  command('AgentProcesses', function()
    M.processes(nil)
  end, { desc = 'The background processes agentls runs' })
  command('AgentStop', function(o)
    M.processes(o.args)
  end, { nargs = 1, desc = 'Stop one of agentls background processes by its id (p1)' })
  command('AgentRestart', function()
    M.restart()
  end, { desc = 'Restart the agentls server' })
  command('AgentMode', function(o)
    M.set_mode(o.args)
  end, {
    nargs = 1,
    complete = function()
      return { 'default', 'accept-edits', 'plan', 'bypass' }
    end,
  })
  local group = vim.api.nvim_create_augroup('agentls', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
    group = group,
    callback = function(args)
      if client() then
        M.attach(args.buf)
      end
    end,
  })
end

return M

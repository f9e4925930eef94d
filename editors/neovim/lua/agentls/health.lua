-- :checkhealth agentls — the server's own report (`agentls doctor --json`, the
-- same one the terminal and the other editors show) as health lines.
-- Neovim 0.7 finds this file as lua/**/agentls/health.lua; 0.8+ as well.
local M = {}

-- 0.10+ has vim.health.start/ok/…; 0.8-0.9 vim.health.report_*; 0.7 require('health').
local function reporter()
  local h = vim.health or require('health')
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    info = h.info or h.report_info,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
  }
end

-- The configured server command with `serve` swapped for `doctor --json`, checking
-- the model set in setup({ settings = { model = … } }) when there is one.
local function doctor_cmd(cmd, model)
  local out = {}
  for _, arg in ipairs(cmd) do
    if arg == 'serve' then
      break
    end
    table.insert(out, arg)
  end
  vim.list_extend(out, { 'doctor', '--json', '--workspace', vim.fn.getcwd() })
  if type(model) == 'string' and model ~= '' then
    vim.list_extend(out, { '--model', model })
  end
  return out
end

-- What to do about a missing key, with the blocker that says it is missing.
local function key_advice(variable)
  return {
    'export ' .. variable .. '=… in the shell that starts Neovim, or in this one'
      .. ' :let $' .. variable .. " = inputsecret('key: ') (kept out of the history)"
      .. ' then :AgentRestart',
  }
end

-- The blocker that names the model's missing key, if the report has one.
local function key_blocker(model, blocking)
  if model.keySet ~= false or type(model.keyVariable) ~= 'string' then
    return nil
  end
  for _, problem in ipairs(blocking) do
    if problem:find(model.keyVariable, 1, true) then
      return problem
    end
  end
  return nil
end

local function model_line(h, model, blocking)
  if model.id == vim.NIL or model.id == nil then
    return
  end
  if model.keySet == vim.NIL or model.keySet == nil then
    h.ok('model ' .. model.id .. ' (no key needed)')
  elseif model.keySet then
    h.ok('model ' .. model.id .. ': ' .. model.keyVariable .. ' is set')
  elseif key_blocker(model, blocking) then
    h.info('model ' .. model.id) -- its ERROR, once, is with the blockers below
  else -- not needed here (a local server's URL is set)
    h.info('model ' .. model.id .. ': ' .. model.keyVariable .. ' is not set')
  end
end

-- Each configured hook, under its event and settings layer; the doctor runs none.
local function hook_lines(h, hooks)
  if type(hooks) ~= 'table' then
    return -- an older server
  end
  for _, hook in ipairs(hooks.configured or {}) do
    local matcher = hook.matcher ~= '' and ('matcher ' .. hook.matcher .. '; ') or ''
    local text = 'hook ' .. hook.event .. ': ' .. hook.command .. ' (' .. matcher .. hook.source .. ' settings)'
    if hook.runs then
      h.ok(text)
    else
      h.info(text .. ' not run: ' .. tostring(hook.reason))
    end
  end
  if hooks.allowManagedHooksOnly then
    h.info("hooks: only the managed settings' hooks run here (allowManagedHooksOnly)")
  elseif hooks.disableAllHooks then
    h.info("hooks: disableAllHooks, only the managed settings' hooks run")
  end
end

function M.check()
  local h = reporter()
  local version = require('agentls.version')
  h.start('agentls plugin')
  h.ok('plugin version ' .. version)
  local ok, agentls = pcall(require, 'agentls')
  local cmd = (ok and agentls.config and agentls.config.cmd) or { 'agentls', 'serve' }
  h.info('server command: ' .. table.concat(cmd, ' '))
  if vim.fn.executable(cmd[1]) ~= 1 then
    h.error('cannot run ' .. cmd[1], {
      'install agentls (from a clone of its repository: `pipx install .` or `uv tool install .`) so it is on PATH',
      "or set cmd in require('agentls').setup({ cmd = { '/path/to/agentls', 'serve' } })",
    })
    return
  end
  local settings = (ok and agentls.config and agentls.config.settings) or {}
  local text = vim.fn.system(doctor_cmd(cmd, settings.model))
  local decoded, report = pcall(vim.fn.json_decode, text)
  if not decoded or type(report) ~= 'table' or report.version == nil then
    h.error('`agentls doctor --json` gave no report: ' .. vim.split(text, '\n')[1])
    return
  end
  h.start('agentls server')
  local where = vim.fn.exepath(cmd[1])
  if report.version == version then
    h.ok('server ' .. report.version .. ' (' .. where .. ', Python ' .. report.python.version .. ')')
  else
    h.warn('server ' .. report.version .. ' but plugin ' .. version, { 'update the one that is older' })
  end
  model_line(h, report.model, report.blocking)
  local sandbox = (report.sandbox.on and 'on: ' or 'off: ') .. report.sandbox.detail
  h.info('sandbox ' .. sandbox)
  h.info('state ' .. report.folders.state .. ', config ' .. report.folders.config)
  for _, server in ipairs(report.languageServers or {}) do
    if server.wouldRun then
      h.ok('language server ' .. server.name .. ' for ' .. table.concat(server.filePatterns, ' ')
        .. ' (' .. (server.path or server.command) .. ')')
    else
      h.info('language server ' .. server.name .. ' not used: ' .. (server.reason or 'off')
        .. (server.install and ('; install it: ' .. server.install) or ''))
    end
  end
  local running = ok and agentls.language_status and agentls.language_status() or ''
  if running ~= '' then
    h.info('running for this Neovim: ' .. running:gsub('^agentls: ', ''))
  end
  if #report.mcpServers > 0 then
    h.info('MCP servers: ' .. table.concat(report.mcpServers, ', '))
  end
  hook_lines(h, report.hooks)
  for _, warning in ipairs(report.warnings) do
    h.warn(warning)
  end
  local missing_key = key_blocker(report.model, report.blocking)
  for _, problem in ipairs(report.blocking) do
    if problem == missing_key then
      h.error(problem, key_advice(report.model.keyVariable))
    else
      h.error(problem)
    end
  end
  if #report.blocking == 0 then
    h.ok('ready to ask')
  end
end

return M

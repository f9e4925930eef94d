-- agentls with Neovim's own LSP client, without the plugin (Neovim 0.7 and later).
-- Copy it into init.lua, or load it from there: dofile('/path/to/agentls/editors/neovim/without-plugin.lua')
-- :Agentls <request> asks about the current file (the session goes on),
-- :AgentlsCancel cancels, :AgentlsTranscript opens the session's transcript.
local agentls_server = {
  cmd = { 'agentls', 'serve' },
  settings = { model = 'anthropic:claude-sonnet-4-5' }, -- any agentls setting
  client = nil,
}

local function agentls_root(file)
  local git = vim.fn.finddir('.git', vim.fn.fnamemodify(file, ':p:h') .. ';')
  return git ~= '' and vim.fn.fnamemodify(git, ':p:h:h') or vim.fn.getcwd()
end

-- Neovim's own prompt asks agentls's questions; dismissing one is its no: say so.
local function agentls_question(err, params, ctx, config)
  local choice = vim.lsp.handlers['window/showMessageRequest'](err, params, ctx, config)
  if (choice == nil or choice == vim.NIL) and params.message:find('^agentls wants to') then
    local no = params.message:find('Apply it%?') and 'Reject (the edit is not made)'
      or 'Deny (the call does not run)'
    vim.notify('agentls: dismissed, so: ' .. no)
  end
  return choice
end

-- Every file opened goes to agentls (it reads your unsaved text); one server per Neovim.
vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
  callback = function(args)
    local file = vim.api.nvim_buf_get_name(args.buf)
    if vim.bo[args.buf].buftype ~= '' or file == '' then
      return
    end
    if not (agentls_server.client and vim.lsp.get_client_by_id(agentls_server.client)) then
      local root = agentls_root(file)
      local config = {
        name = 'agentls',
        cmd = agentls_server.cmd,
        root_dir = root,
        workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
        init_options = agentls_server.settings,
        handlers = { ['window/showMessageRequest'] = agentls_question },
      }
      if vim.fn.has('nvim-0.11') == 1 then
        agentls_server.client = vim.lsp.start(config, { attach = false })
      else
        agentls_server.client = vim.lsp.start_client(config)
      end
    end
    vim.lsp.buf_attach_client(args.buf, agentls_server.client)
  end,
})

local function agentls_command(command, argument, on_result)
  local client = agentls_server.client and vim.lsp.get_client_by_id(agentls_server.client)
  if not client then
    return vim.notify('agentls is not running: open a file of the project', vim.log.levels.ERROR)
  end
  local params = { command = command, arguments = argument and { argument } or nil }
  local function handler(err, result)
    if err then
      vim.notify('agentls: ' .. err.message:gsub('^agentls: ', ''), vim.log.levels.ERROR)
    elseif on_result then
      on_result(result)
    end
  end
  if vim.fn.has('nvim-0.11') == 1 then
    client:request('workspace/executeCommand', params, handler)
  else
    client.request('workspace/executeCommand', params, handler)
  end
end

vim.api.nvim_create_user_command('Agentls', function(o)
  local file = vim.api.nvim_buf_get_name(0) ~= '' and vim.uri_from_bufnr(0) or nil
  agentls_command('agentls.ask', { prompt = o.args, uri = file })
end, { nargs = '+', desc = 'Ask agentls' })
vim.api.nvim_create_user_command('AgentlsCancel', function()
  agentls_command('agentls.cancel')
end, { desc = 'Cancel the agentls runs' })
vim.api.nvim_create_user_command('AgentlsTranscript', function()
  agentls_command('agentls.showTranscript', nil, function(result)
    if result.shown ~= true then -- Neovim before 0.10 cannot open documents for a server
      vim.cmd('split ' .. vim.fn.fnameescape(vim.uri_to_fname(result.uri)))
    end
  end)
end, { desc = "Open the agentls session's transcript" })

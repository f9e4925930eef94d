-- avante.nvim: agentls as an ACP provider (`agentls acp`).
-- agentls reads ANTHROPIC_API_KEY from the environment passed here or Neovim's own.
require("avante").setup({
  provider = "agentls",
  acp_providers = {
    agentls = {
      command = "agentls",
      args = { "acp" }, -- or { "acp", "--model", "openai:NAME" }
      env = { ANTHROPIC_API_KEY = os.getenv("ANTHROPIC_API_KEY") },
    },
  },
})

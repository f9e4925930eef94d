-- CodeCompanion.nvim: agentls as an ACP adapter (`agentls acp`).
-- Put this in your config (for example lua/plugins/codecompanion.lua with lazy.nvim's
-- `opts`, or call it directly). agentls reads ANTHROPIC_API_KEY from Neovim's environment.
require("codecompanion").setup({
  adapters = {
    acp = {
      agentls = function()
        -- Any built-in ACP adapter gives the protocol handling; only the command differs.
        return require("codecompanion.adapters").extend("goose", {
          name = "agentls",
          formatted_name = "agentls",
          commands = {
            default = { "agentls", "acp" },
            -- A model other than the default: { "agentls", "acp", "--model", "openai:NAME" }
          },
        })
      end,
    },
  },
  interactions = { chat = { adapter = "agentls" } },
})

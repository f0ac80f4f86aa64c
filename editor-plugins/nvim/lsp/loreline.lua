--- Loreline's language server: memories distilled from your AI-assistant sessions, shown on
--- hover, as code lenses and in `:Loreline`'s lists. Enable it with `vim.lsp.enable("loreline")`
--- (or `require("loreline").setup()`); override any field with `vim.lsp.config("loreline", {...})`.
---
--- The server attaches to every file buffer (no `filetypes`): memories are about projects, not
--- languages. Files over 2 MiB (session transcripts, logs, data) are left alone: the client
--- would send their whole text for hovers nobody needs there. `init_options` are documented in
--- docs/protocol.md ("Initialization options").

local MAX_BYTES = 2 * 1024 * 1024

---@type vim.lsp.Config
return {
  cmd = { "loreline", "lsp" },
  ---@param bufnr integer
  ---@param on_dir fun(root: string)
  root_dir = function(bufnr, on_dir)
    local name = vim.api.nvim_buf_get_name(bufnr)
    if name ~= "" and vim.fn.getfsize(name) > MAX_BYTES then
      return
    end
    on_dir(vim.fs.root(bufnr, { ".git" }) or (name ~= "" and vim.fs.dirname(name)) or vim.fn.getcwd())
  end,
  init_options = {
    hoverLimit = 3,
    codeLens = true,
    backgroundWorker = true,
  },
  handlers = {
    -- the store changed (this server wrote, or another process committed)
    ["loreline/didChange"] = function(_, params, ctx)
      require("loreline").on_did_change(params, ctx)
    end,
  },
  commands = {
    -- a code lens command: run it on the server and list the memories it returns
    ["loreline.showFileMemories"] = function(command, ctx)
      require("loreline").show_file_memories(command, ctx)
    end,
  },
  on_attach = function(client, bufnr)
    require("loreline").on_attach(client, bufnr)
  end,
  -- requests made while the server starts wait for these (no polling)
  on_init = function(client)
    require("loreline").on_init(client)
  end,
  on_exit = function(_, _, client_id)
    require("loreline").on_exit(client_id)
  end,
}

--- `:checkhealth loreline`: Neovim's version, the server command, whether the configuration is
--- enabled, and the running clients with what their server says about the store.

local M = {}

local health = vim.health

local function check_version()
  if vim.fn.has("nvim-0.11") == 1 then
    health.ok("Neovim " .. tostring(vim.version()))
  else
    health.error("Neovim 0.11 or newer is required (vim.lsp.config, vim.lsp.enable)")
  end
end

--- The server command from the resolved configuration, checked for an executable.
---@return vim.lsp.Config?
local function check_command()
  local config = vim.lsp.config.loreline
  if not config then
    health.error("no configuration named 'loreline'", { "Put editor-plugins/nvim on 'runtimepath' (it holds lsp/loreline.lua)" })
    return nil
  end
  local cmd = config.cmd
  if type(cmd) ~= "table" then
    health.info("the server command is a function; not checked")
    return config
  end
  local exe = vim.fn.exepath(cmd[1])
  if exe == "" then
    health.error(("`%s` is not executable"):format(cmd[1]), {
      "Install Loreline (pip install -e . in the repository) and put its scripts on PATH",
      'or point at it: require("loreline").setup({ cmd = { "/path/to/loreline", "lsp" } })',
    })
    return config
  end
  health.ok(("server command: %s (%s)"):format(table.concat(cmd, " "), exe))
  if vim.fs.basename(exe) == "loreline" then
    local version = vim.system({ exe, "--version" }, { text = true }):wait(5000)
    if version.code == 0 then
      health.ok(vim.trim(version.stdout))
    else
      health.warn(("`%s --version` failed: %s"):format(exe, vim.trim(version.stderr or "")))
    end
  end
  return config
end

local function check_clients()
  if vim.lsp.is_enabled("loreline") then
    health.ok("enabled: starts for every file buffer (root marker .git)")
  else
    health.info('not enabled: call require("loreline").setup() or vim.lsp.enable("loreline")')
  end
  local clients = vim.lsp.get_clients({ name = "loreline" })
  if #clients == 0 then
    health.info("no Loreline client is running")
  end
  for _, client in ipairs(clients) do
    local info = client.server_info or {}
    health.ok(("client %d: server %s %s, root %s, %d buffers"):format(client.id, info.name or "?", info.version or "?",
      client.root_dir or "(none)", #vim.tbl_keys(client.attached_buffers)))
  end
end

function M.check()
  health.start("loreline")
  check_version()
  check_command()
  check_clients()
end

return M

--- Loreline for Neovim: a thin client of `loreline lsp` (contract: docs/protocol.md).
---
--- Everything shown comes from the server; this module asks and displays. Invariants:
--- - one client named "loreline"; a command reuses it, or starts one for the current directory
---   without attaching it to a buffer (so `:Loreline` works from an empty buffer too);
--- - a request that fails becomes one `vim.notify` line ("Loreline: <message>"), never an error
---   raised into the user's session;
--- - `loreline/didChange` redraws every open Loreline view and the code lenses.

local M = {}

---@class loreline.Opts
---@field cmd? string[] server command; default {"loreline", "lsp"} (lsp/loreline.lua)
---@field init_options? table merged into the server's initialization options
---@field enable? boolean call vim.lsp.enable("loreline") (default true)
---@field codelens? boolean show code lenses in attached buffers (default true)
---@field width? integer width of the memories sidebar (default 52)

---@type loreline.Opts
local defaults = { enable = true, codelens = true, width = 52 }

---@type loreline.Opts
M.opts = vim.deepcopy(defaults)

local ERROR = vim.log.levels.ERROR

--- Work waiting for a starting client, by client id: run by `on_init` once the server answered
--- `initialize`, dropped (with one notification) by `on_exit` when it never did.
---@type table<integer, fun()[]>
local waiting = {}

---@param opts? loreline.Opts
function M.setup(opts)
  M.opts = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  local override = { cmd = M.opts.cmd, init_options = M.opts.init_options }
  if next(override) then
    vim.lsp.config("loreline", override)
  end
  if M.opts.enable then
    vim.lsp.enable("loreline")
  end
end

---@param msg string
---@param level? integer
function M.notify(msg, level)
  vim.notify("Loreline: " .. msg, level or vim.log.levels.INFO)
end

--- The running client, or one started for the current directory (attached to no buffer).
---@return vim.lsp.Client?
function M.client()
  local found = vim.lsp.get_clients({ name = "loreline", bufnr = 0 })[1] or vim.lsp.get_clients({ name = "loreline" })[1]
  if found then
    return found
  end
  local config = vim.lsp.config.loreline
  if not config then
    M.notify("no server configuration: is editor-plugins/nvim on 'runtimepath'?", ERROR)
    return nil
  end
  config = vim.deepcopy(config)
  if type(config.root_dir) ~= "string" then
    config.root_dir = vim.fs.root(0, { ".git" }) or vim.fn.getcwd()
  end
  local id = vim.lsp.start(config, { attach = false, silent = true })
  if not id then
    M.notify(("could not start `%s`; see :checkhealth loreline"):format(table.concat(config.cmd or {}, " ")), ERROR)
    return nil
  end
  return vim.lsp.get_client_by_id(id)
end

--- Run `fn` now when the client is initialized, else when its `on_init` runs.
---@param client vim.lsp.Client
---@param fn fun()
local function when_ready(client, fn)
  if client.initialized then
    return fn()
  end
  if client:is_stopped() then
    return M.notify("the server did not start; see :checkhealth loreline", ERROR)
  end
  waiting[client.id] = waiting[client.id] or {}
  table.insert(waiting[client.id], fn)
end

--- The client config's `on_init` (lsp/loreline.lua): the server answered `initialize`.
---@param client vim.lsp.Client
function M.on_init(client)
  local queued = waiting[client.id] or {}
  waiting[client.id] = nil
  for _, fn in ipairs(queued) do
    fn()
  end
end

--- The client config's `on_exit`: requests still waiting for this client will never be sent.
---@param client_id integer
function M.on_exit(client_id)
  if waiting[client_id] then
    waiting[client_id] = nil
    vim.schedule(function()
      M.notify("the server did not start; see :checkhealth loreline", ERROR)
    end)
  end
end

--- Send a request; the result goes to `on_result`, an error to one notification (or to `on_error`).
---@param method string
---@param params table
---@param on_result fun(result: any)
---@param client? vim.lsp.Client
---@param on_error? fun(err: table) instead of the notification
function M.request(method, params, on_result, client, on_error)
  client = client or M.client()
  if not client then
    return
  end
  when_ready(client, function()
    client:request(method, params, function(err, result)
      if err and on_error then
        return on_error(err)
      elseif err then
        return M.notify(err.message or vim.inspect(err), ERROR)
      end
      on_result(result)
    end)
  end)
end

--- The folder that picks the project: the current file's directory, else the working directory
--- (the server resolves either to its git top level).
---@return string
function M.folder()
  local name = vim.api.nvim_buf_get_name(0)
  if vim.bo.buftype == "" and name ~= "" then
    return vim.fs.dirname(vim.fs.normalize(name))
  end
  local view = require("loreline.views").current()
  return view and view.folder or vim.fn.getcwd()
end

--- "1 memory", "2 memories".
---@param n integer
---@param one string
---@param many string
---@return string
function M.count(n, one, many)
  return ("%d %s"):format(n, n == 1 and one or many)
end

--- A JSON string that may be null.
---@param value any
---@return string?
function M.str(value)
  return type(value) == "string" and value or nil
end

-- Handlers the server's configuration (lsp/loreline.lua) points at ---------------------------

---@param client vim.lsp.Client
---@param bufnr integer
function M.on_attach(client, bufnr)
  if not M.opts.codelens or not client:supports_method("textDocument/codeLens") then
    return
  end
  vim.lsp.codelens.refresh({ bufnr = bufnr })
  local group = vim.api.nvim_create_augroup("loreline_codelens_" .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd({ "BufEnter", "BufWritePost" }, {
    group = group,
    buffer = bufnr,
    callback = function()
      vim.lsp.codelens.refresh({ bufnr = bufnr })
    end,
  })
end

---@param _ table { reason: string }
---@param ctx lsp.HandlerContext
function M.on_did_change(_, ctx)
  if package.loaded["loreline.views"] then
    require("loreline.views").refresh_all()
  end
  if M.opts.codelens then
    for _, buf in ipairs(vim.lsp.get_buffers_by_client_id(ctx.client_id)) do
      vim.lsp.codelens.refresh({ bufnr = buf })
    end
  end
end

---@param command lsp.Command
---@param ctx table
function M.show_file_memories(command, ctx)
  require("loreline.views").file(command, vim.lsp.get_client_by_id(ctx.client_id))
end

-- The :Loreline command ------------------------------------------------------------------------

---@param text string?
---@return integer?
local function parse_id(text)
  local n = tonumber(((text or ""):gsub("^#", "")))
  return (n and n >= 1 and n == math.floor(n)) and n or nil
end

---@param report table the `loreline/import` result
---@return string
local function import_summary(report)
  local sessions = report.sessions
  local parts = {
    ("%s imported (%d unchanged, %d left out, %d failed)"):format(
      M.count(sessions.imported, "session", "sessions"), sessions.unchanged, #sessions.leftOut, #sessions.failed),
    ("%d added, %d merged"):format(report.added, report.merged),
  }
  if report.versioned > 0 then
    table.insert(parts, ("%d versioned"):format(report.versioned))
  end
  if report.conflicts > 0 then
    table.insert(parts, M.count(report.conflicts, "conflict", "conflicts"))
  end
  if #sessions.deferred > 0 then
    table.insert(parts, ("%d deferred to the next import (%s)"):format(#sessions.deferred, sessions.deferred[1].reason))
  end
  table.insert(parts, "distiller " .. tostring(report.backend))
  if report.cancelled then
    table.insert(parts, "cancelled")
  end
  return table.concat(parts, " · ")
end

---@param info table the `loreline/status` result (`projectCounts` are the folder's project's)
---@return string
local function status_text(info)
  local here = info.projectCounts
  return table.concat({
    ("%s in %s (%d active in all projects)"):format(M.count(here.active, "memory", "memories"), info.project,
      info.memories.active),
    ("sessions imported: %d · pending conflicts: %d (%d in all projects)"):format(info.sessionsImported,
      here.pendingConflicts, info.pendingConflicts),
    ("distiller %s · embedder %s"):format(info.backend, info.embedder),
    "store " .. info.store,
  }, "\n")
end

---@type table<string, fun(args: string[])>
local subcommands = {
  memories = function()
    require("loreline.views").memories(M.folder())
  end,
  recall = function(args)
    if #args == 0 then
      return M.notify("usage: :Loreline recall {query}", ERROR)
    end
    require("loreline.views").recall(M.folder(), table.concat(args, " "))
  end,
  conflicts = function()
    require("loreline.views").conflicts(M.folder())
  end,
  resolve = function(args)
    local id, keep = parse_id(args[1]), args[2]
    if not id or not vim.tbl_contains({ "new", "existing", "both" }, keep) then
      return M.notify("usage: :Loreline resolve {conflict id} {new|existing|both}", ERROR)
    end
    M.resolve(id, keep)
  end,
  forget = function(args)
    local id = parse_id(args[1])
    if not id then
      return M.notify("usage: :Loreline forget {memory id}", ERROR)
    end
    M.forget(id)
  end,
  import = function(args)
    M.import(args)
  end,
  view = function(args)
    local id = parse_id(args[1])
    if not id then
      return M.notify("usage: :Loreline view {memory id}", ERROR)
    end
    require("loreline.provenance").viewer(id)
  end,
  status = function()
    M.status()
  end,
}

--- Names of the subcommands, sorted.
---@return string[]
local function names()
  local out = vim.tbl_keys(subcommands)
  table.sort(out)
  return out
end

---@param opts { fargs: string[] }
function M.command(opts)
  local args = vim.deepcopy(opts.fargs)
  local name = table.remove(args, 1) or "memories"
  local run = subcommands[name]
  if not run then
    return M.notify(("unknown subcommand %q; one of: %s"):format(name, table.concat(names(), ", ")), ERROR)
  end
  run(args)
end

---@param arglead string
---@param cmdline string
---@return string[]
function M.complete(arglead, cmdline)
  local words = vim.split(vim.trim(cmdline), "%s+")
  local position = #words + (cmdline:match("%s$") and 1 or 0)
  if position <= 2 then
    return vim.tbl_filter(function(n)
      return vim.startswith(n, arglead)
    end, names())
  end
  if words[2] == "resolve" and position == 4 then
    return { "new", "existing", "both" }
  end
  if words[2] == "import" then
    return vim.fn.getcompletion(arglead, "file")
  end
  return {}
end

-- What the subcommands do ------------------------------------------------------------------------

---@param id integer
function M.forget(id)
  M.request("loreline/forget", { id = id }, function(result)
    M.notify("forgot #" .. table.concat(result.forgotten, ", #"))
  end)
end

--- Vouch for a memory as the code stands now: it no longer "may be stale".
---@param id integer
function M.confirm(id)
  M.request("loreline/confirm", { id = id }, function(m)
    M.notify(("confirmed #%d; it no longer may be stale"):format(m.id))
  end)
end

--- Approve a memory held for review (in `text`'s wording, when given): it becomes active.
---@param id integer
---@param text? string
function M.approve(id, text)
  M.request("loreline/approve", { id = id, text = text }, function(m)
    M.notify(("approved #%d; it is active now"):format(m.id))
  end)
end

--- Reject a memory held for review: it is forgotten for good.
---@param id integer
function M.reject(id)
  M.request("loreline/reject", { id = id }, function()
    M.notify(("rejected #%d; no import brings it back"):format(id))
  end)
end

---@param id integer
---@param keep "new"|"existing"|"both"
function M.resolve(id, keep)
  M.request("loreline/resolveConflict", { id = id, keep = keep }, function(c)
    M.notify(("conflict #%d resolved: %s"):format(c.id, tostring(c.resolution)))
  end)
end

--- Import the given transcript files, or discover recent sessions when none are given.
--- Progress arrives as `$/progress` (see `vim.lsp.status()` / the LspProgress event).
---@param paths string[]
function M.import(paths)
  local params = vim.empty_dict()
  if #paths > 0 then
    params = { paths = vim.tbl_map(function(p)
      return vim.fn.fnamemodify(vim.fn.expand(p), ":p")
    end, paths) }
  end
  M.notify("importing sessions…")
  M.request("loreline/import", params, function(report)
    M.notify(import_summary(report))
  end)
end

function M.status()
  local folder = M.folder()
  M.request("loreline/status", { folder = folder }, function(info)
    M.notify(status_text(info))
  end)
end

return M

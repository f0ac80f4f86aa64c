--- Scratch splits that list memories: the project's sidebar (the review inbox, the project brief
--- each assistant session starts with, then the memories grouped by kind), recall hits, pending
--- conflicts, and the memories tied to one file (the code lens command).
---
--- Every line that shows a memory maps to its id, so <CR> opens its provenance from any view.
--- A view remembers how to load itself; `refresh_all()` (on `loreline/didChange`) reloads every
--- view whose buffer still exists. Buffers are `nofile` scratch buffers named `loreline://…`,
--- so no language server attaches to them.

local M = {}

local KINDS = { "preference", "decision", "fact", "procedure", "episode" }

---@class loreline.View
---@field name string buffer name, "loreline://<what>"
---@field buf integer
---@field folder string picks the project
---@field ids table<integer, integer> line → memory id
---@field conflicts table<integer, integer> line → conflict id
---@field held? table<integer, integer> line → held memory id (the sidebar's Inbox)
---@field held_memories? table<integer, table> held memory id → Memory
---@field load fun(view: loreline.View) fetch and draw
---@field layout "sidebar"|"bottom"
---@field query? string recall only
---@field command? lsp.Command file view only
---@field client? vim.lsp.Client file view only

---@type table<string, loreline.View>
local open_views = {}

local function loreline()
  return require("loreline")
end

---@param m table a Memory
---@return string
local function memory_line(m)
  local text = m.text:gsub("%s*\n%s*", " ")
  local last = loreline().str(m.lastSeen) or m.createdAt
  local seen = (loreline().str(m.confirmedAt) and m.confirmedAt >= last) and "confirmed" or "seen"
  local stale = loreline().str(m.stale) and ("! may be stale (%s) "):format(m.stale) or ""
  return ("%s#%d %s%s · %s %s"):format(stale, m.id, text, m.pinned and " [pinned]" or "", seen, last:sub(1, 10))
end

---@param s table a Source
---@return string
function M.span(s)
  return s.lineStart == s.lineEnd and tostring(s.lineStart) or ("%d-%d"):format(s.lineStart, s.lineEnd)
end

---@param view loreline.View
local function show(view)
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == view.buf then
      return vim.api.nvim_set_current_win(win)
    end
  end
  if view.layout == "sidebar" then
    vim.cmd("topleft vertical sbuffer " .. view.buf)
    vim.api.nvim_win_set_width(0, loreline().opts.width or 52)
    vim.wo.winfixwidth = true
  else
    vim.cmd("botright sbuffer " .. view.buf)
    vim.api.nvim_win_set_height(0, 12)
  end
  for option, value in pairs({ number = false, relativenumber = false, signcolumn = "no", cursorline = true,
                               wrap = true, linebreak = true, breakindent = true }) do
    vim.wo[option] = value
  end
end

---@param view loreline.View
local function keymaps(view)
  local function map(lhs, fn, desc)
    vim.keymap.set("n", lhs, fn, { buffer = view.buf, nowait = true, silent = true, desc = "Loreline: " .. desc })
  end
  map("<CR>", function()
    local id = view.ids[vim.api.nvim_win_get_cursor(0)[1]]
    if id then
      require("loreline.provenance").open(id)
    end
  end, "provenance of the memory under the cursor")
  map("r", function()
    view.load(view)
  end, "refresh")
  map("q", "<cmd>close<cr>", "close")
  map("x", function()
    M.forget_under_cursor(view)
  end, "forget the memory under the cursor")
  map("c", function()
    local id = view.ids[vim.api.nvim_win_get_cursor(0)[1]]
    if id then
      loreline().confirm(id)
    end
  end, "confirm the memory under the cursor still holds")
  local function held_under_cursor()
    return view.held and view.held[vim.api.nvim_win_get_cursor(0)[1]]
  end
  map("a", function()
    local id = held_under_cursor()
    if id then
      loreline().approve(id)
    end
  end, "approve the held memory under the cursor")
  map("E", function()
    local m = held_under_cursor() and view.held_memories[held_under_cursor()]
    if m then
      local text = vim.fn.input({ prompt = ("Approve #%d as: "):format(m.id), default = m.text, cancelreturn = "" })
      if text ~= "" then
        loreline().approve(m.id, text)
      end
    end
  end, "edit then approve the held memory under the cursor")
  map("R", function()
    local id = held_under_cursor()
    if id then
      loreline().reject(id)
    end
  end, "reject the held memory under the cursor")
  for key, keep in pairs({ n = "new", e = "existing", b = "both" }) do
    map(key, function()
      local id = view.conflicts[vim.api.nvim_win_get_cursor(0)[1]]
      if id then
        loreline().resolve(id, keep)
      end
    end, "resolve the conflict under the cursor: keep " .. keep)
  end
end

---@param view loreline.View
function M.forget_under_cursor(view)
  local id = view.ids[vim.api.nvim_win_get_cursor(0)[1]]
  if id and vim.fn.confirm(("Forget memory #%d and its versions?"):format(id), "&Yes\n&No", 2) == 1 then
    loreline().forget(id)
  end
end

--- The view named `name`, created (with its buffer) when missing, then shown and loaded.
---@param name string
---@param fields table
---@return loreline.View
local function open(name, fields)
  local view = open_views[name]
  if not (view and vim.api.nvim_buf_is_valid(view.buf)) then
    local buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, "loreline://" .. name)
    vim.bo[buf].filetype = "loreline"
    vim.bo[buf].modifiable = false
    vim.bo[buf].bufhidden = "hide"
    view = { name = name, buf = buf, ids = {}, conflicts = {} }
    open_views[name] = view
    keymaps(view)
    vim.api.nvim_create_autocmd("BufWipeout", { buffer = buf, once = true, callback = function()
      open_views[name] = nil
    end })
  end
  for k, v in pairs(fields) do
    view[k] = v
  end
  show(view)
  view.load(view)
  return view
end

---@param view loreline.View
---@param lines string[]
---@param ids table<integer, integer>
---@param conflicts? table<integer, integer>
---@param held? table<integer, integer> line → held memory id (the Inbox)
local function draw(view, lines, ids, conflicts, held)
  if not vim.api.nvim_buf_is_valid(view.buf) then
    return
  end
  view.ids, view.conflicts, view.held = ids, conflicts or {}, held or {}
  vim.bo[view.buf].modifiable = true
  vim.api.nvim_buf_set_lines(view.buf, 0, -1, false, lines)
  vim.bo[view.buf].modifiable = false
end

--- Memories grouped by kind, in the protocol's order (pinned first, then newest).
---@param items table[]
---@param lines string[]
---@param ids table<integer, integer>
local function add_grouped(items, lines, ids)
  for _, kind in ipairs(KINDS) do
    local group = vim.tbl_filter(function(m)
      return m.kind == kind
    end, items)
    if #group > 0 then
      table.insert(lines, ("%s (%d)"):format(kind, #group))
      for _, m in ipairs(group) do
        table.insert(lines, "  " .. memory_line(m))
        ids[#lines] = m.id
      end
      table.insert(lines, "")
    end
  end
end

--- The review inbox at the top of the sidebar: held memories, then pending conflicts.
---@param view loreline.View
---@param inbox table {held, conflicts}
---@param lines string[]
---@param ids table<integer, integer>
---@param owners table<integer, integer>
---@param held table<integer, integer>
local function add_inbox(view, inbox, lines, ids, owners, held)
  local waiting = #inbox.held + #inbox.conflicts
  view.held_memories = {}
  if waiting == 0 then
    return
  end
  table.insert(lines, ("Inbox (%d) · a approve · E edit · R reject · n/e/b keep new/existing/both"):format(waiting))
  for _, m in ipairs(inbox.held) do
    table.insert(lines, ("  ? %s (held: %s)"):format(memory_line(m), loreline().str(m.holdReason) or "for review"))
    ids[#lines], held[#lines], view.held_memories[m.id] = m.id, m.id, m
  end
  for _, c in ipairs(inbox.conflicts) do
    table.insert(lines, ("  conflict #%d #%d ↔ #%d %s"):format(c.id, c.existing.id, c.new.id, loreline().str(c.reason) or ""))
    owners[#lines] = c.id
  end
  table.insert(lines, "")
end

--- The project brief under the Inbox: each line (its number, text and the ids it cites), then
--- the memories it rests on; <CR> on either opens a memory's provenance.
---@param brief table|nil a Brief, or nil (none yet, or a server without briefs)
---@param lines string[]
---@param ids table<integer, integer>
local function add_brief(brief, lines, ids)
  if brief == nil or brief == vim.NIL or #brief.lines == 0 then
    return
  end
  table.insert(lines, ("Brief · %s · v%d by %s%s · what each session starts with"):format(
    loreline().count(#brief.lines, "line", "lines"), brief.version, brief.writer, brief.stale and " · stale" or ""))
  for _, line in ipairs(brief.lines) do
    local cited = table.concat(vim.tbl_map(function(id) return "#" .. id end, line.memories), ", ")
    local said = (line.text:gsub("%s*\n%s*", " "))
    table.insert(lines, ("  %d. %s (%s)%s"):format(line.number, said, cited, line.pinned and " [pinned]" or ""))
    ids[#lines] = line.memories[1]
    for _, m in ipairs(line.sources) do
      table.insert(lines, "     ↳ " .. memory_line(m))
      ids[#lines] = m.id
    end
  end
  table.insert(lines, "")
end

---@param view loreline.View
---@param inbox table {held, conflicts}
---@param brief table|nil
---@param page table a page of memories
local function draw_memories(view, inbox, brief, page)
  local lines = { "Loreline · " .. page.project,
    loreline().count(page.total, "memory", "memories")
    .. " · <CR> provenance · r refresh · x forget · c confirm · q close", "" }
  local ids, owners, held = {}, {}, {}
  add_inbox(view, inbox, lines, ids, owners, held)
  add_brief(brief, lines, ids)
  add_grouped(page.items, lines, ids)
  if page.total == 0 then
    table.insert(lines, "No memories for this project yet: run :Loreline import")
  elseif page.total > #page.items then
    table.insert(lines, ("… and %d more"):format(page.total - #page.items))
  end
  draw(view, lines, ids, owners, held)
end

---@param view loreline.View
local function load_memories(view)
  loreline().request("loreline/inbox", { folder = view.folder }, function(inbox)
    local function with_brief(brief)
      loreline().request("loreline/memories", { folder = view.folder }, function(page)
        draw_memories(view, inbox, brief, page)
      end)
    end
    -- a server from before briefs answers MethodNotFound: the sidebar is drawn without one
    loreline().request("loreline/brief", { folder = view.folder }, with_brief, nil, function()
      with_brief(nil)
    end)
  end)
end

---@param view loreline.View
local function load_recall(view)
  loreline().request("loreline/recall", { folder = view.folder, query = view.query }, function(found)
    local lines = { ("Recall: %s (%d)"):format(found.query, #found.items), "<CR> provenance · r refresh · q close", "" }
    local ids = {}
    for rank, hit in ipairs(found.items) do
      table.insert(lines, ("%d. [%s] %s"):format(rank, hit.memory.kind, memory_line(hit.memory)))
      ids[#lines] = hit.memory.id
      local source = hit.sources[1]
      if source then
        table.insert(lines, ("   %s · lines %s · %s"):format(source.tool, M.span(source), vim.fs.basename(source.sessionPath)))
        ids[#lines] = hit.memory.id
      end
    end
    if #found.items == 0 then
      table.insert(lines, "Nothing recalled.")
    end
    draw(view, lines, ids)
  end)
end

---@param view loreline.View
local function load_conflicts(view)
  loreline().request("loreline/conflicts", { folder = view.folder }, function(found)
    local lines = { ("Conflicts: %d pending"):format(#found.items),
      "<CR> provenance · n keep new · e keep existing · b keep both · q close", "" }
    local ids, owners = {}, {}
    for _, c in ipairs(found.items) do
      table.insert(lines, ("conflict #%d  %s"):format(c.id, loreline().str(c.reason) or ""))
      owners[#lines] = c.id
      for _, side in ipairs({ { "existing", c.existing }, { "new     ", c.new } }) do
        table.insert(lines, ("  %s %s"):format(side[1], memory_line(side[2])))
        ids[#lines], owners[#lines] = side[2].id, c.id
      end
      table.insert(lines, "")
    end
    draw(view, lines, ids, owners)
  end)
end

---@param view loreline.View
local function load_file(view)
  local command = assert(view.command)
  loreline().request("workspace/executeCommand", { command = command.command, arguments = command.arguments },
    function(result)
      local path = vim.uri_to_fname(result.uri)
      local lines = { ("%s: %s"):format(vim.fn.fnamemodify(path, ":~:."), loreline().count(#result.items, "memory", "memories")),
        "<CR> provenance · r refresh · q close", "" }
      local ids = {}
      add_grouped(result.items, lines, ids)
      draw(view, lines, ids)
    end, view.client)
end

---@param folder string
function M.memories(folder)
  open("memories", { folder = folder, layout = "sidebar", load = load_memories })
end

---@param folder string
---@param query string
function M.recall(folder, query)
  open("recall", { folder = folder, query = query, layout = "bottom", load = load_recall })
end

---@param folder string
function M.conflicts(folder)
  open("conflicts", { folder = folder, layout = "bottom", load = load_conflicts })
end

---@param command lsp.Command
---@param client? vim.lsp.Client
function M.file(command, client)
  local uri = command.arguments and command.arguments[1]
  local folder = type(uri) == "string" and vim.fs.dirname(vim.uri_to_fname(uri)) or vim.fn.getcwd()
  open("file", { folder = folder, command = command, client = client, layout = "bottom", load = load_file })
end

--- The view shown in the current window, if any.
---@return loreline.View?
function M.current()
  local buf = vim.api.nvim_get_current_buf()
  for _, view in pairs(open_views) do
    if view.buf == buf then
      return view
    end
  end
end

--- True when `buf` belongs to a Loreline view.
---@param buf integer
---@return boolean
function M.is_view(buf)
  for _, view in pairs(open_views) do
    if view.buf == buf then
      return true
    end
  end
  return false
end

function M.refresh_all()
  for _, view in pairs(open_views) do
    if vim.api.nvim_buf_is_valid(view.buf) then
      view.load(view)
    end
  end
end

return M

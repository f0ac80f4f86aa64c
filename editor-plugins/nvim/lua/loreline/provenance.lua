--- Where a memory came from, in a float: the memory, then each source (tool, session, date,
--- line range, session file, redacted excerpt). <CR> on a source opens the session file at its
--- first line in an ordinary window (never in a Loreline view or a float); v opens the memory's
--- page in the local viewer (the transcript around each source, the version timeline).

local M = {}

---@param value any
---@return string
local function day(value)
  local text = require("loreline").str(value)
  return text and text:sub(1, 10) or "?"
end

--- The float's lines, and which source each line belongs to.
---@param found table the `loreline/provenance` result
---@return string[] lines
---@return table<integer, table> sources line → Source
function M.render(found)
  local m = found.memory
  local span = require("loreline.views").span
  local lines = { ("%s · #%d · v%d · %s · %s"):format(m.kind, m.id, m.version, day(m.observedAt or m.createdAt), m.status) }
  vim.list_extend(lines, vim.split(m.text, "\n", { plain = true }))
  if type(m.cues) == "table" and #m.cues > 0 then
    table.insert(lines, "Found by: " .. table.concat(m.cues, "; "))
  end
  table.insert(lines, "")
  table.insert(lines, ("Sources (%d) · <CR> opens the session at the line · v the viewer · q closes"):format(#found.sources))
  local targets = {}
  for _, s in ipairs(found.sources) do
    table.insert(lines, "")
    table.insert(lines, ("%s · session %s · %s · lines %s"):format(s.tool, (s.sessionShort or s.sessionId:sub(1, 8)), day(s.observedAt), span(s)))
    targets[#lines] = s
    table.insert(lines, "  " .. s.sessionPath .. ":" .. s.lineStart)
    targets[#lines] = s
    for _, line in ipairs(vim.split(s.excerpt, "\n", { plain = true })) do
      table.insert(lines, "  > " .. line)
      targets[#lines] = s
    end
  end
  return lines, targets
end

--- Fetch a memory's provenance and show it.
---@param id integer
function M.open(id)
  require("loreline").request("loreline/provenance", { id = id }, function(found)
    M.show(found)
  end)
end

---@param found table the `loreline/provenance` result
---@return integer buf
---@return integer win
function M.show(found)
  local lines, targets = M.render(found)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].filetype = "loreline"
  local width = math.min(100, vim.o.columns - 6)
  local height = math.min(#lines + 4, vim.o.lines - 6)
  local win = vim.api.nvim_open_win(buf, true, {
    relative = "editor", style = "minimal", border = "rounded", title = " Loreline provenance ",
    width = width, height = height, row = math.floor((vim.o.lines - height) / 2),
    col = math.floor((vim.o.columns - width) / 2),
  })
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  local first = next(targets) and math.min(unpack(vim.tbl_keys(targets)))
  if first then
    vim.api.nvim_win_set_cursor(win, { first, 0 })
  end
  local function close()
    if vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_close(win, true)
    end
  end
  vim.keymap.set("n", "<CR>", function()
    local source = targets[vim.api.nvim_win_get_cursor(0)[1]]
    if source then
      close()
      M.jump(source)
    end
  end, { buffer = buf, nowait = true, desc = "Loreline: open the session file at this source" })
  vim.keymap.set("n", "v", function()
    M.viewer(found.memory.id)
  end, { buffer = buf, nowait = true, desc = "Loreline: open this memory in the local viewer" })
  for _, lhs in ipairs({ "q", "<Esc>" }) do
    vim.keymap.set("n", lhs, close, { buffer = buf, nowait = true, desc = "Loreline: close" })
  end
  return buf, win
end

--- Open a memory's page in the local viewer, in the browser (`loreline/viewer` starts it).
---@param id integer
function M.viewer(id)
  require("loreline").request("loreline/viewer", { id = id }, function(found)
    local ok, err = pcall(vim.ui.open, found.url)
    if not ok then
      require("loreline").notify("could not open a browser: " .. tostring(err) .. "; the viewer is at " .. found.url,
        vim.log.levels.WARN)
    end
  end)
end

--- An ordinary window of the current tab: not floating, not showing a Loreline view.
---@return integer?
local function ordinary_window()
  local views = require("loreline.views")
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local buf = vim.api.nvim_win_get_buf(win)
    if vim.api.nvim_win_get_config(win).relative == "" and not views.is_view(buf) and vim.bo[buf].buftype == "" then
      return win
    end
  end
end

--- Open the session file at the source's first line.
---@param source table a Source
function M.jump(source)
  if vim.fn.filereadable(source.sessionPath) == 0 then
    return require("loreline").notify("the session file is gone: " .. source.sessionPath, vim.log.levels.ERROR)
  end
  local win = ordinary_window()
  if win then
    vim.api.nvim_set_current_win(win)
  else
    vim.cmd("botright vertical new")
  end
  vim.cmd.edit(vim.fn.fnameescape(source.sessionPath))
  local last = vim.api.nvim_buf_line_count(0)
  vim.api.nvim_win_set_cursor(0, { math.min(source.lineStart, last), 0 })
  vim.cmd("normal! zz")
end

return M

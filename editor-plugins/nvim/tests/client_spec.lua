-- End-to-end scenarios for the Neovim client, against the real `loreline lsp` on a real store.
-- Run by tests/test_nvim_client.py, one scenario per Neovim:
--   nvim --headless -u NONE -l client_spec.lua SCENARIO
-- Environment: LORELINE_HOME (a filled store), LORELINE_TEST_REPO (a git repository the store's
-- sessions worked in), LORELINE_TEST_CLI (the loreline executable), LORELINE_TEST_EXTRA and
-- LORELINE_TEST_EXTRA2 (sessions not imported yet), LORELINE_TEST_CONFLICT (a pending conflict id,
-- "commands" scenario only). Exit status 0 = pass; a failure prints the reason on stderr.

local PLUGIN = vim.fs.dirname(vim.fs.dirname(vim.fs.normalize(vim.fn.fnamemodify(arg[0], ":p"))))
local REPO = assert(os.getenv("LORELINE_TEST_REPO"), "LORELINE_TEST_REPO is not set")
local APP = REPO .. "/src/app.py"

local notes = {} ---@type string[] every vim.notify message, in order
vim.notify = function(msg)
  table.insert(notes, msg)
end

-- Helpers ---------------------------------------------------------------------------------------

local function fail(msg)
  error(msg, 0)
end

local function wait(what, cond, ms)
  if not vim.wait(ms or 15000, cond, 20) then
    fail("timed out waiting for " .. what .. "\nnotifications:\n" .. table.concat(notes, "\n"))
  end
end

local function text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
end

local function contains(haystack, needle, what)
  if not haystack:find(needle, 1, true) then
    fail(("%s: %q not found in:\n%s"):format(what, needle, haystack))
  end
end

local function eq(got, want, what)
  if got ~= want then
    fail(("%s: expected %s, got %s"):format(what, vim.inspect(want), vim.inspect(got)))
  end
end

local function view_buf(name)
  local buf = vim.fn.bufnr("loreline://" .. name)
  return buf > 0 and buf or nil
end

--- Wait until the view `name` exists and shows `needle`; returns its buffer.
local function wait_view(name, needle)
  wait(("loreline://%s to show %q"):format(name, needle), function()
    local buf = view_buf(name)
    return buf ~= nil and text(buf):find(needle, 1, true) ~= nil
  end)
  return view_buf(name)
end

local function noted(needle)
  wait(("a notification with %q"):format(needle), function()
    for _, n in ipairs(notes) do
      if n:find(needle, 1, true) then
        return true
      end
    end
  end)
end

--- The floating window whose buffer shows `needle`.
local function float_with(needle)
  local found
  wait(("a float showing %q"):format(needle), function()
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(win).relative ~= "" and text(vim.api.nvim_win_get_buf(win)):find(needle, 1, true) then
        found = win
        return true
      end
    end
  end)
  return found
end

local function press(keys)
  vim.api.nvim_feedkeys(vim.keycode(keys), "x", false)
end

--- Put the cursor on the first line of `buf` (shown in the current window) matching `pattern`.
local function cursor_to(buf, pattern)
  for lnum, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if line:find(pattern) then
      vim.api.nvim_win_set_cursor(0, { lnum, 0 })
      return line
    end
  end
  fail(("no line matching %q in:\n%s"):format(pattern, text(buf)))
end

local function start(opts)
  vim.opt.rtp:prepend(PLUGIN)
  vim.cmd("filetype on") -- -u NONE turns it off, and vim.lsp.enable starts clients on FileType
  vim.cmd.runtime("plugin/loreline.lua")
  require("loreline").setup(vim.tbl_deep_extend("force", {
    init_options = { pollSeconds = 0.2, backgroundWorker = false },
  }, opts or {}))
end

--- Open the repository's app.py and wait for the Loreline client to be attached and ready.
local function open_app()
  vim.cmd.edit(vim.fn.fnameescape(APP))
  local client
  wait("the loreline client to attach", function()
    client = vim.lsp.get_clients({ bufnr = 0, name = "loreline" })[1]
    return client ~= nil and client.initialized
  end)
  return client, vim.api.nvim_get_current_buf()
end

-- Scenarios -------------------------------------------------------------------------------------

local scenarios = {}

function scenarios.attach()
  start()
  local client = open_app()
  eq(client.root_dir, REPO, "root_dir (root marker .git)")
  eq(client.config.cmd[1], "loreline", "default command from lsp/loreline.lua")
  eq(client.server_info.name, "loreline", "server name")
  vim.cmd("checkhealth loreline")
  local report = text(0)
  contains(report, "server command: loreline lsp", ":checkhealth")
  contains(report, "root " .. REPO, ":checkhealth")
  if report:find("ERROR", 1, true) then
    fail(":checkhealth reported an error:\n" .. report)
  end
  local big = REPO .. "/big.py" -- over 2 MiB: not worth sending to the server
  vim.fn.writefile({ "# " .. string.rep("x", 3 * 1024 * 1024) }, big)
  vim.cmd.edit(vim.fn.fnameescape(big))
  vim.wait(1000, function()
    return #vim.lsp.get_clients({ bufnr = 0, name = "loreline" }) > 0
  end, 20)
  eq(#vim.lsp.get_clients({ bufnr = 0, name = "loreline" }), 0, "clients attached to a 3 MiB file")
end

function scenarios.sidebar()
  start()
  open_app()
  vim.cmd("Loreline")
  local buf = wait_view("memories", "advisory locks")
  local shown = text(buf)
  for _, needle in ipairs({ "Loreline · " .. REPO, "3 memories", "preference (1)", "decision (1)", "fact (1)",
                            "In this repo we use pnpm, never npm.", "bump the worker pool to 8 threads" }) do
    contains(shown, needle, "sidebar")
  end
  if not (shown:find("preference %(1%)") < shown:find("decision %(1%)")) then
    fail("kinds out of order:\n" .. shown)
  end
  eq(vim.api.nvim_get_current_buf(), buf, "the sidebar has the focus")
  cursor_to(buf, "advisory locks")
  press("<CR>")
  local float = float_with("> We'll use Postgres advisory locks")
  local detail = text(vim.api.nvim_win_get_buf(float))
  contains(detail, "decision · #", "provenance float")
  contains(detail, "claude-code · session ", "provenance float")
  contains(detail, "lines 5", "provenance float")
  contains(detail, "s0.jsonl:5", "provenance float")
  local opened
  local real_open = vim.ui.open
  vim.ui.open = function(url) opened = url end -- what the browser would be given
  press("v")
  wait("the viewer's address", function() return opened ~= nil end, 60000)
  vim.ui.open = real_open
  if not opened:match("^http://127%.0%.0%.1:%d+/m/%d+%?token=") then
    fail("not a viewer address: " .. opened)
  end
  press("<CR>") -- the cursor starts on the first source: open the session file at its line
  wait("the session file", function()
    return vim.api.nvim_buf_get_name(0):find("s0.jsonl", 1, true) ~= nil
  end)
  eq(vim.api.nvim_win_get_cursor(0)[1], 5, "cursor on the evidence line")
  contains(vim.api.nvim_get_current_line(), "advisory locks", "the session line")
  if vim.api.nvim_win_is_valid(float) then
    fail("the float is still open")
  end
  eq(vim.fn.bufwinid(buf) ~= -1, true, "the sidebar stays open beside the session")
end

function scenarios.brief()
  start()
  open_app()
  vim.cmd("Loreline")
  local buf = wait_view("memories", "Brief · 3 lines")
  local shown = text(buf)
  contains(shown, "Brief · 3 lines · v1 by rules", "the brief's heading")
  if not (shown:find("Brief · 3 lines", 1, true) < shown:find("preference (1)", 1, true)) then
    fail("the brief is not above the kinds:\n" .. shown)
  end
  local line = cursor_to(buf, "^  %d+%. In this repo we use pnpm, never npm%. %(#%d+%)$")
  local cited = line:match("%(#(%d+)%)$")
  contains(shown, line .. "\n     ↳ #" .. cited .. " In this repo we use pnpm, never npm.", "the line's source under it")
  press("<CR>")
  local float = float_with("> In this repo we use pnpm, never npm.")
  contains(text(vim.api.nvim_win_get_buf(float)), "preference · #" .. cited, "the provenance of the memory it cites")
end

function scenarios.hover()
  start()
  open_app()
  vim.api.nvim_win_set_cursor(0, { 1, 21 }) -- on "pnpm" in "# install deps with pnpm"
  vim.lsp.buf.hover()
  local win = float_with("In this repo we use pnpm, never npm.")
  local shown = text(vim.api.nvim_win_get_buf(win))
  contains(shown, "preference", "hover")
  contains(shown, "claude-code", "hover")
  contains(shown, "lines 1", "hover")
end

function scenarios.codelens()
  start()
  local _, buf = open_app()
  wait("a code lens", function()
    return #vim.lsp.codelens.get(buf) > 0
  end)
  local lenses = vim.lsp.codelens.get(buf)
  eq(#lenses, 1, "lens count")
  eq(lenses[1].command.title, "Loreline: 2 memories about this file", "lens title")
  wait("the lens drawn as virtual text", function()
    for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(buf, -1, 0, -1, { details = true })) do
      for _, chunk in ipairs(mark[4].virt_text or {}) do
        if chunk[1]:find("memories about this file", 1, true) then
          return true
        end
      end
    end
  end)
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.lsp.codelens.run()
  local view = wait_view("file", "advisory locks")
  local shown = text(view)
  contains(shown, "src/app.py: 2 memories", "file view")
  contains(shown, "In this repo we use pnpm, never npm.", "file view")
  if shown:find("worker pool", 1, true) then
    fail("a memory not tied to the file is listed:\n" .. shown)
  end
  vim.api.nvim_set_current_buf(buf)
  vim.cmd.edit(vim.fn.fnameescape(REPO .. "/README.md"))
  local readme = vim.api.nvim_get_current_buf()
  vim.wait(1000, function()
    return #vim.lsp.codelens.get(readme) > 0
  end)
  eq(#vim.lsp.codelens.get(readme), 0, "no lens on a file no memory is tied to")
end

function scenarios.recall()
  start()
  open_app()
  vim.cmd("Loreline recall advisory locks billing")
  local buf = wait_view("recall", "1. [decision]")
  local shown = text(buf)
  contains(shown, "Recall: advisory locks billing", "recall view")
  local first = cursor_to(buf, "^1%. ")
  contains(first, "We'll use Postgres advisory locks because each billing job needs one worker.", "top hit")
  contains(shown, "claude-code · lines 5 · s0.jsonl", "top hit's source")
  press("<CR>")
  float_with("> We'll use Postgres advisory locks")
  vim.cmd("Loreline recall")
  noted("usage: :Loreline recall {query}")
end

function scenarios.commands()
  start()
  open_app()
  local conflict = assert(os.getenv("LORELINE_TEST_CONFLICT"))
  vim.cmd("Loreline status")
  noted("3 memories in " .. REPO)
  noted("pending conflicts: 1 (2 in all projects)")
  vim.cmd("Loreline conflicts")
  local conflicts = wait_view("conflicts", "conflict #" .. conflict)
  contains(text(conflicts), "existing #", "conflicts view")
  contains(text(conflicts), "new      #", "conflicts view")
  vim.cmd("wincmd p")
  vim.cmd("Loreline")
  local sidebar = wait_view("memories", "The fix was")
  local fact = cursor_to(sidebar, "The fix was")
  local id = fact:match("#(%d+)")
  vim.cmd("Loreline forget " .. id)
  noted("forgot #" .. id)
  wait("the sidebar to drop the forgotten memory", function()
    return not text(sidebar):find("The fix was", 1, true) and text(sidebar):find("2 memories", 1, true) ~= nil
  end)
  vim.api.nvim_set_current_win(vim.fn.bufwinid(conflicts))
  cursor_to(conflicts, "^conflict #")
  press("n") -- keep the new memory
  noted("conflict #" .. conflict .. " resolved: keep_new")
  wait_view("conflicts", "Conflicts: 0 pending")
  wait_view("memories", "1 memory ·")
  vim.cmd("Loreline forget 999")
  noted("no memory with id 999")
  vim.cmd("Loreline forget soon")
  noted("usage: :Loreline forget {memory id}")
  vim.cmd("Loreline bogus")
  noted('unknown subcommand "bogus"')
  eq(vim.fn.getcompletion("Loreline re", "cmdline")[1], "recall", "completion")
end

function scenarios.did_change()
  start()
  open_app()
  vim.cmd("Loreline")
  local sidebar = wait_view("memories", "3 memories")
  local extra = assert(os.getenv("LORELINE_TEST_EXTRA"))
  local cli = assert(os.getenv("LORELINE_TEST_CLI"))
  local done = vim.system({ cli, "import", "sessions", "--path", extra, "--backend", "rules" }, { text = true }):wait(60000)
  eq(done.code, 0, "loreline import in another process: " .. (done.stderr or ""))
  wait_view("memories", "bump the worker pool to 42 threads")
  contains(text(sidebar), "4 memories", "sidebar after another process imported")
  contains(text(sidebar), "Brief · 4 lines", "the brief that import wrote")
end

function scenarios.import()
  start()
  open_app()
  local progress = {}
  vim.api.nvim_create_autocmd("LspProgress", { callback = function(ev)
    table.insert(progress, ev.data.params.value.kind)
  end })
  vim.cmd("Loreline")
  wait_view("memories", "3 memories")
  vim.cmd("Loreline import " .. vim.fn.fnameescape(assert(os.getenv("LORELINE_TEST_EXTRA2"))))
  noted("1 session imported (0 unchanged, 0 left out, 0 failed) · 1 added")
  wait_view("memories", "bump the worker pool to 77 threads")
  eq(progress[1], "begin", "first progress report")
  eq(progress[#progress], "end", "last progress report")
end

function scenarios.early_command()
  start()
  vim.cmd("Loreline status") -- from an empty buffer: the client starts now
  -- a client is listed only once it is initialized: none yet, so the requests had to wait
  eq(#vim.lsp.get_clients({ name = "loreline" }), 0, "initialized clients right after the command")
  noted("sessions imported: 1") -- sent by on_init once the server answered initialize
  local server_exits = { "sh", "-c", "exit 3" }
  vim.lsp.config("loreline", { cmd = server_exits })
  for _, c in ipairs(vim.lsp.get_clients({ name = "loreline" })) do
    c:stop(true)
  end
  wait("the first client to stop", function()
    return #vim.lsp.get_clients({ name = "loreline" }) == 0
  end)
  vim.cmd("Loreline status")
  noted("the server did not start")
end

function scenarios.missing_server()
  start({ cmd = { "/nonexistent/loreline", "lsp" } })
  vim.cmd("Loreline status")
  noted("could not start `/nonexistent/loreline lsp`")
  vim.cmd("checkhealth loreline")
  contains(text(0), "`/nonexistent/loreline` is not executable", ":checkhealth")
end

--- Loreline's diagnostics on `buf` (from the server's publishDiagnostics).
local function loreline_diagnostics(buf)
  return vim.tbl_filter(function(d)
    return d.source == "loreline"
  end, vim.diagnostic.get(buf))
end

function scenarios.stale()
  start()
  local _, buf = open_app()
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "def rewritten():", "    return 1" })
  vim.cmd.write() -- didSave: the server compares the file with what the memories rest on
  wait("the stale diagnostic", function()
    local found = loreline_diagnostics(buf)[1]
    return found ~= nil and found.message:find("2 memories about this file may be stale since it changed", 1, true) ~= nil
  end)
  local diag = loreline_diagnostics(buf)[1]
  eq(diag.lnum, 0, "diagnostic line")
  eq(diag.severity, vim.diagnostic.severity.INFO, "diagnostic severity")
  contains(diag.message, "src/app.py changed (100% of its lines)", "diagnostic message")
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.lsp.buf.code_action({ apply = true, filter = function(action)
    return action.title:find("^Loreline: confirm #") ~= nil and action.title:find("#" .. diag.user_data.lsp.data.ids[1] .. " ", 1, true) ~= nil
  end })
  wait("one memory left stale", function()
    local found = loreline_diagnostics(buf)[1]
    return found ~= nil and found.message:find("1 memory about this file may be stale", 1, true) ~= nil
  end)
  vim.cmd("Loreline")
  local side = wait_view("memories", "! may be stale (src/app.py changed")
  cursor_to(side, "may be stale")
  press("c")
  noted("no longer may be stale")
  wait("the diagnostic to clear", function()
    return #loreline_diagnostics(buf) == 0
  end)
  wait("the sidebar to drop the mark", function()
    return not text(side):find("may be stale", 1, true)
  end)
  contains(text(side), "confirmed " .. os.date("!%Y-%m-%d"), "the sidebar shows when it was confirmed")
end

function scenarios.inbox()
  start()
  open_app()
  vim.cmd("Loreline")
  local buf = wait_view("memories", "Inbox (3)")
  local shown = text(buf)
  contains(shown, "? #", "held line")
  contains(shown, "In this repo we deploy with nomad, never docker.", "held memory")
  contains(shown, "(held: from background capture (review = ask))", "hold reason")
  contains(shown, "conflict #", "the conflict in the inbox")
  if not (shown:find("Inbox %(3%)") < shown:find("preference %(1%)")) then
    fail("the Inbox is not at the top:\n" .. shown)
  end
  cursor_to(buf, "deploy with nomad")
  press("a")
  noted("it is active now")
  wait_view("memories", "Inbox (2)")
  wait_view("memories", "fact (2)")
  cursor_to(buf, "lint with ruff")
  press("R")
  noted("no import brings it back")
  wait_view("memories", "Inbox (1)")
  if text(buf):find("lint with ruff", 1, true) then
    fail("the rejected memory is still shown:\n" .. text(buf))
  end
  cursor_to(buf, "^  conflict #")
  press("b")
  noted("resolved: keep_both")
  wait("the empty Inbox to go", function()
    return not text(buf):find("Inbox (", 1, true)
  end)
end

-- Run one ---------------------------------------------------------------------------------------

local name = arg[1]
local scenario = scenarios[name]
if not scenario then
  io.stderr:write(("unknown scenario %q\n"):format(tostring(name)))
  os.exit(2)
end
local ok, err = xpcall(scenario, debug.traceback)
for _, client in ipairs(vim.lsp.get_clients()) do
  client:stop()
end
vim.wait(3000, function()
  return #vim.lsp.get_clients() == 0
end, 20)
for _, client in ipairs(vim.lsp.get_clients()) do
  client:stop(true)
end
if not ok then
  io.stderr:write(("FAIL %s: %s\n"):format(name, err))
  os.exit(1)
end
io.stdout:write("PASS " .. name .. "\n")
os.exit(0)

-- Only the user command lives here; everything else loads on first use.
if vim.g.loaded_loreline then
  return
end
vim.g.loaded_loreline = true

vim.api.nvim_create_user_command("Loreline", function(args)
  require("loreline").command(args)
end, {
  nargs = "*",
  desc = "Loreline: memories [| recall {query} | conflicts | resolve {id} {new|existing|both} | forget {id} | import [paths] | status]",
  complete = function(arglead, cmdline)
    return require("loreline").complete(arglead, cmdline)
  end,
})

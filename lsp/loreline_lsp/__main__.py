from loreline_lsp.server import main

main()

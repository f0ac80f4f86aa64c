from loreline_mcp.server import main

main()

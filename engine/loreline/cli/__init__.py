"""The `loreline` command line: one module per command group, dispatched by `main`."""

"""Loreline's MCP server: the project's memories as tools an assistant can call mid-session.

`loreline mcp` runs it on stdio. It depends on the engine only (never the other way round),
is scoped to one project (its working directory's, or the first root the client announces),
and answers compactly: a result's tokens are the user's money.
"""

__version__ = "0.1.0"

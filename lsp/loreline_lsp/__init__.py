"""Loreline's language server: hosts the engine for editor clients over stdio.

Handlers are thin: they validate parameters (`params`), call the domain layer (`service`,
which only talks to the engine) and shape results. `docs/protocol.md` is the contract.
"""

__version__ = "0.1.0"

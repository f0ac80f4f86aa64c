"""Loreline: durable, evidence-backed memories from AI coding-assistant sessions.

This package is the engine and the CLI. It must stay cheap to import: the hook entry
imports `loreline.home` on every assistant turn, so nothing heavy is imported here.
"""

__version__ = "0.1.0"

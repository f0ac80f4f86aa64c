"""Continuous capture installed in, or removed from, an assistant's settings
(`loreline connect|disconnect`): its hooks and Loreline's MCP server entry."""

from __future__ import annotations

from ..connect import Change, claude_code, codex, mcp
from ..assistants.codex import TRUST_HINT
from ..backends import consent

__all__ = ["TRUST_HINT", "Change", "claude_code", "codex", "consent", "mcp"]

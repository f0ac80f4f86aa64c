"""Continuous capture installed in, or removed from, an assistant's settings
(`loreline connect|disconnect`): its hooks and Loreline's MCP server entry."""

from __future__ import annotations

from ..assistants.claude_code import install as claude_code
from ..assistants.codex import TRUST_HINT
from ..assistants.codex import install as codex
from ..connect import Change, mcp
from ..backends import consent

__all__ = ["TRUST_HINT", "Change", "claude_code", "codex", "consent", "mcp"]

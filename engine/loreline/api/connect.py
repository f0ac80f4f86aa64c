"""Continuous capture installed in, or removed from, an assistant's settings
(`loreline connect|disconnect`): its hooks and Loreline's MCP server entry."""

from __future__ import annotations

from ..connect import Change
from ..backends import consent

__all__ = ["Change", "consent"]

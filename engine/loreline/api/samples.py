"""The sample sessions `loreline demo` imports, and where Claude Code would keep them."""

from __future__ import annotations

from ..samples import sample_files
from ..samples.builder import project_slug

__all__ = ["project_slug", "sample_files"]

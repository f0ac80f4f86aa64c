"""The capture worker (`loreline worker`, the language server's background loop): it drains
the hooks' spool into the store."""

from __future__ import annotations

from ..capture.worker import DrainReport, Worker

__all__ = ["DrainReport", "Worker"]

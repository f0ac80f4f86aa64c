"""The assistants Loreline knows (`loreline.assistants`): their names, folders and the options
that point at them, for front ends that build choices and options. Light: the registry loads
no reader, connector or distiller until one is used."""

from __future__ import annotations

from ..assistants import ALL, Assistant, get, names

__all__ = ["ALL", "Assistant", "get", "names"]

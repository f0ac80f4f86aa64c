"""The assistants Loreline knows (`loreline.assistants.registry`): their names, folders and the options
that point at them, for front ends that build choices and options. Light: the registry loads
no reader, connector or distiller until one is used."""

from __future__ import annotations

from ..assistants.base import Assistant
from ..assistants.registry import ALL, get, names

__all__ = ["ALL", "Assistant", "get", "names"]

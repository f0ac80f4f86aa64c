"""Loreline's hook entry for Claude Code and Codex (`loreline-hook EVENT`).

Standard library only (plus the light `loreline.home`, `loreline.capture` and
`loreline.project`): the entry runs on every assistant turn, so it never imports the store,
orjson or a model SDK. It only enqueues; the worker does the work.
"""

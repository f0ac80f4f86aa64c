"""Everything Loreline knows about each AI coding assistant, one package each (`claude_code`,
`codex`, `cursor`, `gemini`), the contract they fill in (`base`: what an assistant provides) and
the one place that lists them (`registry`: every assistant, their session formats, discovery
across them, the settings they contribute).

The layers read one way (docs/layout.md): the registry imports the adapters, the adapters
import `base` and the shared readers and helpers below them (`loreline.transcripts`,
`loreline.native`, `loreline.connect`, `loreline.distill`), and nothing below the registry
imports it. This package's own module is empty so that importing an adapter or `base` runs
nothing above them.
"""

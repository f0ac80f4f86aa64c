"""Moving memories between stores: `loreline export` (JSONL or Markdown) and `loreline import
memories` (JSONL back), lossless, idempotent, scoped by project, with paths mapped for a
project that lives elsewhere on the other machine."""

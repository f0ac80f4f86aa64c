"""The project brief: a project's active memories rewritten as one short brief, grouped by topic,
each line citing the memories it rests on.

    block     the topics, the budget's line cap and the block as SessionStart prints it
              (standard library only: the hook part, `docs/layout.md`)
    model     the nouns: a line, a version of the brief
    topics    which topic a memory belongs under, by kind, cues, files and keywords (offline)
    priority  which lines come first when the budget runs out (one function)
    rules     the deterministic brief: one line per memory, grouped and bounded
    claims    the check every model-written line passes: it cites active memories of the
              project and names nothing (identifier, path, command, number, rare word) they do not
    writer    the model brief: one forced `write_brief` call through a `distill.ToolCaller`
    rewrite   when and how a project's brief is written, kept and marked stale

The SQL is the store's (`loreline.store.briefs`); the hook reads the latest version with the
standard library (`loreline.capture.hookread.session_brief`). This package imports nothing
heavier than the store: the everyday commands that change a memory rewrite the offline brief.
"""

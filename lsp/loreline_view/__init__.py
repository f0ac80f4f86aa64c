"""The local viewer: `loreline view` serves a project's memories, their sources and the review
inbox in the browser, on loopback only, behind a per-run token."""

"""A team's shared memory: local capture stays local, chosen project memories are shared
through the team's own PostgreSQL + pgvector server.

    remote      one project across machines: the normalised git remote (or an override)
    settings    `[team]` config keys; the password in the OS keyring
    publish     what may leave this machine (approved, project scope, no secret, …)
    receive     what arrives goes through the belief pipeline, with its author
    sync        incremental push/pull by cursors, resumable and idempotent
    background  the capture worker's periodic sync
    recall      recall straight from the team store (full text + HNSW, fused like local)
    status      the state for `loreline status` and `loreline team status`

All SQL lives in the store: `store.team` (PostgreSQL) and `store.teamsync` (local tables).
"""

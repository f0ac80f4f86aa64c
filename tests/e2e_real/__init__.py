"""End to end with the real Claude Code and Codex CLIs (marker `real_clients`).

The pinned CLIs are installed by `scripts/install-real-clients` into a cache outside the
repository; every run happens in a throwaway HOME / CODEX_HOME / LORELINE_HOME beside a
loopback fake model server (`fake_models.py`), inside `unshare -n` where available.
"""

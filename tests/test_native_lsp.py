"""The language server's discovery import reads the native memory files too, and its status
carries the governor report: the real server over stdio."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import ClientServerConfig

from tests.test_native import layout


async def test_discovery_import_reads_native_files_and_status_reports_them(loreline_home: Path, tmp_path: Path) -> None:
    paths = layout(tmp_path)
    project = paths["project"]
    (project / "CLAUDE.md").write_text("- Always run the linter before committing.\n")
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
           "CLAUDE_CONFIG_DIR": str(paths["claude"]), "CODEX_HOME": str(paths["codex"])}
    client = await ClientServerConfig(server_command=[sys.executable, "-m", "loreline_lsp"], server_env=env).start()
    await client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(),
        workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name="billing")],
        initialization_options={"backgroundWorker": False},
    ))
    try:
        await _call(client, "loreline/import", {})
        page = await _call(client, "loreline/memories", {"limit": 50})
        texts = {item.text for item in page.items}
        assert "Always run the linter before committing." in texts
        assert "Merge freeze starts 2026-12-10 for the 2026-12-15 release cut; only fixes land after it." in texts
        info = await _call(client, "loreline/status", {})
        [entry] = [e for e in info.native if e.project == str(project)]
        assert entry.memoryMd.lines == 5 and entry.memoryMd.overCap is False  # camelCase, as every LSP answer
    finally:
        await client.shutdown_session()


async def _call(client: Any, method: str, params: dict[str, Any]) -> Any:
    return await client.protocol.send_request_async(method, params)

"""Session fixtures of the real-client suite: the pinned CLIs and how runs are isolated.

Outside CI a missing part skips the suite with its reason; under `CI=true` it fails, because
a skipped real-part suite would let a broken capture path through unnoticed.
"""

from __future__ import annotations

import os
import warnings

import pytest

from tests.e2e_real.harness import Clients, ClientsUnavailable, Isolation, install_clients

ON_CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def missing(reason: str) -> None:
    if ON_CI:
        pytest.fail(f"real-client suite cannot run under CI=true: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def real_clients() -> Clients:
    try:
        return install_clients()
    except ClientsUnavailable as err:
        reason = f"the pinned Claude Code / Codex CLIs could not be installed: {err}"
    missing(reason)
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def isolation() -> Isolation:
    found = Isolation.probe()
    if not found.netns:
        if ON_CI:
            pytest.fail(f"no loopback-only network namespace on CI: {found.reason}", pytrace=False)
        warnings.warn(f"real-client runs are NOT in a network namespace: {found.reason}; falling back to "
                      "proxies pointing at a closed port, so only loopback traffic can succeed", stacklevel=1)
    return found

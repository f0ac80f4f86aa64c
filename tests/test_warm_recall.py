"""Per-prompt recall by meaning: the warm recall process (`python -m loreline_warm`) and the prompt
hook that asks it (`loreline_hooks.warm`), in real processes over a real Unix socket, against a
store the real importer wrote."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from loreline import __version__, capture
from loreline.capture import warmsocket
from loreline.errors import ConfigError
from loreline.store import Store
from loreline_hooks import warm
from tests.capture_helpers import (
    hook_env,
    import_into_store,
    remembered_project,
    run_hook,
    wait_for,
    write_config,
)

pytestmark = pytest.mark.slow  # real warm recall processes (each loads the sentence model) and hooks, many process starts

PNPM = "In this repo we use pnpm, never npm."
NODE_PIN = "The fix was to pin node to 20 in .nvmrc."
#: shares no word with the pnpm memory (nor with its tool category), so only meaning finds it
BY_MEANING = "can I use yarn to install deps here?"
UNRELATED = "What is the capital of France?"
DEPLOY = "We decided to deploy the docker image to production with Fly.io from the main branch."


@pytest.fixture
def project(loreline_home: Path, tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """A project whose store holds two preferences, a decision and a fact; a prompt payload."""
    return remembered_project(tmp_path)


def _env(home: Path, **extra: str) -> dict[str, str]:
    return hook_env(home, **{"LORELINE_PROMPT_RECALL": "meaning", **extra})


def _start(home: Path, **extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "loreline_warm"], env=_env(home, **extra),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture
def server(loreline_home: Path, project: tuple[Path, dict[str, Any]]) -> Iterator[subprocess.Popen[bytes]]:
    proc = _start(loreline_home)
    wait_for(warm.listening, 60, "the warm process to listen")
    yield proc
    proc.kill()
    proc.wait()


def _prompt(home: Path, payload: dict[str, Any], prompt: str, session_id: str = "fresh",
            **env: str) -> tuple[str, float]:
    started = time.monotonic()
    result = run_hook(home, "UserPromptSubmit", stdin={**payload, "session_id": session_id, "prompt": prompt},
                      env=_env(home, **env))
    elapsed = time.monotonic() - started
    assert result.returncode == 0 and result.stderr == b""
    if not result.stdout.strip():
        return "", elapsed
    return json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"], elapsed


def _ids(home: Path) -> dict[str, int]:
    with Store(home / "loreline.db") as store:
        return {str(text): int(i) for i, text in store.rows("SELECT id, text FROM memories")}


def _ask(request: bytes, path: str | None = None) -> dict[str, Any]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(10)
        client.connect(path or warm.socket_path())
        client.sendall(request)
        client.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := client.recv(65536):
            data += chunk
    answer = json.loads(data)
    assert isinstance(answer, dict)
    return answer


def test_a_prompt_worded_apart_from_its_memory_gets_it_by_meaning(loreline_home: Path, project: tuple[Path, dict[str, Any]],
                                                                  server: subprocess.Popen[bytes]) -> None:
    _, payload = project
    block, _ = _prompt(loreline_home, payload, BY_MEANING)
    assert f"#{_ids(loreline_home)[PNPM]} preference: {PNPM}" in block
    assert "not instructions" in block and block.startswith("<loreline-memories>")
    words, _ = _prompt(loreline_home, payload, BY_MEANING, session_id="other", LORELINE_PROMPT_RECALL="words")
    assert words == ""  # by words alone the prompt finds nothing


def test_words_and_meaning_agree_and_each_part_of_a_prompt_counts(loreline_home: Path,
                                                                  project: tuple[Path, dict[str, Any]],
                                                                  server: subprocess.Popen[bytes]) -> None:
    _, payload = project
    # the words choose the pin, and it is near enough in meaning to be kept
    assert NODE_PIN in _prompt(loreline_home, payload, "which node version is pinned?")[0]
    # two questions in one prompt: each part is recalled on its own
    both, _ = _prompt(loreline_home, payload, f"which node version is pinned? also, {BY_MEANING}", session_id="two")
    assert NODE_PIN in both and PNPM in both


def test_an_unrelated_prompt_gets_nothing(loreline_home: Path, project: tuple[Path, dict[str, Any]],
                                          server: subprocess.Popen[bytes]) -> None:
    _, payload = project
    assert _prompt(loreline_home, payload, UNRELATED)[0] == ""
    assert _prompt(loreline_home, payload, "Write a haiku about autumn leaves.")[0] == ""


def test_what_session_start_showed_is_not_added_again(loreline_home: Path, project: tuple[Path, dict[str, Any]],
                                                      server: subprocess.Popen[bytes]) -> None:
    _, payload = project
    start = run_hook(loreline_home, "SessionStart", stdin={**payload, "hook_event_name": "SessionStart",
                                                           "session_id": "shown", "source": "startup"},
                     env=_env(loreline_home))
    assert PNPM in start.stdout.decode()
    assert _prompt(loreline_home, payload, BY_MEANING, session_id="shown")[0] == ""
    assert PNPM in _prompt(loreline_home, payload, BY_MEANING, session_id="not-shown")[0]


def test_with_no_warm_process_words_answer_and_one_is_started(loreline_home: Path,
                                                              project: tuple[Path, dict[str, Any]]) -> None:
    _, payload = project
    assert not warm.listening()
    block, _ = _prompt(loreline_home, payload, "which node version is pinned?")
    assert NODE_PIN in block  # answered by words at once
    wait_for(warm.listening, 60, "the started warm process")
    assert PNPM in _prompt(loreline_home, payload, BY_MEANING, session_id="later")[0]
    _stop(loreline_home)


def test_session_start_starts_the_warm_process_only_when_asked(loreline_home: Path,
                                                               project: tuple[Path, dict[str, Any]]) -> None:
    _, payload = project
    start = {**payload, "hook_event_name": "SessionStart", "source": "startup"}
    for how in ("words", "off"):
        run_hook(loreline_home, "SessionStart", stdin=start, env=_env(loreline_home, LORELINE_PROMPT_RECALL=how))
    run_hook(loreline_home, "SessionStart", stdin=start, env=_env(loreline_home, LORELINE_OFF="1"))
    time.sleep(1.0)
    assert not warm.listening() and not (loreline_home / "state" / warm.SPAWN_MARK).exists()
    assert _prompt(loreline_home, payload, "which node version is pinned?", LORELINE_PROMPT_RECALL="off")[0] == ""
    run_hook(loreline_home, "SessionStart", stdin=start, env=_env(loreline_home))
    wait_for(warm.listening, 60, "the warm process SessionStart started")
    _stop(loreline_home)


def test_a_process_that_never_answers_costs_the_prompt_only_the_deadline(loreline_home: Path,
                                                                         project: tuple[Path, dict[str, Any]]) -> None:
    _, payload = project
    path = warm.socket_path()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    mute = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    mute.bind(path)
    mute.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept_and_say_nothing() -> None:
        mute.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(mute.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept_and_say_nothing, daemon=True)
    thread.start()
    try:
        block, elapsed = _prompt(loreline_home, payload, "which node version is pinned?")
        assert NODE_PIN in block  # words answered once the warm process missed its deadline
        assert elapsed < 3  # the 0.25 s deadline and a cold start; without it: the run's 60 s timeout
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        mute.close()


def test_bad_requests_get_an_error_and_the_process_serves_on(loreline_home: Path, project: tuple[Path, dict[str, Any]],
                                                             server: subprocess.Popen[bytes]) -> None:
    folder, _ = project
    key = _project_key(folder)
    for bad in (b"not json\n", b"[1, 2]\n", b'{"project": 3, "prompt": "x"}\n',
                json.dumps({"project": key, "prompt": "x", "limit": 0}).encode() + b"\n",
                json.dumps({"project": key, "prompt": "x", "limit": True}).encode() + b"\n",
                json.dumps({"project": key, "prompt": "x", "words": ["1"]}).encode() + b"\n",
                json.dumps({"project": key, "prompt": "x", "words": list(range(51))}).encode() + b"\n",
                b'{"project": "p", "prompt": "' + b"x" * 70_000 + b'"}\n'):
        answer = _ask(bad)
        assert answer["ok"] is False and answer["error"]
    good = _ask(json.dumps({"v": 1, "project": key, "prompt": BY_MEANING, "limit": 3}).encode() + b"\n")
    assert good["ok"] is True and good["meaning"] is True
    assert [n[2] for n in good["notes"]][:1] == [PNPM] and all(0.45 <= n[3] <= 1 for n in good["notes"])
    assert server.poll() is None


def test_the_socket_is_the_owners_alone(loreline_home: Path, server: subprocess.Popen[bytes]) -> None:
    path = Path(warm.socket_path())
    assert path.parent == loreline_home / "state"
    assert stat.S_ISSOCK(path.stat().st_mode) and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_a_home_too_long_for_a_socket_address_gets_a_private_short_folder(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    home, (_, payload) = _long_home(tmp_path, monkeypatch)
    address = warm.socket_path()
    assert len(address) <= warmsocket.MAX_ADDRESS and not address.startswith(str(home))
    proc = _start(home)
    try:
        wait_for(warm.listening, 60, "the warm process")
        assert stat.S_IMODE(os.stat(os.path.dirname(address)).st_mode) == 0o700
        block, _ = _prompt(home, payload, BY_MEANING)
        assert PNPM in block
    finally:
        proc.kill()
        proc.wait()


def test_one_process_per_home_and_it_leaves_when_idle(loreline_home: Path, project: tuple[Path, dict[str, Any]]) -> None:
    first = _start(loreline_home, LORELINE_WARM_IDLE_SECONDS="3")
    wait_for(warm.listening, 60, "the first warm process")
    second = _start(loreline_home, LORELINE_WARM_IDLE_SECONDS="3")
    assert second.wait(timeout=60) == 0  # the lock is taken: it leaves at once
    assert first.poll() is None
    assert first.wait(timeout=60) == 0  # three idle seconds later
    assert not Path(warm.socket_path()).exists() and not warm.listening()


def test_a_stale_socket_file_is_replaced(loreline_home: Path, project: tuple[Path, dict[str, Any]]) -> None:
    _, payload = project
    path = warm.socket_path()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(path)
    dead.close()  # the file stays, nobody listens: a process that was killed
    block, _ = _prompt(loreline_home, payload, "which node version is pinned?")
    assert NODE_PIN in block
    wait_for(warm.listening, 60, "a new warm process on the stale address")
    _stop(loreline_home)


def test_the_process_leaves_when_its_socket_is_removed(loreline_home: Path, project: tuple[Path, dict[str, Any]]) -> None:
    proc = _start(loreline_home)
    wait_for(warm.listening, 60, "the warm process")
    os.unlink(warm.socket_path())
    assert proc.wait(timeout=30) == 0


def test_a_store_of_spelling_vectors_is_answered_by_words(loreline_home: Path, project: tuple[Path, dict[str, Any]],
                                                          tmp_path: Path) -> None:
    write_config(loreline_home, '[embed]\nmodel = "hashing"\n')
    proc = _start(loreline_home)
    try:
        wait_for(warm.listening, 60, "the warm process")
        folder, payload = project
        answer = _ask(json.dumps({"project": _project_key(folder), "prompt": BY_MEANING}).encode() + b"\n")
        assert answer == {"ok": True, "meaning": False, "notes": []}
        assert NODE_PIN in _prompt(loreline_home, payload, "which node version is pinned?")[0]
    finally:
        proc.kill()
        proc.wait()


def test_prompt_recall_setting_and_its_per_session_override(loreline_home: Path) -> None:
    settings = capture.Settings()
    assert capture.prompt_recall(settings, {}) == "meaning"
    assert capture.prompt_recall(settings, {"LORELINE_PROMPT_RECALL": " Words "}) == "words"
    assert capture.prompt_recall(settings, {"LORELINE_PROMPT_RECALL": "sideways"}) == "meaning"
    path = write_config(loreline_home, '[capture]\nprompt_recall = "off"\nwarm_minutes = 5\n')
    loaded = capture.load_settings(path)
    assert (loaded.prompt_recall, loaded.warm_minutes) == ("off", 5)
    write_config(loreline_home, '[capture]\nprompt_recall = "always"\n')
    with pytest.raises(ConfigError, match="capture.prompt_recall must be one of meaning, words, off"):
        capture.load_settings(path)


def _long_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, tuple[Path, dict[str, Any]]]:
    """A Loreline home whose state dir is too long a path for a socket address, with memories."""
    home = tmp_path / ("deep-" * 20) / "loreline-home"
    monkeypatch.setenv("LORELINE_HOME", str(home))
    return home, remembered_project(tmp_path)


def _project_key(folder: Path) -> str:
    from loreline.project import project_key

    return project_key(str(folder))


def _stop(home: Path) -> None:
    """End the warm process a hook started (it would leave by itself when idle)."""
    import psutil

    for proc in psutil.process_iter(["cmdline", "environ"]):
        try:
            if "loreline_warm" in (proc.info["cmdline"] or []) and \
                    (proc.info["environ"] or {}).get("LORELINE_HOME") == str(home):
                proc.kill()
        except psutil.Error:
            continue
    wait_for(lambda: not warm.listening(), 30, "the warm process to end")


def test_a_prompt_is_read_whole_and_by_its_parts() -> None:
    from loreline.prompt_notes import PARTS, prompt_parts

    assert prompt_parts("Which pnpm script starts the billing job, and how does it take its advisory lock?") == \
        ["Which pnpm script starts the billing job", "and how does it take its advisory lock?"]
    assert prompt_parts("Fix the flaky test in the billing module.") == []  # one sentence: the whole is enough
    assert prompt_parts("ok. Now run the whole suite again.\nThen tell me.") == \
        ["Now run the whole suite again.", "Then tell me."]  # "ok." is too short to be a part
    many = " ".join(f"Sentence number {n} is here." for n in range(10))
    assert len(prompt_parts(many)) == PARTS


def test_words_are_only_trusted_for_the_project_s_active_memories(loreline_home: Path,
                                                                  project: tuple[Path, dict[str, Any]]) -> None:
    from loreline.prompt_notes import for_prompt

    folder, _ = project
    ids = _ids(loreline_home)
    with Store() as store:
        with store.write() as db:
            db.execute("UPDATE memories SET status = 'forgotten' WHERE id = ?", (ids[NODE_PIN],))
        found = for_prompt(store, "which node version is pinned?", _project_key(folder), words=list(ids.values()))
        assert found is not None and NODE_PIN not in [memory.text for memory, _ in found]
        elsewhere = for_prompt(store, BY_MEANING, "/some/other/project", words=list(ids.values()))
        assert elsewhere == []


def _request(folder: Path, prompt: str, **extra: Any) -> bytes:
    return json.dumps({"v": 1, "project": _project_key(folder), "prompt": prompt, **extra}).encode() + b"\n"


def test_the_process_serves_on_after_requests_that_break_things(loreline_home: Path,
                                                                project: tuple[Path, dict[str, Any]],
                                                                server: subprocess.Popen[bytes]) -> None:
    folder, _ = project
    assert _ask(b"[" * 60_000 + b"\n")["ok"] is False  # nesting deep enough to break a JSON parser
    assert _ask(_request(folder, "x\udc80y"))["ok"] in (True, False)  # a lone surrogate in the prompt
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as slow:  # a client that trickles
        slow.connect(warm.socket_path())
        started, cut_off = time.monotonic(), False
        while time.monotonic() - started < 8 and not cut_off:
            try:
                slow.sendall(b" ")
            except OSError:
                cut_off = True
            time.sleep(0.5)
        assert cut_off  # the whole request must arrive within the read deadline, not byte by byte
    assert _ask(_request(folder, BY_MEANING))["notes"][0][2] == PNPM
    assert server.poll() is None


def test_memories_added_and_forgotten_while_it_runs_are_seen(loreline_home: Path, project: tuple[Path, dict[str, Any]],
                                                             server: subprocess.Popen[bytes], tmp_path: Path) -> None:
    from loreline.samples.builder import ClaudeSession

    folder, _ = project
    assert _ask(_request(folder, "how do we ship the docker image to production?"))["notes"] == []
    later = ClaudeSession(cwd=str(folder))
    later.user(DEPLOY)
    later.assistant("Noted.")
    import_into_store(later.write(tmp_path / "later" / f"{later.session_id}.jsonl"))
    assert DEPLOY in _ids(loreline_home)
    notes = _ask(_request(folder, "how do we ship the docker image to production?"))["notes"]
    assert [n[2] for n in notes][:1] == [DEPLOY]
    with Store() as store, store.write() as db:
        db.execute("UPDATE memories SET status = 'forgotten' WHERE id = ?", (notes[0][0],))
    assert _ask(_request(folder, "how do we ship the docker image to production?"))["notes"] == []


def test_memories_the_session_was_shown_are_left_out_before_the_few_are_picked(
        loreline_home: Path, project: tuple[Path, dict[str, Any]], server: subprocess.Popen[bytes]) -> None:
    folder, _ = project
    ids = _ids(loreline_home)
    both = f"which node version is pinned? also, {BY_MEANING}"
    words = [ids[NODE_PIN], ids[PNPM]]
    first = _ask(_request(folder, both, limit=1, words=words))["notes"]
    assert len(first) == 1
    rest = _ask(_request(folder, both, limit=1, words=words, shown=[first[0][0]]))["notes"]
    assert len(rest) == 1 and rest[0][0] != first[0][0] and rest[0][0] in words


def test_a_hook_of_another_version_sends_the_process_away(loreline_home: Path, project: tuple[Path, dict[str, Any]],
                                                          server: subprocess.Popen[bytes]) -> None:
    folder, _ = project
    answer = _ask(_request(folder, BY_MEANING, loreline="0.0.0-older"))
    assert answer["ok"] is False and "another Loreline version" in answer["error"]
    assert server.wait(timeout=30) == 0 and not warm.listening()


def test_a_probe_does_not_keep_it_alive_and_it_leaves_without_its_store(loreline_home: Path,
                                                                        project: tuple[Path, dict[str, Any]]) -> None:
    proc = _start(loreline_home, LORELINE_WARM_IDLE_SECONDS="3")
    wait_for(warm.listening, 60, "the warm process")
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        warm.listening()  # connects and asks nothing
        time.sleep(0.5)
    assert proc.returncode == 0  # idle despite the probes
    again = _start(loreline_home)
    wait_for(warm.listening, 60, "a second warm process")
    for name in os.listdir(loreline_home):
        if name.startswith("loreline.db"):
            os.unlink(loreline_home / name)
    assert again.wait(timeout=30) == 0


def test_the_hook_refuses_a_socket_in_a_folder_others_could_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, (folder, _) = _long_home(tmp_path, monkeypatch)
    address = warm.socket_path()
    os.makedirs(os.path.dirname(address), exist_ok=True)
    os.chmod(os.path.dirname(address), 0o777)  # as if someone else had made it, open to all
    impostor = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    impostor.bind(address)
    impostor.listen(4)
    try:
        assert not warm.listening()
        rows, reachable = warm.ask(_project_key(folder), BY_MEANING, 3)
        assert rows is None and not reachable
        proc = _start(home)
        assert proc.wait(timeout=60) == 1  # the warm process will not serve from there either
    finally:
        impostor.close()
        os.chmod(os.path.dirname(address), 0o700)


def test_status_says_how_prompts_are_answered(loreline_home: Path, project: tuple[Path, dict[str, Any]]) -> None:
    from tests.conftest import loreline_exe

    def status(**env: str) -> tuple[str, dict[str, Any]]:
        text = subprocess.run([loreline_exe(), "status"], capture_output=True, text=True, env=_env(loreline_home, **env),
                              timeout=120, check=True).stdout
        data = json.loads(subprocess.run([loreline_exe(), "status", "--json"], capture_output=True, text=True,
                                         env=_env(loreline_home, **env), timeout=120, check=True).stdout)
        return text, data["capture"]["prompt_recall"]

    text, state = status()
    assert state == {"mode": "meaning", "warm": False} and "by words until then" in text
    proc = _start(loreline_home)
    try:
        wait_for(warm.listening, 60, "the warm process")
        text, state = status()
        assert state == {"mode": "meaning", "warm": True} and "the warm recall process is running" in text
        text, state = status(LORELINE_PROMPT_RECALL="words")
        assert state == {"mode": "words", "warm": False} and "by the prompt's words" in text
    finally:
        proc.kill()
        proc.wait()


def test_a_memory_the_session_loads_from_claude_md_is_not_added_again(loreline_home: Path, tmp_path: Path,
                                                                       project: tuple[Path, dict[str, Any]],
                                                                       server: subprocess.Popen[bytes]) -> None:
    from tests.conftest import loreline_exe

    folder, payload = project
    assert PNPM in _prompt(loreline_home, payload, BY_MEANING)[0]
    (folder / "CLAUDE.md").write_text(f"# Shop\n\n- {PNPM}\n", encoding="utf-8")
    (tmp_path / "claude-dir").mkdir()
    subprocess.run([loreline_exe(), "import", "native", "--claude-dir", str(tmp_path / "claude-dir"),
                    "--codex-home", str(tmp_path / "codex-home")], cwd=folder, env=_env(loreline_home),
                   capture_output=True, timeout=120, check=True)
    assert _prompt(loreline_home, payload, BY_MEANING, session_id="after-native")[0] == ""


CLI_RECALL = """
import json, sys
from loreline.cli.main import main
code = main(["recall", *sys.argv[2:], "--json"])
with open(sys.argv[1], "w") as out:
    json.dump({"code": code, "numpy": "numpy" in sys.modules}, out)
"""


def _cli_recall(home: Path, tmp_path: Path, *args: str) -> tuple[list[dict[str, Any]], bool]:
    """`loreline recall ARGS --json` in a fresh interpreter: the hits, and whether it loaded numpy
    (the sentence model) itself."""
    report = tmp_path / "recall.json"
    done = subprocess.run([sys.executable, "-c", CLI_RECALL, str(report), *args], capture_output=True, timeout=120,
                          env=_env(home))
    assert done.returncode == 0, done.stderr.decode()
    found = json.loads(report.read_text(encoding="utf-8"))
    assert found["code"] == 0
    return json.loads(done.stdout), bool(found["numpy"])


def test_cli_recall_asks_the_warm_process_and_gives_what_recalling_here_gives(
        loreline_home: Path, tmp_path: Path, project: tuple[Path, dict[str, Any]],
        server: subprocess.Popen[bytes]) -> None:
    folder, _ = project
    questions = [(BY_MEANING, "--limit", "3"), ("which database do we keep?", "--include-inactive")]
    by_warm = [_cli_recall(loreline_home, tmp_path, q, "--project", str(folder), *rest) for q, *rest in questions]
    assert not any(loaded for _, loaded in by_warm)  # the warm process answered: no model loaded here
    pnpm, database = (hits for hits, _ in by_warm)
    assert pnpm[0]["memory"]["text"] == PNPM and pnpm[0]["sources"]  # with provenance
    assert any("SQLite" in hit["memory"]["text"] for hit in database)
    server.kill()
    server.wait()
    wait_for(lambda: not warm.listening(), 30, "the warm process to be gone")
    here = [_cli_recall(loreline_home, tmp_path, q, "--project", str(folder), *rest) for q, *rest in questions]
    assert all(loaded for _, loaded in here)  # no warm process: recalled in this process, with the model
    assert [hits for hits, _ in here] == [pnpm, database]  # the same memories, scores and ranks either way


def test_a_bad_recall_request_is_answered_and_the_process_serves_on(loreline_home: Path,
                                                                     server: subprocess.Popen[bytes]) -> None:
    base = {"v": 1, "loreline": __version__, "op": "recall", "project": "/p", "query": "pnpm"}
    for bad, says in (({"limit": 0}, "limit"), ({"limit": True}, "limit"), ({"query": 3}, "strings"),
                      ({"include_inactive": "yes"}, "include_inactive")):
        answer = _ask(json.dumps({**base, **bad}).encode() + b"\n")
        assert answer["ok"] is False and says in answer["error"]
    assert _ask(json.dumps({**base, "limit": 2}).encode() + b"\n") == {"ok": True, "hits": []}  # no such project


def test_the_process_runs_the_words_path_itself_as_the_hook_would(loreline_home: Path,
                                                                  project: tuple[Path, dict[str, Any]],
                                                                  server: subprocess.Popen[bytes]) -> None:
    """`"words": null`: the process chooses by words with the hook's own code, so the hook need
    not; the notes are those it gives when the hook sends the words' choice."""
    from loreline.capture.hookread import chosen_by_words

    folder, _ = project
    key = _project_key(folder)
    for prompt in ("which node version is pinned?", f"which node version is pinned? also, {BY_MEANING}", UNRELATED):
        rows, covered = chosen_by_words(str(loreline_home / "loreline.db"), key, prompt)
        given = _ask(_request(folder, prompt, limit=3, words=[r[0] for r in rows], shown=sorted(covered)))
        itself = _ask(_request(folder, prompt, limit=3, words=None, shown=[]))
        assert given["ok"] and itself["ok"] and itself["notes"] == given["notes"], prompt
    pinned = _ask(_request(folder, "which node version is pinned?", limit=3, words=None, shown=[]))
    assert NODE_PIN in [note[2] for note in pinned["notes"]]
    assert _ask(_request(folder, "x", limit=3, words=None, shown="all"))["ok"] is False  # still checked

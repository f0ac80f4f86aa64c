"""The external redaction corpus (scanners' public test data) and how it is scored: the split
is the fixed hash it claims, and the held-out half keeps its recall and false-positive rate."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "tests" / "corpus" / "redaction" / "external" / "samples.jsonl"


def test_every_sample_sits_in_the_split_its_hash_gives() -> None:
    rows = [json.loads(line) for line in SAMPLES.read_text(encoding="utf-8").splitlines() if line]
    assert len(rows) > 1000
    assert {r["source"] for r in rows} == {"gitleaks", "detect-secrets", "trufflehog"}
    for row in rows:
        parity = hashlib.sha256(("loreline-external-2026" + row["text"]).encode()).digest()[0] % 2
        assert row["split"] == ("test" if parity else "tune")
        assert row["label"] in ("pos", "neg")
        assert row["secret"] is None or row["secret"] in row["text"]


def test_the_eval_reports_the_held_out_half_apart() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "eval_redaction.py"), "--json",
                             "--external", "both"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    report = json.loads(result.stdout)
    test, tune = report["external"]["test"], report["external"]["tune"]
    assert test["positives"] > 400 and test["negatives"] > 150 and tune["positives"] > 400
    assert test["recall"] >= 0.70 and test["fp_rate"] <= 0.20  # measured 0.714 / 0.161 when written
    assert report["recall"] == 1.0 and report["false_positives"] == 0 and report["hidden_failed"] == 0

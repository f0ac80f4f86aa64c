"""Totals and tables of the say-once replay (`sayonce`): per half, per judge.

`saved`: a memory shown before the repeat carried it; `carried`: a memory active in the store
when the session began carried it. Judges: `keyword` (the label's key words), `claim` (every fact
of the label's claim in one memory), `model` (a model judge, when one was given).
"""

from __future__ import annotations

from typing import Any

from .sayonce import JUDGES, ProjectResult


def totals(results: list[ProjectResult]) -> dict[str, Any]:
    repeats = [r for p in results for r in p.repeats]
    starts = sum(p.starts for p in results)
    sessions = sum(p.sessions for p in results)
    out: dict[str, Any] = {
        "projects": len(results), "sessions": sessions, "repeats": len(repeats),
        "corrections": sum(1 for r in repeats if r["correction"]),
        "starts": starts, "start_shown": sum(p.start_shown for p in results),
        "start_chars": sum(p.start_chars for p in results),
        "start_noise": sum(p.start_noise for p in results),
        "prompts": sum(p.prompts for p in results), "prompt_shown": sum(p.prompt_shown for p in results),
        "prompt_chars": sum(p.prompt_chars for p in results),
        "prompt_noise": sum(p.prompt_noise for p in results),
        "model_calls": sum(p.model_calls for p in results),
        "input_tokens": sum(p.input_tokens for p in results),
        "output_tokens": sum(p.output_tokens for p in results),
    }
    for judge in JUDGES:
        if not all(judge in p.saved for p in results) or not results:
            continue
        out[f"saved_{judge}"] = sum(s for p in results for s in p.saved[judge])
        out[f"carried_{judge}"] = sum(s for p in results for s in p.carried[judge])
        out[f"saved_corrections_{judge}"] = sum(
            s for p in results for r, s in zip(p.repeats, p.saved[judge]) if r["correction"])
    # the keys earlier reports used: the key-word judge
    out["saved"] = out.get("saved_keyword", 0)
    out["saved_corrections"] = out.get("saved_corrections_keyword", 0)
    return out


def per(total: dict[str, Any], what: str, over: str) -> float:
    return float(total[what]) / total[over] if total[over] else 0.0


def line(half: str, t: dict[str, Any]) -> str:
    judged = ", ".join(f"{t[f'saved_{j}']:.0f}/{t['repeats']:.0f} {_NAMES[j]}" for j in JUDGES if f"saved_{j}" in t)
    held = ", ".join(f"{t[f'carried_{j}']:.0f} {_NAMES[j]}" for j in JUDGES if f"carried_{j}" in t)
    return (f"{half}: saved {t['saved']:.0f}/{t['repeats']:.0f} repeats, {t['saved_corrections']:.0f}/"
            f"{t['corrections']:.0f} corrections ({t['projects']:.0f} projects, {t['sessions']:.0f} sessions); "
            f"judged: {judged}; carried in the store: {held}; "
            f"{per(t, 'start_shown', 'starts'):.1f} lines ({per(t, 'start_chars', 'starts') / 4:.0f} tokens) per "
            f"session start, noise {per(t, 'start_noise', 'starts'):.1f}; "
            f"{per(t, 'prompt_shown', 'prompts'):.2f} lines per prompt, noise {per(t, 'prompt_noise', 'prompts'):.2f}; "
            f"model: {per(t, 'model_calls', 'sessions'):.1f} calls, {per(t, 'input_tokens', 'sessions'):.0f} input tokens "
            f"per session")


_NAMES = {"keyword": "by key words", "claim": "at the claim", "model": "by the model judge"}


def details(results: list[ProjectResult], judge: str = "claim") -> list[str]:
    rows = []
    for p in results:
        saved = p.saved.get(judge, [])
        carried = p.carried.get(judge, [])
        for repeat, was_saved, was_held in zip(p.repeats, saved, carried):
            mark = "saved" if was_saved else ("HELD" if was_held else "MISSED")
            rows.append(f"  {mark:6} {p.name}: {repeat['later']} ({repeat.get('claim') or repeat.get('note', '')})")
    return rows


def history_report(results: ProjectResult, verbose: bool = True) -> list[str]:
    out = []
    for rel, seen in results.shown.items():
        out.append(f"{rel}: {len(seen.start)} at session start, "
                   f"{sum(len(m) for _, m in seen.prompts)} for {len(seen.prompts)} prompts")
        if verbose:
            out += [f"    start: {m[:160]}" for m in seen.start]
            out += [f"    line {at}: {m[:160]}" for at, ms in seen.prompts for m in ms]
    return out


def markdown(rows: list[tuple[str, str, dict[str, Any]]], written_by: dict[str, str] | None = None) -> str:
    head = ("Say it once: on real multi-session histories (`tests/eval/sayonce/`), how many of the times a "
            "person repeated something an earlier session had settled would Loreline have spared them? A "
            "repeat is **saved** when one memory the real hooks showed before the person said it again (the "
            "session's SessionStart block, or an earlier prompt's memories) carries it, and **carried** when one "
            "memory active in the store when the session began carries it. *At the claim*: the memory holds "
            "every required fact of the label's claim; *key words*: it holds the label's key words (looser, for "
            "comparison); *model judge*: a model shown the claim and the notes names one that states it. "
            "Sessions are imported one by one through the api as they end. Lines and tokens (characters / 4) "
            "shown per session start; model tokens per session from the imports' usage (estimated from what "
            "was sent for recorded answers). Computed by `scripts/eval say-once`; for your own history: "
            "`scripts/eval say-once --history DIR [--labels FILE]`.\n\n"
            "| backend | half | saved at the claim | saved by key words | saved, model judge | carried in the store "
            "(claim) | lines / tokens per session start | model input tokens per session |\n"
            "| --- | --- | --- | --- | --- | --- | --- | --- |\n")
    body = ""
    for backend, half, t in rows:
        model = f"{t['saved_model']:.0f} / {t['repeats']:.0f}" if "saved_model" in t else "—"
        tokens = f"{per(t, 'input_tokens', 'sessions'):.0f}" if t["model_calls"] else "—"
        body += (f"| {backend} | {half} ({t['projects']:.0f} projects, {t['sessions']:.0f} sessions) | "
                 f"**{t['saved_claim']:.0f} / {t['repeats']:.0f}** | {t['saved_keyword']:.0f} / {t['repeats']:.0f} | "
                 f"{model} | {t['carried_claim']:.0f} / {t['repeats']:.0f} | "
                 f"{per(t, 'start_shown', 'starts'):.1f} / {per(t, 'start_chars', 'starts') / 4:.0f} | {tokens} |\n")
    notes = "".join(f"\n- `{name}`: {who}" for name, who in (written_by or {}).items())
    return head + body + (f"\nWho wrote the recorded answers:{notes}\n" if notes else "")

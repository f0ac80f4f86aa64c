"""Plain-text rendering of memories, provenance and import reports for a terminal."""

from __future__ import annotations

import textwrap
from collections import Counter

from ..privacy.display import printable
from .common import plural, short_date

TYPE_CHECKING = False  # typing and pathlib are left to the commands that run: `--help` imports neither
if TYPE_CHECKING:
    from ..models import ImportReport, Memory, Provenance, RecallHit
    from ..api.sources import SyncReport

WIDTH = 100


def memory_line(memory: Memory, mark: str = "") -> str:
    mark = mark or ("*" if memory.pinned else " ")
    status = "" if memory.status == "active" else f" ({memory.status})"
    stale = f"  [may be stale: {printable(memory.stale)}]" if memory.stale else ""
    asked = "  [asked for]" if memory.asked else ""
    return (f"{mark}#{memory.id:<5} {printable(memory.kind):<10} {printable(short_date(memory.last_seen))}  "
            f"{printable(memory.text)}{printable(status)}{asked}{stale}")


def memory_list(memories: list[Memory], total: int, where: str) -> str:
    if not memories:
        return f"No memories for {printable(where)}."
    head = f"{plural(total, 'memory')} for {printable(where)}" + (f" (showing {len(memories)})" if total > len(memories) else "")
    return "\n".join([head, *(memory_line(m) for m in memories)])


def waiting_list(memories: list[Memory], total: int) -> str:
    """Held memories (suggested by the offline rules, or held for review): never used until approved."""
    head = (f"\n{total} more {'memory waits' if total == 1 else 'memories wait'} for your review, unused until you approve "
            "(`loreline review`, `loreline approve ID`):")
    return "\n".join([head, *(memory_line(m, mark="?") for m in memories)])


def source_lines(prov: Provenance, indent: str = "  ") -> list[str]:
    span = f"{prov.line_start}" if prov.line_start == prov.line_end else f"{prov.line_start}-{prov.line_end}"
    head = (f"{indent}{printable(prov.tool)} · session {printable(prov.session_label)} · "
            f"{printable(short_date(prov.observed_at))}"
            f" · lines {span}")
    body = textwrap.fill(printable(prov.excerpt), WIDTH, initial_indent=indent + "  > ", subsequent_indent=indent + "    ")
    where = f"shared by {prov.session_path[5:]}" if prov.session_path.startswith("team:") else prov.session_path
    return [head, f"{indent}  {printable(where)}", body]


def memory_detail(memory: Memory) -> str:
    out = [
        f"#{memory.id} {printable(memory.kind)} · {printable(memory.status)} · v{memory.version}"
        + (" · pinned" if memory.pinned else "") + (" · asked for: the person asked to keep it" if memory.asked else ""),
        textwrap.fill(printable(memory.text), WIDTH, initial_indent="  ", subsequent_indent="  "),
        f"  project {printable(memory.project)}",
        printable(f"  observed {memory.observed_at or 'unknown'} · recorded {memory.created_at} · by {memory.extractor}"),
    ]
    if memory.valid_until:
        out.append(printable(f"  valid until {memory.valid_until}"))
    out.append(printable(f"  last seen {memory.last_seen}" + (f" · confirmed {memory.confirmed_at} by {memory.confirmed_by}"
                                                              if memory.confirmed_at else " · never confirmed")))
    if memory.stale:
        out.append(f"  may be stale: {printable(memory.stale)} (`loreline confirm {memory.id}` if it still holds)")
    if memory.hold_reason:
        out.append(f"  held for review: {printable(memory.hold_reason)} (`loreline approve|reject {memory.id}`)")
    if memory.files:
        out.append("  files: " + ", ".join(printable(f) for f in memory.files))
    if memory.cues:
        out.append("  found by: " + "; ".join(printable(c) for c in memory.cues.splitlines()))
    out.append(f"  {plural(len(memory.provenance), 'source')}:")
    for prov in memory.provenance:
        out.extend(source_lines(prov, "    "))
    return "\n".join(out)


def recall_hits(query: str, hits: list[RecallHit]) -> str:
    if not hits:
        return f"Nothing recalled for {printable(repr(query))}."
    out = [f"{plural(len(hits), 'memory')} recalled for {printable(repr(query))}:"]
    for hit in hits:
        team = sorted({p.session_path[5:] for p in hit.memory.provenance if p.session_path.startswith("team:")})
        out.append(memory_line(hit.memory) + f"   [{hit.score:.3f}]" + (f"  (team: {', '.join(team)})" if team else ""))
        if hit.memory.provenance:
            out.extend(source_lines(hit.memory.provenance[0], "        "))
    return "\n".join(out)


def import_report(report: ImportReport) -> str:
    verb = "Would import" if report.dry_run else "Imported"
    out = [
        f"{verb} {plural(report.imported, 'session')} with the {report.backend} backend; "
        f"{report.unchanged} unchanged, {len(report.left_out)} left out, {len(report.failed)} failed"
        + (f", {len(report.deferred)} deferred" if report.deferred else "") + ".",
        f"  turns kept {report.turns} · lines skipped {report.lines_skipped} · chunks {report.chunks}"
        + (f" ({report.chunks_replayed} already done)" if report.chunks_replayed else ""),
        f"  candidates {report.candidates} · rejected {sum(report.rejected.values())}"
        + (" (" + ", ".join(f"{k} {v}" for k, v in sorted(report.rejected.items())) + ")" if report.rejected else "")
        + ("" if report.dry_run else f" · added {report.added} · merged {report.merged}")
        + (f" · versioned {report.versioned}" if report.versioned else "")
        + (f" · conflicts {report.conflicts}" if report.conflicts else "")
        + (f" · forgotten, not re-added {report.forgotten_skipped}" if report.forgotten_skipped else ""),
    ]
    if report.backend_reason:
        out.insert(1, f"  backend {report.backend_reason}")
    out.extend(_grouped("left out", report.left_out))
    out.extend(_grouped("failed", report.failed))
    out.extend(_grouped("deferred to the next run", report.deferred))
    return "\n".join(out)


def _grouped(title: str, items: list[tuple[str, str]]) -> list[str]:
    if not items:
        return []
    out = [f"  {title}:"]
    by_reason = Counter(reason for _, reason in items)
    for reason, count in by_reason.most_common():
        example = next(path for path, r in items if r == reason)
        from ..api.transcripts import stored

        out.append(f"    {count} × {printable(stored(reason))}  (e.g. {printable(stored(example))})")
    return out


def native_line(report: SyncReport) -> str:
    """One line about a native-memory import."""
    return (f"native memory: {plural(report.files, 'file')} read, {report.unchanged} unchanged, "
            f"{report.deleted} deleted; {plural(report.added, 'memory')} added, {report.joined} joined an "
            f"existing memory as a source, {report.versioned} versioned, {plural(report.conflicts, 'conflict')}; "
            f"{report.ended} ended (their file no longer says them), {report.dropped_sources} sources dropped")


def held_list(memories: list[Memory], total: int, where: str) -> str:
    """Held memories, each with the reason it waits for a person's review."""
    if not memories:
        return f"No memories held for review in {printable(where)}."
    out = [f"{plural(total, 'memory')} held for review in {printable(where)} "
           "(`loreline approve ID` makes one active, `loreline reject ID` forgets it):"]
    for memory in memories:
        out.append(memory_line(memory))
        out.append(f"        reason: {printable(memory.hold_reason or 'unknown')}")
    return "\n".join(out)

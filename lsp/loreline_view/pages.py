"""The viewer's pages for reading: projects, a project's memories (filters and recall as you
type), and one memory with its versions, sources and the transcript around each source."""

from __future__ import annotations

from loreline.api import Loreline, browse
from loreline.models import ACTION, ACTION_LABELS, KINDS, Memory, RecallHit, Turn

from .html import badge, button_form, h, memory_badges, memory_list, page, short, url

STATUSES = ("active", "held", "superseded", "forgotten", "any")
#: sources whose transcript is shown inline on a memory's page (the rest are linked)
INLINE_SOURCES = 6


def projects(lore: Loreline) -> str:
    found = browse.projects(lore)
    if not found:
        return page("Projects", '<p class="muted">No memories yet. Run <code>loreline import sessions</code>.</p>',
                    active="/")
    rows = "".join(
        f'<tr><td><a href="{url("/project", key=p.project)}">{h(p.project)}</a></td><td>{p.counts.active}</td>'
        f'<td>{p.counts.held}</td><td>{p.stale}</td><td>{p.counts.pending_conflicts}</td>'
        f'<td>{h(short(p.last_learned))}</td></tr>' for p in found)
    return page("Projects", '<table class="grid"><thead><tr><th>Project</th><th>Active</th><th>Held</th>'
                '<th>May be stale</th><th>Conflicts</th><th>Last learned</th></tr></thead>'
                f"<tbody>{rows}</tbody></table>", active="/")


def project(lore: Loreline, key: str, query: dict[str, str], limit: int = 200) -> str:
    kind = query.get("kind") or None
    status = query.get("status") or "active"
    flags = {"pinned": _flag(query.get("pinned")), "stale": _flag(query.get("stale"))}
    listing = lore.memories(key, kind=kind if kind in KINDS else None,
                            status=None if status == "any" else status, stale=flags["stale"],
                            pinned=flags["pinned"], extractor=query.get("author") or None,
                            tool=query.get("tool") or None, limit=limit)
    options = browse.filter_options(lore, key)
    filters = (
        f'<form method="get" action="/project" class="filters"><input type="hidden" name="key" value="{h(key)}">'
        + _select("kind", ("", *KINDS), kind or "", "any kind")
        + _select("status", STATUSES, status, None)
        + _select("pinned", ("", "yes", "no"), query.get("pinned", ""), "pinned or not")
        + _select("stale", ("", "yes", "no"), query.get("stale", ""), "stale or not")
        + _select("author", ("", *options.authors), query.get("author", ""), "any author")
        + _select("tool", ("", *options.tools), query.get("tool", ""), "any assistant")
        + '<button type="submit">Filter</button></form>')
    search = (f'<input type="search" id="recall" placeholder="Ask this project…" autocomplete="off" '
              f'data-project="{h(key)}" aria-label="Recall as you type">'
              '<div id="recall-hits" aria-live="polite"></div>')
    more = f'<p class="muted">{listing.total} in all; the first {limit} shown.</p>' if listing.total > limit else \
        f'<p class="muted">{listing.total} memories.</p>'
    brief = f'<p><a href="{url("/brief", key=key)}">The brief each session starts with</a></p>'
    return page(key, brief + search + filters + more + memory_list(listing.items), active="/")


def recall_fragment(lore: Loreline, key: str, text: str) -> str:
    if not text.strip():
        return ""
    hits = lore.recall(key, text, limit=8)
    if not hits:
        return '<p class="muted">No memory answers that.</p>'
    return '<ul class="memories hits">' + "".join(_hit(hit) for hit in hits) + "</ul>"


def _hit(hit: RecallHit) -> str:
    m = hit.memory
    return (f'<li class="memory"><a href="/m/{m.id}">#{m.id}</a> {memory_badges(m)} '
            f'<span class="text">{h(m.text)}</span> <span class="muted">score {hit.score:.3f}</span></li>')


def memory(lore: Loreline, memory_id: int, *, read_only: bool, notice: str = "") -> str:
    m = lore.memory(memory_id)
    versions = lore.history(memory_id)
    body = (f'<p class="lead">{memory_badges(m)}</p><blockquote class="memory-text">{h(m.text)}</blockquote>'
            f'<p class="muted">Project <a href="{url("/project", key=m.project)}">{h(m.project)}</a> · '
            f'made by {h(m.extractor)} · {h(short(m.created_at))}'
            + (f" · confirmed by {h(m.confirmed_by)} {h(short(m.confirmed_at))}" if m.confirmed_by else "") + "</p>")
    if m.hold_reason:
        body += f'<p class="notice">Held for review: {h(m.hold_reason)}</p>'
    if m.stale:
        body += f'<p class="notice">May be stale: {h(m.stale)}</p>'
    if not read_only and m.status in ("active", "held"):
        body += _actions(m)
    body += "<h2>Versions</h2>" + _timeline(versions, m.id)
    body += "<h2>Files it rests on</h2>" + (
        "<ul>" + "".join(f"<li><code>{h(f)}</code></li>" for f in m.files) + "</ul>" if m.files
        else '<p class="muted">None recorded.</p>')
    body += f"<h2>Sources ({len(m.provenance)})</h2>" + "".join(
        _source(m, n, inline=n < INLINE_SOURCES) for n in range(len(m.provenance)))
    return page(f"Memory #{m.id}", body, notice=notice, read_only=read_only)


def _actions(m: Memory) -> str:
    edit = (f'<form method="post" action="/m/{m.id}/edit" class="edit"><label>New wording '
            f'<textarea name="text" rows="3" required>{h(m.text)}</textarea></label>'
            '<button type="submit">Save as a new version</button></form>')
    if m.status == "held":
        return (f'<div class="actions">{button_form(f"/m/{m.id}/approve", "Approve")}'
                f'{button_form(f"/m/{m.id}/reject", "Reject", danger=True)}</div>'
                f'<form method="post" action="/m/{m.id}/approve" class="edit"><label>Approve in your words '
                f'<textarea name="text" rows="3" required>{h(m.text)}</textarea></label>'
                '<button type="submit">Approve as edited</button></form>')
    pin = button_form(f"/m/{m.id}/pin", "Unpin" if m.pinned else "Pin", fields={"on": "0" if m.pinned else "1"})
    confirm = button_form(f"/m/{m.id}/confirm", "Still holds") if m.stale else ""
    forget = button_form(f"/m/{m.id}/forget", "Forget", danger=True)
    return f'<div class="actions">{pin}{confirm}{forget}</div>{edit}'


def _timeline(versions: list[Memory], current: int) -> str:
    items = "".join(
        f'<li class="{"current" if v.id == current else ""}"><span class="when">{h(short(v.created_at))}</span> '
        f'<a href="/m/{v.id}">v{v.version} #{v.id}</a> {badge(v.status, v.status)} {h(v.text)} '
        f'<span class="muted">({h(v.extractor)}{", until " + h(short(v.valid_until)) if v.valid_until else ""})</span></li>'
        for v in versions)
    return f'<ol class="timeline">{items}</ol>'


def _source(m: Memory, n: int, *, inline: bool) -> str:
    s = m.provenance[n]
    head = (f'<p><strong>{h(s.tool)}</strong> · session <code>{h(s.session_id)}</code> · lines {s.line_start}–'
            f'{s.line_end} · {h(short(s.observed_at))}</p><blockquote class="excerpt">{h(s.excerpt)}</blockquote>')
    if not inline:
        return f'<section class="source">{head}<p><a href="/m/{m.id}/source/{n}">Read the transcript here</a></p></section>'
    return f'<section class="source">{head}{transcript(m, n)}</section>'


def transcript(m: Memory, n: int) -> str:
    s = m.provenance[n]
    if s.session_path.startswith("team:") or not s.session_path:
        return '<p class="muted">This source came from a teammate: its transcript is on their machine.</p>'
    window = browse.transcript_window(s.session_path, s.line_start, s.line_end)
    if window.error:
        return f'<p class="muted">{h(window.error)}</p>'
    turns = "".join(
        f'<div class="turn {h(t.speaker)}{" " + h(t.origin) if t.speaker == ACTION else ""}'
        f'{" cited" if window.is_cited(t) else ""}"><span class="who">{h(_who(t))} · '
        f'lines {t.line_start}–{t.line_end}</span><pre>{h(t.text)}</pre></div>' for t in window.turns)
    return (f'<details open><summary>The transcript around lines {s.line_start}–{s.line_end}, as the model '
            f'read it (cleaned and redacted)</summary><div class="transcript">{turns}</div></details>')


def _who(turn: Turn) -> str:
    """Who a transcript line is: the person, the assistant, or what the assistant did (`RAN`,
    `EDITED`, `DENIED`: facts of what happened, shown apart from anyone's words)."""
    if turn.speaker == ACTION:
        return ACTION_LABELS.get(turn.origin, turn.origin.upper())
    return turn.speaker


def source_page(lore: Loreline, memory_id: int, n: int) -> str:
    m = lore.memory(memory_id)
    if not 0 <= n < len(m.provenance):
        return page("No such source", '<p class="muted">That source is not there.</p>')
    return page(f"Memory #{m.id}: source {n + 1}", _source(m, n, inline=True))


def _select(name: str, values: tuple[str, ...], chosen: str, blank: str | None) -> str:
    options = "".join(f'<option value="{h(v)}"{" selected" if v == chosen else ""}>{h(v or blank or "")}</option>'
                      for v in values)
    return f'<label>{h(name)} <select name="{h(name)}">{options}</select></label>'


def _flag(value: str | None) -> bool | None:
    return {"yes": True, "no": False}.get(value or "")

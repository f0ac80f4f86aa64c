"""The viewer's pages for deciding: the review inbox (held memories and suggestions, with their
evidence) and conflicts, two columns side by side, with resolve and revert."""

from __future__ import annotations

from loreline.api import Conflict, Loreline
from loreline.models import Memory

from .html import badge, button_form, h, memory_badges, page, short, url

#: a hold reason that marks a suggestion of the offline rules rather than a risk
SUGGESTION_WORDS = ("suggest",)


def inbox(lore: Loreline, project: str | None, *, read_only: bool, notice: str = "") -> str:
    held = lore.held(project).items
    suggested = [m for m in held if _is_suggestion(m)]
    others = [m for m in held if not _is_suggestion(m)]
    body = _scope_line("/inbox", project)
    if not held:
        body += '<p class="muted">Nothing waits for review.</p>'
    if others:
        body += "<h2>Held</h2>" + "".join(_held(m, read_only) for m in others)
    if suggested:
        body += "<h2>Suggested</h2>" + "".join(_held(m, read_only) for m in suggested)
    pending = lore.conflicts(project)
    if pending:
        body += f'<p><a href="{url("/conflicts", project=project)}">{len(pending)} conflict(s) wait too.</a></p>'
    return page("Inbox", body, active="/inbox", notice=notice, read_only=read_only)


def _is_suggestion(m: Memory) -> bool:
    return any(word in (m.hold_reason or "").lower() for word in SUGGESTION_WORDS)


def _held(m: Memory, read_only: bool) -> str:
    evidence = "".join(f'<blockquote class="excerpt">{h(s.excerpt)}</blockquote><p class="muted">{h(s.tool)} · '
                       f'lines {s.line_start}–{s.line_end}</p>' for s in m.provenance[:3])
    actions = "" if read_only else (
        f'<div class="actions">{button_form(f"/m/{m.id}/approve", "Approve")}'
        f'{button_form(f"/m/{m.id}/reject", "Reject", danger=True)}'
        f'<a href="/m/{m.id}">Edit, then approve…</a></div>')
    return (f'<article class="held" id="held-{m.id}"><p><a href="/m/{m.id}">#{m.id}</a> {memory_badges(m)} '
            f'<span class="muted">{h(m.project)}</span></p><p class="memory-text">{h(m.text)}</p>'
            f'<p class="reason">{h(m.hold_reason or "")}</p>{evidence}{actions}</article>')


def conflicts(lore: Loreline, project: str | None, show: str, *, read_only: bool, notice: str = "") -> str:
    status = {"pending": "pending", "resolved": "resolved"}.get(show)
    found = lore.conflicts(project, status=status)
    tabs = " · ".join(f'<a href="{url("/conflicts", project=project, show=s)}"{" class=on" if s == show else ""}>{s}</a>'
                      for s in ("pending", "resolved", "all"))
    body = _scope_line("/conflicts", project) + f"<p>{tabs}</p>"
    if not found:
        body += '<p class="muted">No conflicts here.</p>'
    body += "".join(_conflict(c, read_only) for c in found)
    return page("Conflicts", body, active="/conflicts", notice=notice, read_only=read_only)


def _conflict(c: Conflict, read_only: bool) -> str:
    head = (f'<p>Conflict {c.id} in <span class="muted">{h(c.project)}</span> · {h(short(c.created_at))} '
            f'{badge(c.status, c.status)}' + (f" → {h(c.resolution or '')} by {h(c.decided_by or '')}" if c.resolution
                                              else "") + "</p>")
    reason = f'<p class="reason">{h(c.reason)}</p>' if c.reason else ""
    columns = (f'<div class="sides"><div class="side"><h3>Existing</h3>{_side(c.existing)}</div>'
               f'<div class="side"><h3>New</h3>{_side(c.new)}</div></div>')
    actions = ""
    if not read_only and c.status == "pending":
        actions = ('<div class="actions">'
                   + button_form(f"/conflicts/{c.id}/resolve", "Keep new", fields={"keep": "new"})
                   + button_form(f"/conflicts/{c.id}/resolve", "Keep existing", fields={"keep": "existing"})
                   + button_form(f"/conflicts/{c.id}/resolve", "Keep both", fields={"keep": "both"})
                   + f'</div><form method="post" action="/conflicts/{c.id}/resolve" class="edit"><label>Or merge '
                   f'into <textarea name="merge" rows="2" required>{h(c.new.text)}</textarea></label>'
                   '<button type="submit">Merge</button></form>')
    elif not read_only and c.status == "resolved":
        actions = f'<div class="actions">{button_form(f"/conflicts/{c.id}/revert", "Revert")}</div>'
    return f'<article class="conflict" id="conflict-{c.id}">{head}{reason}{columns}{actions}</article>'


def _side(m: Memory) -> str:
    sources = "".join(f'<blockquote class="excerpt">{h(s.excerpt)}</blockquote>' for s in m.provenance[:2])
    return (f'<p><a href="/m/{m.id}">#{m.id}</a> {memory_badges(m)}</p><p class="memory-text">{h(m.text)}</p>'
            f'<p class="muted">{h(short(m.observed_at or m.created_at))} · {h(m.extractor)}</p>{sources}')


def _scope_line(path: str, project: str | None) -> str:
    if project is None:
        return '<p class="muted">Every project.</p>'
    return f'<p class="muted">Project {h(project)} · <a href="{h(path)}">every project</a></p>'

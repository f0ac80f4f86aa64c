"""The viewer's project brief: what each assistant session of the project starts with, each
line under its topic with the memories it rests on (linked to their sources), and a person's
pin and edit of a line."""

from __future__ import annotations

from loreline.api import BriefView, Loreline
from loreline.brief.block import TOPICS

from .html import badge, button_form, h, memory_list, page, short, url


def brief(lore: Loreline, key: str, *, read_only: bool) -> str:
    view = lore.brief(key)
    back = f'<p class="muted">Project <a href="{url("/project", key=key)}">{h(key)}</a></p>'
    if view is None:
        return page("Brief", back + '<p class="muted">No brief yet: it is written after the next import, or now '
                    "with <code>loreline brief --refresh</code>.</p>", read_only=read_only)
    return page(f"Brief v{view.brief.version}", back + _about(view) + _topics(view, key, read_only),
                read_only=read_only)


def _about(view: BriefView) -> str:
    b = view.brief
    said = [f"written by {h(b.writer)}", h(short(b.created_at))]
    if b.changed_by:
        said.append(f"changed by {h(b.changed_by)}")
    if b.dropped:
        said.append(f"{b.dropped} model lines dropped by the check")
    notes = ""
    if b.stale or view.hidden:
        notes = (f'<p class="notice">{view.hidden} lines not shown: a memory they cite is no longer active. The '
                 "next import writes the brief again.</p>")
    return f'<p class="muted">{" · ".join(said)}</p>' + notes


def _topics(view: BriefView, key: str, read_only: bool) -> str:
    out = ""
    for topic, heading in TOPICS:
        lines = [line for line in view.brief.lines if line.topic == topic]
        if not lines:
            continue
        out += f"<h2>{h(heading)}</h2><ol class=\"brief\">"
        for line in lines:
            marks = " ".join(badge(word, word) for word, on in (("pinned", line.pinned), ("edited", line.edited)) if on)
            sources = [m for m in (view.source(i) for i in line.memories) if m is not None]
            out += (f'<li value="{line.number}" class="brief-line"><span class="text">{h(line.text)}</span> {marks}'
                    f'<span class="muted"> by {h(line.by)}</span>{memory_list(sources)}'
                    + ("" if read_only else _actions(key, line.number, line.pinned, line.text)) + "</li>")
        out += "</ol>"
    return out or '<p class="muted">No line: the project has no active memory to brief.</p>'


def _actions(key: str, number: int, pinned: bool, text: str) -> str:
    where = f"/brief/{number}"
    pin = button_form(f"{where}/pin", "Unpin" if pinned else "Pin", fields={"key": key, "on": "0" if pinned else "1"})
    edit = (f'<form method="post" action="{h(where)}/edit" class="edit"><input type="hidden" name="key" '
            f'value="{h(key)}"><label>New wording <textarea name="text" rows="2" required>{h(text)}</textarea>'
            "</label><button type=\"submit\">Save</button></form>")
    return f'<div class="actions">{pin}</div>{edit}'

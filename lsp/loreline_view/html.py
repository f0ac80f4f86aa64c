"""HTML building for the viewer: every piece of stored or transcript text goes through `h`,
which escapes it; markup is only ever written here and in the page modules, never taken from
data."""

from __future__ import annotations

from html import escape
from urllib.parse import urlencode

from loreline.models import Memory

NAV = (("/", "Projects"), ("/inbox", "Inbox"), ("/conflicts", "Conflicts"), ("/sessions", "Sessions"),
       ("/usage", "Model use"))


def h(text: object) -> str:
    """Text made safe for HTML (element content and quoted attributes); control characters
    are shown as escapes, so a terminal sequence in a memory cannot hide what follows."""
    shown = "".join(c if c in "\n\t" or (c.isprintable() and not 0x202A <= ord(c) <= 0x202E
                                          and not 0x2066 <= ord(c) <= 0x2069) else f"\\u{ord(c):04x}"
                    for c in str(text))
    return escape(shown, quote=True)


def url(where: str, /, **query: object) -> str:
    shown = {k: v for k, v in query.items() if v not in (None, "")}
    return h(where + (("?" + urlencode(shown)) if shown else ""))


def page(title: str, body: str, *, active: str = "", notice: str = "", read_only: bool = False) -> str:
    nav = "".join(f'<a href="{href}"{" class=on" if href == active else ""}>{label}</a>' for href, label in NAV)
    banner = '<p class="notice">The store is read-only here: nothing can be changed.</p>' if read_only else ""
    said = f'<p class="notice" role="status">{h(notice)}</p>' if notice else ""
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{h(title)} · Loreline</title>'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<link rel="stylesheet" href="/static/viewer.css"><script src="/static/viewer.js" defer></script>'
            f'</head><body><header><strong>Loreline</strong><nav>{nav}</nav></header><main>{banner}{said}'
            f'<h1>{h(title)}</h1>{body}</main></body></html>')


def badge(text: str, kind: str = "") -> str:
    return f'<span class="badge {h(kind)}">{h(text)}</span>'


def memory_badges(m: Memory) -> str:
    parts = [badge(m.kind, "kind")]
    if m.pinned:
        parts.append(badge("pinned", "pinned"))
    if m.status != "active":
        parts.append(badge(m.status, m.status))
    if m.stale:
        parts.append(badge("may be stale", "stale"))
    return " ".join(parts)


def memory_row(m: Memory) -> str:
    return (f'<li class="memory"><a href="/m/{m.id}">#{m.id}</a> {memory_badges(m)} '
            f'<span class="text">{h(m.text)}</span> <span class="muted">{h(_day(m.observed_at or m.created_at))} · '
            f'{h(m.extractor)}</span></li>')


def memory_list(items: list[Memory] | tuple[Memory, ...], empty: str = "Nothing here.") -> str:
    if not items:
        return f'<p class="muted">{h(empty)}</p>'
    return '<ul class="memories">' + "".join(memory_row(m) for m in items) + "</ul>"


def button_form(action: str, label: str, *, fields: dict[str, str] | None = None, danger: bool = False) -> str:
    hidden = "".join(f'<input type="hidden" name="{h(k)}" value="{h(v)}">' for k, v in (fields or {}).items())
    return (f'<form method="post" action="{h(action)}" class="inline">{hidden}'
            f'<button type="submit"{" class=danger" if danger else ""}>{h(label)}</button></form>')


def _day(stamp: str | None) -> str:
    return (stamp or "")[:10]


def short(stamp: str | None) -> str:
    return (stamp or "")[:16].replace("T", " ")

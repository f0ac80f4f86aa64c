"""The viewer's pages on what happened: imported sessions and what each taught, a dry-run
preview of a session not yet imported, and model use per day against the daily cap (a chart
drawn as inline SVG on the server, so the page needs no script for it)."""

from __future__ import annotations

from loreline.api import ImportRequest, Loreline, browse, imports

from .html import h, memory_list, page, short, url


def sessions(lore: Loreline, project: str | None) -> str:
    done = browse.sessions(lore, project)
    rows = "".join(
        f'<tr><td><a href="{url("/session", path=s.session_path)}">{h(s.session_id)}</a></td><td>{h(s.tool)}</td>'
        f'<td>{h(s.project)}</td><td>{s.lines}</td><td>{s.taught}</td><td>{h(short(s.updated_at))}</td></tr>'
        for s in done)
    body = ('<h2>Imported</h2><table class="grid"><thead><tr><th>Session</th><th>Assistant</th><th>Project</th>'
            f'<th>Lines read</th><th>Memories</th><th>Imported</th></tr></thead><tbody>{rows}</tbody></table>'
            if done else '<p class="muted">No session imported yet.</p>')
    waiting = browse.not_imported(lore)
    if waiting:
        body += ("<h2>Not imported yet</h2><ul>" + "".join(
            f'<li><a href="{url("/session/preview", path=p)}">{h(p)}</a> <span class="muted">{h(tool)}</span></li>'
            for p, tool in waiting) + "</ul>")
    return page("Sessions", body, active="/sessions")


def session(lore: Loreline, path: str) -> str:
    summary, ids = browse.session(lore, path)
    taught = browse.memories_by_id(lore, ids)
    body = (f'<p class="muted">{h(summary.tool)} · {h(summary.project)} · {summary.lines} lines read · imported '
            f'{h(short(summary.updated_at))}</p><p><code>{h(summary.session_path)}</code></p>'
            f"<h2>What it taught ({len(taught)})</h2>" + memory_list(taught, "Nothing was kept from this session."))
    return page(f"Session {summary.session_id}", body, active="/sessions")


def preview(path: str) -> str:
    """What an import of this session would keep, without writing anything or calling a model."""
    plan = imports.plan(ImportRequest(paths=(path,), dry_run=True, backend="rules"))
    outcome = imports.run(plan)
    report = outcome.report
    pieces = "".join(
        f'<section class="source"><p class="muted">Chunk {piece.index + 1}: lines {piece.turns[0].line_start}–'
        f'{piece.turns[-1].line_end}</p>' + ("<ul>" + "".join(
            f"<li>{h(c.kind)}: {h(c.text)}</li>" for c in found) + "</ul>" if found
            else '<p class="muted">Nothing kept from this chunk.</p>') + "</section>"
        for piece, found in outcome.preview if piece.turns)
    body = (f'<p><code>{h(path)}</code></p><p class="muted">A dry run with the offline rules: nothing is written and '
            f'no model is called. {report.turns} turns, {report.chunks} chunks, {report.candidates} candidates.</p>'
            + (pieces or '<p class="muted">Nothing would be kept.</p>'))
    return page("Preview of a session", body, active="/sessions")


def usage(lore: Loreline) -> str:
    chart = browse.usage_chart(lore)
    most = max([d.calls for d in chart.days] + [chart.daily_unattended_cap, 1])
    width, height, bar = 620, 200, 620 // len(chart.days)
    bars = []
    for n, d in enumerate(chart.days):
        x = n * bar
        attended = d.calls - d.unattended_calls
        for value, offset, cls in ((d.unattended_calls, 0, "unattended"), (attended, d.unattended_calls, "attended")):
            if value:
                top = height - (offset + value) * height // most
                bars.append(f'<rect class="{cls}" x="{x + 2}" y="{top}" width="{bar - 4}" '
                            f'height="{value * height // most}"><title>{h(d.day)}: {value} {cls} calls</title></rect>')
    cap_y = height - chart.daily_unattended_cap * height // most
    svg = (f'<svg class="chart" viewBox="0 0 {width} {height + 20}" role="img" aria-label="Model calls per day">'
           + "".join(bars)
           + f'<line class="cap" x1="0" x2="{width}" y1="{cap_y}" y2="{cap_y}"><title>daily cap for background '
             f'capture: {chart.daily_unattended_cap} calls</title></line>'
           + f'<text x="0" y="{height + 16}">{h(chart.days[0].day)}</text>'
           + f'<text x="{width}" y="{height + 16}" text-anchor="end">{h(chart.days[-1].day)}</text></svg>')
    rows = "".join(f"<tr><td>{h(d.day)}</td><td>{d.calls}</td><td>{d.unattended_calls}</td><td>{d.input_tokens:,}</td>"
                   f"<td>{d.output_tokens:,}</td></tr>" for d in reversed(chart.days) if d.calls)
    table = ('<table class="grid"><thead><tr><th>Day</th><th>Calls</th><th>Background</th><th>Input tokens</th>'
             f'<th>Output tokens</th></tr></thead><tbody>{rows}</tbody></table>' if rows
             else '<p class="muted">No model calls in the last 30 days.</p>')
    legend = (f'<p class="legend"><span class="key unattended"></span> background capture '
              f'<span class="key attended"></span> imports you ran <span class="key cap"></span> daily cap '
              f'({chart.daily_unattended_cap} background calls)</p>')
    budget = (f'<p class="muted">Background tokens today: {chart.unattended_tokens:,} of '
              f'{chart.daily_unattended_tokens:,} (limits.daily_unattended_tokens).</p>')
    paused = "".join(f'<p class="notice" role="status"><strong>Background capture paused:</strong> {h(line)}</p>'
                     for line in chart.paused)
    return page("Model use", paused + svg + legend + budget + table, active="/usage")

"""The viewer's project brief (a real viewer process, raw HTTP): each line under its topic with the
memories it rests on, linked to their pages; a person pins and rewords a line there."""

from __future__ import annotations

from urllib.parse import quote, urlencode

from loreline.brief import rewrite
from loreline.store import Store
from loreline.store import briefs
from tests.editor_helpers import World
from tests.viewer_helpers import Running, viewer, world  # noqa: F401 - fixtures

PNPM = "In this repo we use pnpm, never npm."


def test_the_brief_page_shows_each_line_with_its_sources_and_a_person_pins_and_rewords_one(
        world: World, viewer: Running) -> None:
    project = str(world.repo)
    cookie = {"Cookie": viewer.cookie()}
    _, _, none = viewer.request("GET", f"/brief?key={quote(project)}", headers=cookie)
    assert "No brief yet" in none
    _, _, listing = viewer.request("GET", f"/project?key={quote(project)}", headers=cookie)
    assert f'href="/brief?key={quote(project, safe="")}"' in listing  # the project page links to it
    with Store() as store:
        brief = rewrite.rewrite(store, project).brief
    line = next(line for line in brief.lines if line.text == PNPM)
    status, _, html = viewer.request("GET", f"/brief?key={quote(project)}", headers=cookie)
    assert status == 200 and "Conventions and preferences" in html and PNPM in html
    assert f'href="/m/{line.memories[0]}"' in html and "written by rules" in html

    own = {**cookie, "Origin": f"http://127.0.0.1:{viewer.port}"}
    pin = viewer.request("POST", f"/brief/{line.number}/pin", headers=own, body=urlencode({"key": project, "on": "1"}))
    assert pin[0] == 303 and pin[1]["location"] == f"/brief?key={quote(project)}"
    edit = viewer.request("POST", f"/brief/{line.number}/edit", headers=own,
                          body=urlencode({"key": project, "text": "pnpm only, never npm"}))
    assert edit[0] == 303
    with Store() as store:
        latest = briefs.latest(store, project)
    assert latest is not None and latest.version == brief.version + 2 and latest.changed_by == "user"
    changed = next(found for found in latest.lines if found.number == line.number)
    assert (changed.text, changed.pinned, changed.edited) == ("pnpm only, never npm", True, True)
    _, _, after = viewer.request("GET", f"/brief?key={quote(project)}", headers=cookie)
    assert "pnpm only, never npm" in after and "pinned" in after and "edited" in after
    foreign = {**cookie, "Origin": "http://evil.example"}
    assert viewer.request("POST", f"/brief/{line.number}/pin", headers=foreign,
                          body=urlencode({"key": project, "on": "0"}))[0] == 403

"""When a limit resets, read from the words an assistant's CLI prints (standard library only).

The CLIs name the reset as a clock time, with or without a date, in a time zone they name or
the local one: Claude Code "resets 6:12am (UTC)", "resets Dec 5, 3:59am (America/New_York)";
Codex "try again at 6:12 AM.", "try again at Dec 5th, 2026 8:59 AM."; or as a wait, "try again
in 2 days 3 hours 5 minutes". Each reader returns UTC epoch seconds, or None when the words
hold no time it can read (the cooldown's default wait applies then).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, tzinfo

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_CLOCK = re.compile(
    r"(?:(?P<month>[A-Za-z]{3})[a-z]*\.? (?P<day>\d{1,2})(?:st|nd|rd|th)?,? (?:(?P<year>\d{4}),? )?(?:at )?)?"
    r"(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))? ?(?P<half>[ap]\.?m\.?)"
    r"(?: \((?P<zone>[A-Za-z_+\-/0-9]{1,64})\))?", re.IGNORECASE)
_SPAN = re.compile(r"(\d+(?:\.\d+)?)\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b", re.IGNORECASE)
_UNITS = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}


def clock(text: str, now: datetime | None = None) -> float | None:
    """The first clock time in `text` ("6:12am (UTC)", "Dec 5th, 2026 8:59 AM") as UTC epoch
    seconds: in the zone named in brackets, else local time; without a date, its next
    occurrence (a time already past today is tomorrow's)."""
    found = _CLOCK.search(text)
    if found is None:
        return None
    zone = _zone(found.group("zone"))
    moment = (now or datetime.now().astimezone()).astimezone(zone)
    hour = int(found.group("hour")) % 12 + (12 if found.group("half").lower().startswith("p") else 0)
    minute = int(found.group("minute") or 0)
    if hour > 23 or minute > 59:
        return None
    month = found.group("month")
    try:
        if month is None:
            when = moment.replace(hour=hour, minute=minute, second=0, microsecond=0)
            return (when if when > moment else when + timedelta(days=1)).timestamp()
        if month.lower() not in MONTHS:
            return None
        year = int(found.group("year") or moment.year)
        when = moment.replace(year=year, month=MONTHS.index(month.lower()) + 1, day=int(found.group("day")),
                              hour=hour, minute=minute, second=0, microsecond=0)
    except ValueError:  # a day the month does not have
        return None
    if found.group("year") is None and when < moment - timedelta(days=1):
        when = when.replace(year=year + 1)  # "Jan 2" said on Dec 30
    return when.timestamp()


def span(text: str, now: datetime | None = None) -> float | None:
    """A wait ("2 days 3 hours 5 minutes", "20s") from now as UTC epoch seconds."""
    total = 0.0
    for amount, unit in _SPAN.findall(text):
        total += float(amount) * _UNITS[unit[0].lower()]
    if total <= 0:
        return None
    return (now or datetime.now().astimezone()).timestamp() + total


def _zone(name: str | None) -> tzinfo | None:
    """The named zone, else the local one (None: `astimezone` uses local time)."""
    if not name:
        return None
    if name.upper() in ("UTC", "GMT", "Z"):
        from datetime import UTC

        return UTC
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo(name)
    except (ValueError, KeyError, OSError):  # ZoneInfoNotFoundError is a KeyError
        return None

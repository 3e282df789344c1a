"""The one clock of the engine; ``TETHER_NOW`` (ISO-8601) pins it for tests and demos."""

from __future__ import annotations

import os
from datetime import UTC, datetime

from recall.errors import BadInput


def parse_timestamp(value: str, *, what: str = "timestamp") -> datetime:
    """Parse an ISO-8601 date or date-time; naive values are taken as UTC."""
    text = value.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise BadInput(
            f"{what} {value!r} is not an ISO-8601 date (e.g. 2026-11-30T21:00:00+00:00)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:  # every time is kept in UTC: one its offset moves past year 1 or 9999 cannot be
        moment.astimezone(UTC)
    except OverflowError:
        raise BadInput(f"{what} {value!r} is out of range once in UTC (years 1 to 9999)") from None
    return moment


DAY_SECONDS = 86400.0
"""Seconds in a day of the clock (UTC)."""


def day_number(moment: datetime) -> int:
    """The UTC day of ``moment``, counted from the epoch: what a ranking kept for a day is
    keyed by (recency and a quiet file's origin bonus move with it)."""
    return int(moment.timestamp() // DAY_SECONDS)


def now() -> datetime:
    """The current time in UTC, or the time ``TETHER_NOW`` names."""
    pinned = os.environ.get("TETHER_NOW")
    if pinned:
        return parse_timestamp(pinned, what="TETHER_NOW")
    return datetime.now(UTC)


def format_timestamp(moment: datetime) -> str:
    """Render a timestamp as second-precision ISO-8601 in UTC."""
    return moment.astimezone(UTC).replace(microsecond=0).isoformat()


def utc_text(moment: datetime) -> str:
    """Render a timestamp (a naive one read as UTC) as ISO-8601 in UTC, its fraction of a second
    kept: the one form a memory's ``created`` is kept in, so that its text orders as its time
    does. :class:`OverflowError` when UTC moves it past year 1 or 9999."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat()


def now_iso() -> str:
    """The current time (see :func:`now`) as an ISO-8601 string."""
    return format_timestamp(now())

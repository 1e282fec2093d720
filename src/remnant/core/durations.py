"""Parse human durations such as ``10m``, ``24h``, ``7d``, ``2w``, ``1h30m`` or ISO-8601 ``P1DT2H``."""

from __future__ import annotations

import re
from datetime import timedelta

from remnant.core.errors import ValidationError

_UNITS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "y": 365 * 86400}
_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(sec|min|s|m|h|d|w|y)")
_ISO = re.compile(r"^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$")


def parse_duration(text: str | int | float | timedelta) -> timedelta:
    """Turn a duration into a positive :class:`timedelta`; a bare number means seconds."""
    if isinstance(text, timedelta):
        result = text
    elif isinstance(text, bool):
        raise ValidationError(f"not a duration: {text!r}")
    elif isinstance(text, int | float):
        result = _seconds(float(text), text)
    else:
        s = str(text).strip().lower()
        if not s:
            raise ValidationError("empty duration")
        iso = _ISO.match(s.upper())
        if iso and s.upper() != "P" and any(iso.groups()):
            w, d, h, m, sec = (float(g) if g else 0.0 for g in iso.groups())
            result = _seconds(w * 604800 + d * 86400 + h * 3600 + m * 60 + sec, text)
        elif re.fullmatch(r"\d+(\.\d+)?", s):
            result = _seconds(float(s), text)
        else:
            pos, total = 0, 0.0
            compact = s.replace(" ", "")
            # each part where the last ended (a scan from every position is quadratic on digits)
            while (match := _PART.match(compact, pos)) is not None and match.end() > pos:
                total += float(match.group(1)) * _UNITS[match.group(2)]
                pos = match.end()
            if pos != len(compact) or pos == 0:
                raise ValidationError(
                    f"malformed duration {text!r}: use e.g. 10m, 24h, 7d, 2w, 1h30m or P1DT2H"
                )
            result = _seconds(total, text)
    if result <= timedelta():
        raise ValidationError(f"duration must be positive, got {text!r}")
    return result


def _seconds(total: float, original: object) -> timedelta:
    try:
        return timedelta(seconds=total)
    except (OverflowError, ValueError):
        raise ValidationError(f"duration {original!r} is too long") from None


_SPAN_UNITS = (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1))


def format_duration(span: timedelta | float) -> str:
    """A duration as people say it, at most two units: ``7 days``, ``1 hour 30 minutes``, ``45 seconds``.

    ``str(timedelta(days=7))`` is ``7 days, 0:00:00``, which is how audit reasons used to read.
    A bare number means seconds; the sign is dropped (callers say "ago" or "in").
    """
    seconds = abs(span.total_seconds() if isinstance(span, timedelta) else float(span))
    total = round(seconds)
    if total == 0:
        return "0 seconds" if seconds == 0 else "under a second"
    parts: list[str] = []
    for name, size in _SPAN_UNITS:
        n, total = divmod(total, size)
        if n:
            parts.append(f"{n} {name}{'' if n == 1 else 's'}")
        elif parts:
            break  # "1 day 0 hours 5 minutes" reads as "1 day": the next unit down only
        if len(parts) == 2:
            break
    return " ".join(parts)

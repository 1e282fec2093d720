// Time spans as people say them: "3 days ago", "in 2 hours", "just now", "7 days".
// The one formatter the inspector uses for every relative time and duration. Plain script (no
// modules, so the page needs no bundler); node loads it too, for the unit tests.
"use strict";

(function (root) {
  const MIN = 60, HOUR = 3600, DAY = 86400;

  // a duration in seconds (sign ignored), one unit, rounded: "45 seconds", "3 hours", "2 weeks"
  function duration(seconds) {
    const s = Math.abs(Number(seconds));
    if (!Number.isFinite(s)) return "forever";
    const unit = (n, name) => `${n} ${name}${n === 1 ? "" : "s"}`;
    if (s < 45) return unit(Math.max(1, Math.round(s)), "second");
    if (s < 45 * MIN) return unit(Math.max(1, Math.round(s / MIN)), "minute");
    if (s < 36 * HOUR) return unit(Math.max(1, Math.round(s / HOUR)), "hour");
    if (s < 14 * DAY) return unit(Math.round(s / DAY), "day");
    if (s < 60 * DAY) return unit(Math.round(s / (7 * DAY)), "week");
    if (s < 365 * DAY) return unit(Math.round(s / (30 * DAY)), "month");
    return unit(Math.round(s / (365 * DAY)), "year");
  }

  // a duration exactly, at most two units ("1 day 12 hours"): for policies, as Python's
  // remnant.core.durations.format_duration says them
  function exact(seconds) {
    let total = Math.round(Math.abs(Number(seconds)));
    if (!Number.isFinite(total)) return "forever";
    if (total === 0) return "0 seconds";
    const parts = [];
    for (const [name, size] of [["day", DAY], ["hour", HOUR], ["minute", MIN], ["second", 1]]) {
      const n = Math.floor(total / size);
      total -= n * size;
      if (n) parts.push(`${n} ${name}${n === 1 ? "" : "s"}`);
      else if (parts.length) break;
      if (parts.length === 2) break;
    }
    return parts.join(" ");
  }

  // a span in days, as a duration ("fades in 3 days", "stability 12 days")
  function days(d) {
    return d === null || d === undefined ? "never" : duration(Number(d) * DAY);
  }

  function toMs(t) {
    if (t === null || t === undefined || t === "") return NaN;
    return t instanceof Date ? t.getTime() : typeof t === "number" ? t : Date.parse(t);
  }

  // a moment relative to now: "just now", "5 minutes ago", "in 2 days"; "–" when unknown
  function ago(then, now) {
    const a = toMs(then), b = toMs(now === undefined ? Date.now() : now);
    if (Number.isNaN(a) || Number.isNaN(b)) return "–";
    const diff = (a - b) / 1000;
    if (Math.abs(diff) < 45) return "just now";
    return diff < 0 ? `${duration(diff)} ago` : `in ${duration(diff)}`;
  }

  // Audit reasons written before Remnant said durations naturally read "expired more than
  // 7 days, 0:00:00 ago" (Python's str(timedelta)); say those the same way too.
  const TIMEDELTA = /\b(?:(\d+) days?, )?(\d+):(\d{2}):(\d{2})(?:\.\d+)?\b/g;
  function naturalText(text) {
    return String(text || "").replace(TIMEDELTA, (m, d, h, mi, s) =>
      exact(Number(d || 0) * DAY + Number(h) * HOUR + Number(mi) * MIN + Number(s)));
  }

  const api = { duration, exact, days, ago, naturalText };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.RemnantTime = api;
})(typeof globalThis !== "undefined" ? globalThis : this);

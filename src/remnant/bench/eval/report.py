"""The report: ``results.json`` plus a self-contained ``report.html`` with one chart per suite.

Charts are matplotlib PNGs embedded as base64 (no CDN, nothing fetched when the file is opened),
and also written next to the report as small PNG files for the docs. Without matplotlib the HTML
still has every table and says that charts were skipped. A report is always written, even when
every case of every suite failed.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from remnant.bench.eval.runner import CaseOutcome, SuiteResult

COLORS = ["#1f6f8b", "#c8553d", "#588b3d", "#8d6cab", "#d4a017", "#555555"]


@dataclass
class EvalRun:
    """Everything one ``remnant eval`` produced."""

    seed: int
    quick: bool
    adapters: list[str]
    suites: list[str]
    results: dict[str, dict[str, SuiteResult]] = field(default_factory=dict)  # suite -> adapter -> result
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self, *, with_timing: bool = True) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "quick": self.quick,
            "adapters": self.adapters,
            "suites": self.suites,
            "meta": self.meta
            if with_timing
            else {k: v for k, v in self.meta.items() if k not in _TIMING_META},
            "results": {
                s: {a: r.to_dict(with_timing=with_timing) for a, r in by.items()}
                for s, by in self.results.items()
            },
        }


_TIMING_META = ("started", "seconds", "machine")


def load_run(data: Mapping[str, Any]) -> EvalRun:
    """Rebuild an :class:`EvalRun` from ``results.json`` (to redraw a report without rerunning)."""
    run = EvalRun(
        data["seed"], data["quick"], list(data["adapters"]), list(data["suites"]), meta=dict(data["meta"])
    )
    for suite, by in data["results"].items():
        run.results[suite] = {}
        for adapter, r in by.items():
            result = SuiteResult(
                suite,
                adapter,
                r["definition"],
                r["target"],
                r["score"],
                r["passed"],
                r["metrics"],
                r["series"],
                list(r["notes"]),
            )
            result.cases = [
                CaseOutcome(c["name"], c["ok"], error=c["error"], seconds=c.get("seconds", 0.0))
                for c in r["cases"]
            ]
            result.seconds = r.get("seconds", 0.0)
            run.results[suite][adapter] = result
    return run


def write_report(run: EvalRun, out_dir: Path, *, png_dir: Path | None = None) -> dict[str, Path]:
    """Write results.json and report.html (and PNG charts) under ``out_dir``; returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"json": out_dir / "results.json", "html": out_dir / "report.html"}
    try:
        text = json.dumps(run.to_dict(), indent=2, default=str)
    except Exception as exc:  # never lose the report over one odd value
        text = json.dumps({"error": f"results could not be serialised: {type(exc).__name__}: {exc}"})
    paths["json"].write_text(text + "\n")
    charts: dict[str, bytes] = {}
    chart_note = None
    try:
        charts = render_charts(run)
    except ImportError:
        chart_note = "matplotlib is not installed (pip install 'remnant[plot]'): charts skipped"
    except Exception as exc:  # a chart must never cost the report
        chart_note = f"charts failed: {type(exc).__name__}: {exc}"
    for name, png in charts.items():
        target = (png_dir or out_dir) / f"eval-{name}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(png)
        paths[f"png:{name}"] = target
    paths["html"].write_text(_html(run, charts, chart_note))
    return paths


# -- charts ---------------------------------------------------------------------------------------------
def render_charts(run: EvalRun) -> dict[str, bytes]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out: dict[str, bytes] = {}
    for suite, by in run.results.items():
        ok = {a: r for a, r in by.items() if r.series}
        if not ok:
            continue
        drawer = _DRAWERS.get(suite)
        if drawer is None:
            continue
        fig = drawer(plt, ok)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=80, bbox_inches="tight")
        plt.close(fig)
        out[suite] = buf.getvalue()
    return out


def _bars(plt: Any, by: Mapping[str, SuiteResult], key: str, title: str, ylabel: str) -> Any:
    labels: list[str] = []
    for r in by.values():
        for k in r.series.get(key, {}):
            if k not in labels:
                labels.append(k)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.7 * len(labels) + 2), 3.4))
    width = 0.8 / max(1, len(by))
    for j, (name, r) in enumerate(by.items()):
        got = [r.series.get(key, {}).get(k) for k in labels]
        vals = [float("nan") if v is None else v for v in got]  # a path the adapter lacks: no bar
        ax.bar(
            [i + j * width for i in range(len(labels))],
            vals,
            width,
            label=name,
            color=COLORS[j % len(COLORS)],
        )
    ax.set_xticks([i + width * (len(by) - 1) / 2 for i in range(len(labels))])
    ax.set_xticklabels(
        labels, rotation=30 if len(labels) > 4 else 0, ha="right" if len(labels) > 4 else "center", fontsize=8
    )
    ax.set_ylim(0, 1.05)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(axis="y", alpha=0.3)
    return fig


def _retention(plt: Any, by: Mapping[str, SuiteResult]) -> Any:
    return _bars(
        plt, by, "groups", "Retention: used facts in top 5 after the simulated months", "share retained"
    )


def _conflict(plt: Any, by: Mapping[str, SuiteResult]) -> Any:
    return _bars(
        plt,
        by,
        "bars",
        "Conflict: current value first / superseded value in context",
        "share of changed facts",
    )


def _deletion(plt: Any, by: Mapping[str, SuiteResult]) -> Any:
    return _bars(
        plt,
        by,
        "paths",
        "Deletion: forgotten facts absent, per path (1 = never comes back)",
        "share of checks passed",
    )


def _lines(
    plt: Any,
    by: Mapping[str, SuiteResult],
    key: str,
    title: str,
    xlabel: str,
    ylabel: str,
    *,
    log: bool = False,
) -> Any:
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for j, (name, r) in enumerate(by.items()):
        pts = sorted((float(k), v) for k, v in r.series.get(key, {}).items())
        ax.plot(
            [p[0] for p in pts], [p[1] for p in pts], marker="o", label=name, color=COLORS[j % len(COLORS)]
        )
    if log:
        ax.set_xscale("symlog", linthresh=1)
    ax.set_ylim(-0.02, 1.05)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(alpha=0.3)
    return fig


def _long_dialogue(plt: Any, by: Mapping[str, SuiteResult]) -> Any:
    return _lines(
        plt,
        by,
        "by_length",
        "Long dialogue: early facts in the final context",
        "dialogue turns",
        "share present",
        log=True,
    )


def _interference(plt: Any, by: Mapping[str, SuiteResult]) -> Any:
    return _lines(
        plt,
        by,
        "curve",
        "Interference: recall@5 as distractors grow",
        "distractors per relevant fact",
        "recall@5",
        log=True,
    )


def _tokens(plt: Any, by: Mapping[str, SuiteResult]) -> Any:
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    first = next(iter(by.values()))
    for style, name in (("--", "full history"), (":", "sliding window")):
        pts = first.series.get("per_turn", {}).get(name, [])
        rec = first.series.get("recall", {}).get(name, 0.0)
        ax.plot(
            [p[0] for p in pts],
            [p[1] for p in pts],
            style,
            color="#777777" if name == "full history" else "#aaaaaa",
            label=f"{name} (recall {rec:.2f})",
        )
    for j, (adapter, r) in enumerate(by.items()):
        pts = r.series.get("per_turn", {}).get("memory", [])
        rec = r.series.get("recall", {}).get("memory", 0.0)
        ax.plot(
            [p[0] for p in pts],
            [p[1] for p in pts],
            color=COLORS[j % len(COLORS)],
            label=f"{adapter} context (recall {rec:.2f})",
        )
    ax.set_yscale("log")
    ax.set_xlabel("turn")
    ax.set_ylabel("tokens sent (cl100k)")
    ax.set_title("Token efficiency: tokens per question turn", fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(alpha=0.3)
    return fig


def _curve(plt: Any, by: Mapping[str, SuiteResult]) -> Any:
    """Left: share remembered per group (the first adapter with a decay model in colour, the others
    grey). Right: that adapter's measured mean strength against its Ebbinghaus curve."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
    styles = {"no review": "-", "expanding reviews": "--", "weekly reviews": ":"}
    imp_colors = {"0.2": COLORS[1], "0.5": COLORS[4], "0.9": COLORS[0]}
    primary = next((a for a, r in by.items() if r.series.get("strength")), next(iter(by)))
    for adapter, r in by.items():
        main = adapter == primary
        for label, pts in r.series.get("share", {}).items():
            imp, sched = label.split(" / ")
            ax1.plot(
                [p[0] for p in pts],
                [p[1] for p in pts],
                styles.get(sched, "-"),
                color=imp_colors.get(imp, "#333333") if main else "#9a9a9a",
                label=f"importance {imp}, {sched}" if main else None,
                alpha=1.0 if main else 0.5,
                linewidth=1.8 if main else 1.0,
            )
        if not main:
            ax1.plot([], [], color="#9a9a9a", label=f"{adapter} (all groups)")
    r = by[primary]
    for label, pts in r.series.get("strength", {}).items():
        imp = label.split(" / ")[0]
        ax2.plot(
            [p[0] for p in pts],
            [p[1] for p in pts],
            "o",
            markersize=3,
            color=imp_colors.get(imp, "#333"),
            label=f"measured, importance {imp}",
        )
    for label, pts in r.series.get("ebbinghaus", {}).items():
        imp = label.split(" / ")[0]
        ax2.plot(
            [p[0] for p in pts],
            [p[1] for p in pts],
            "-",
            color=imp_colors.get(imp, "#333"),
            alpha=0.6,
            label=f"s0·exp(-t/S), importance {imp}",
        )
    ax2.axhline(0.52, color="#444444", linewidth=0.8, linestyle="-.", label="recall threshold 0.52")
    ax1.set_title(f"Share still remembered ({primary} in colour)", fontsize=9)
    ax1.set_xlabel("simulated days")
    ax1.set_ylim(-0.02, 1.05)
    ax1.legend(fontsize=6)
    ax2.set_title(f"{primary}: mean strength, never reviewed, vs Ebbinghaus", fontsize=9)
    ax2.set_xlabel("simulated days")
    ax2.set_ylim(0, 1.02)
    ax2.legend(fontsize=6)
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
    return fig


_DRAWERS = {
    "retention": _retention,
    "conflict": _conflict,
    "long_dialogue": _long_dialogue,
    "tokens": _tokens,
    "interference": _interference,
    "deletion": _deletion,
    "retention_curve": _curve,
}


# -- html -----------------------------------------------------------------------------------------------
def _fmt(v: Any) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, dict):
        return ", ".join(f"{k}: {_fmt(x)}" for k, x in v.items()) or "none"
    return str(v)


def verdict(r: SuiteResult) -> str:
    if r.passed is None:
        return "no target"
    return "PASS" if r.passed else "FAIL"


def _html(run: EvalRun, charts: Mapping[str, bytes], chart_note: str | None) -> str:
    e = html.escape
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>Remnant eval report</title>",
        "<style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
        "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:left}"
        ".PASS{color:#2b7a2b;font-weight:bold}.FAIL{color:#b0302a;font-weight:bold}.note{color:#555;font-size:13px}"
        "img{max-width:100%}</style></head><body>",
        "<h1>Remnant evaluation: does it forget well?</h1>",
        f"<p>seed {run.seed} · {'quick' if run.quick else 'default'} sizes · adapters: {e(', '.join(run.adapters))}</p>",
        "<p class='note'>" + e(", ".join(f"{k}: {_fmt(v)}" for k, v in run.meta.items())) + "</p>",
    ]
    if chart_note:
        parts.append(f"<p class='note'>{e(chart_note)}</p>")
    parts.append("<h2>Summary</h2><table><tr><th>suite</th><th>target</th>")
    parts += [f"<th>{e(a)}</th>" for a in run.adapters]
    parts.append("</tr>")
    for suite, by in run.results.items():
        first = next(iter(by.values()))
        parts.append(f"<tr><td><a href='#{e(suite)}'>{e(suite)}</a></td><td>{e(first.target)}</td>")
        for a in run.adapters:
            r = by.get(a)
            if r is None:
                parts.append("<td>-</td>")
                continue
            v = verdict(r)
            parts.append(
                f"<td><span class='{v}'>{v}</span> {_fmt(r.score)}"
                + (f" ({len(r.failures)} failed cases)" if r.failures else "")
                + "</td>"
            )
        parts.append("</tr>")
    parts.append("</table>")
    for suite, by in run.results.items():
        first = next(iter(by.values()))
        parts.append(
            f"<h2 id='{e(suite)}'>{e(suite)}</h2><p><b>Score:</b> {e(first.definition)}. <b>Target:</b> {e(first.target)}.</p>"
        )
        if suite in charts:
            parts.append(
                f"<img alt='{e(suite)} chart' src='data:image/png;base64,{base64.b64encode(charts[suite]).decode()}'>"
            )
        keys: list[str] = []
        for r in by.values():
            keys += [k for k in r.metrics if k not in keys]
        parts.append("<table><tr><th>metric</th>" + "".join(f"<th>{e(a)}</th>" for a in by) + "</tr>")
        parts.append(
            "<tr><td>score</td>"
            + "".join(f"<td>{_fmt(r.score)} ({verdict(r)})</td>" for r in by.values())
            + "</tr>"
        )
        for k in keys:
            parts.append(
                f"<tr><td>{e(k)}</td>"
                + "".join(f"<td>{e(_fmt(r.metrics.get(k)))}</td>" for r in by.values())
                + "</tr>"
            )
        parts.append("</table>")
        for a, r in by.items():
            for n in r.notes:
                parts.append(f"<p class='note'>{e(a)}: {e(n)}</p>")
            for c in r.failures:
                parts.append(f"<p class='note FAIL'>{e(a)}: case {e(c.name)} failed: {e(c.error or '')}</p>")
    parts.append("</body></html>")
    return "\n".join(parts)

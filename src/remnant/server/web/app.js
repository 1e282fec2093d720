// Remnant inspector: plain JavaScript, no framework, no CDN. Charts are drawn as SVG by hand.
"use strict";

const $ = (id) => document.getElementById(id);
const SVGNS = "http://www.w3.org/2000/svg";
const state = {
  key: sessionStorage.getItem("remnant_key") || "", user: null, memory: null, threshold: 0.52,
  view: "overview", skew: 0, overview: null,
};
const T = window.RemnantTime; // timespan.js: the one formatter of relative times and durations

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k === "css") Object.assign(node.style, v); // CSSOM, allowed by the page's CSP
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

class ApiError extends Error {
  constructor(status, body) {
    super((body && body.error && body.error.message) || `HTTP ${status}`);
    this.status = status;
    this.code = body && body.error && body.error.code;
  }
}

async function api(path, opts = {}) {
  const headers = { Accept: "application/json" };
  if (state.key) headers.Authorization = `Bearer ${state.key}`;
  if (opts.body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, {
    method: opts.method || "GET",
    headers,
    body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
  });
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    if (res.status === 401) showKeyForm();
    throw new ApiError(res.status, body);
  }
  return body;
}

function toast(message, kind) {
  const t = $("toast");
  t.textContent = message;
  t.className = `toast show ${kind || ""}`;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (t.className = "toast"), 2600);
}

function fmtTime(iso) {
  if (!iso) return "–";
  const d = new Date(iso);
  return d.toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

// The server's clock, not the browser's, is "now" (it may run on an injected clock): every answer
// that carries a "now" resets the offset.
function syncClock(serverNow) {
  const t = Date.parse(serverNow);
  if (!Number.isNaN(t)) state.skew = t - Date.now();
}
const serverNow = () => Date.now() + state.skew;
const ago = (iso) => T.ago(iso, serverNow());

// a relative time, with the exact one on hover
function when(iso, tag = "span", cls = "") {
  return el(tag, { class: `when ${cls}`.trim(), title: iso ? fmtTime(iso) : "", text: iso ? ago(iso) : "–" });
}

function showKeyForm() {
  $("keyform").hidden = false;
  $("who").textContent = "";
}

// ---- users ------------------------------------------------------------------------------------
async function loadWho() {
  try {
    const who = await api("/v1/whoami");
    $("who").textContent = `tenant ${who.tenant}`;
    $("who").title = `scopes: ${who.scopes.join(", ")}`;
    $("keyform").hidden = true;
    return true;
  } catch (e) {
    if (e.status !== 401) toast(e.message, "error");
    return false;
  }
}

async function loadUsers() {
  const data = await api("/v1/users");
  const list = $("userlist");
  list.replaceChildren();
  $("nousers").hidden = data.items.length > 0;
  const filter = $("userfilter").value.trim().toLowerCase();
  for (const u of data.items) {
    if (filter && !u.user_id.toLowerCase().includes(filter)) continue;
    const li = el(
      "li",
      { class: u.user_id === state.user ? "selected" : "", "data-user": u.user_id },
      el("button", { class: "userbtn", onclick: () => selectUser(u.user_id) },
        el("span", { class: "uname", text: u.user_id }),
        el("span", { class: "ucount", text: `${u.active} / ${u.total}`, title: "active / all" }))
    );
    list.append(li);
  }
  fillRecallUsers(data.items.map((u) => u.user_id));
}

function fillRecallUsers(users) {
  const sel = $("recalluser");
  const keep = sel.value || state.user || users[0] || "";
  sel.replaceChildren(...users.map((u) => el("option", { value: u, text: u })));
  if (users.includes(keep)) sel.value = keep;
}

async function selectUser(user) {
  state.user = user;
  history.replaceState(null, "", `#user=${encodeURIComponent(user)}`);
  for (const li of $("userlist").children) li.classList.toggle("selected", li.dataset.user === user);
  showSection("userview");
  $("username").textContent = user;
  closeDetail();
  await refreshUser();
}

async function refreshUser() {
  const user = state.user;
  const q = `user_id=${encodeURIComponent(user)}`;
  const [stats, active, gone] = await Promise.all([
    api(`/v1/stats?${q}`),
    api(`/v1/memories?${q}&status=active&limit=1000`),
    api(`/v1/memories?${q}&status=hidden&status=faded&status=expired&status=superseded&limit=1000`),
  ]);
  renderStats(stats);
  renderActive(active.items);
  renderForgotten(gone.items);
  await renderAudit();
}

const STATUS_LABEL = { active: "active", hidden: "hidden", superseded: "superseded", expired: "expired", faded: "faded" };

function renderStats(stats) {
  const chips = $("statchips");
  chips.replaceChildren(
    el("span", { class: "chip strong", text: `${stats.remembered_now ?? 0} remembered now` })
  );
  for (const s of Object.keys(STATUS_LABEL)) {
    const n = stats.by_status[s] || 0;
    if (n) chips.append(el("span", { class: `chip st-${s}`, text: `${n} ${STATUS_LABEL[s]}` }));
  }
}

// placeholders left by the privacy layer ([PHONE_1], [EMAIL_2]…) shown as chips: the original is in the vault
const PLACEHOLDER = /(\[[A-Z][A-Z_]*_\d+\])/;

function withPlaceholders(text) {
  const frag = document.createDocumentFragment();
  for (const part of (text || "").split(PLACEHOLDER)) {
    if (!part) continue;
    if (PLACEHOLDER.test(part)) frag.append(el("span", { class: "ph", text: part.slice(1, -1).replace(/_\d+$/, "").toLowerCase(), title: `${part}: redacted personal data, kept encrypted in the vault` }));
    else frag.append(document.createTextNode(part));
  }
  return frag;
}

function strengthBar(m) {
  const pct = Math.max(0, Math.min(1, m.strength)) * 100;
  const weak = !m.pinned && m.strength < state.threshold;
  return el("div", { class: "bar", title: `strength ${(m.strength * 100).toFixed(0)} %` },
    el("div", { class: `fill ${m.pinned ? "pinned" : weak ? "weak" : ""}`, css: { width: `${pct.toFixed(1)}%` } }),
    el("div", { class: "tick", css: { left: `${(state.threshold * 100).toFixed(1)}%` } }));
}

function memRow(m, extra) {
  const li = el("li", { class: "mem", "data-id": m.id, "data-testid": "memory-row", tabindex: "0" });
  const tags = el("div", { class: "tags" },
    el("span", { class: `kind k-${m.kind}`, text: m.kind.replace("_", " ") }),
    m.key ? el("span", { class: "key", text: m.key }) : null,
    m.pinned ? el("span", { class: "pin", text: "pinned", "data-testid": "pinned-badge" }) : null);
  li.append(
    el("div", { class: "mem-main" }, el("div", { class: "content" }, withPlaceholders(m.content)), tags),
    extra || el("div", { class: "mem-strength" }, strengthBar(m),
      el("span", { class: "pct", text: `${Math.round(m.strength * 100)}%` })));
  li.addEventListener("click", () => openDetail(m.id));
  li.addEventListener("keydown", (ev) => { if (ev.key === "Enter") openDetail(m.id); });
  return li;
}

function renderActive(items) {
  items.sort((a, b) => b.strength - a.strength);
  const list = $("memlist");
  list.replaceChildren();
  if (!items.length) list.append(el("li", { class: "none muted", text: "Nothing is remembered about this user." }));
  for (const m of items) list.append(memRow(m));
}

// long ids in reasons ("superseded by mem_01…") shortened for reading; the full id is in the detail
const shortIds = (text) => (text || "").replace(/mem_[0-9a-z]{20,}/g, (id) => `mem_…${id.slice(-6)}`);

function renderForgotten(items) {
  const list = $("forgotlist");
  list.replaceChildren();
  if (!items.length) list.append(el("li", { class: "none muted", text: "Nothing has faded, expired or been replaced." }));
  for (const m of items) {
    const why = el("div", { class: "why" },
      el("span", { class: `chip st-${m.status}`, text: STATUS_LABEL[m.status] }),
      el("span", { class: "small muted", text: T.naturalText(shortIds(m.status_reason)) }),
      when(m.status_changed_at, "span", "small muted"));
    list.append(memRow(m, why));
  }
}

const ACTION_LABEL = {
  supersede: "superseded", hide: "hidden", unhide: "restored", purge: "purged", expire: "expired",
  fade: "faded", erase_user: "user erased", evict: "evicted", purge_expired: "purged (expired)",
  purge_faded: "purged (faded)", forget_request: "forget request",
};

async function renderAudit() {
  const [log, chain] = await Promise.all([
    api(`/v1/audit?user_id=${encodeURIComponent(state.user)}&limit=500`),
    api("/v1/audit/verify"),
  ]);
  $("chainstate").textContent = chain.ok
    ? `✓ audit chain intact (${chain.checked} entries checked)`
    : `✗ audit chain broken at entry ${chain.first_bad_seq}: ${chain.problem}`;
  $("chainstate").className = `small ${chain.ok ? "ok" : "bad"}`;
  const list = $("auditlist");
  list.replaceChildren();
  if (!log.items.length) list.append(el("li", { class: "none muted", text: "No forgetting recorded for this user yet." }));
  for (const e of log.items.slice().reverse()) {
    list.append(el("li", { class: `ev a-${e.action}` },
      el("div", { class: "ev-dot" }),
      el("div", { class: "ev-body" },
        el("div", {},
          el("strong", { text: ACTION_LABEL[e.action] || e.action }),
          el("span", { class: "muted small" }, " · ", when(e.at), ` · by ${e.actor}${e.policy ? ` · policy ${e.policy}` : ""}`)),
        el("div", { class: "small", text: T.naturalText(shortIds(e.reason)) }),
        el("div", { class: "small muted", text: `${e.summary} · #${e.seq}` }))));
  }
}


// ---- views: overview, recall, one user ----------------------------------------------------------
function showSection(id) {
  for (const sec of ["overview", "recallview", "userview"]) $(sec).hidden = sec !== id;
  state.view = id === "recallview" ? "recall" : id === "overview" ? "overview" : "user";
  for (const b of document.querySelectorAll(".view")) b.classList.toggle("active", b.dataset.view === state.view);
}

async function showView(name) {
  closeDetail();
  if (name === "recall") {
    history.replaceState(null, "", "#recall");
    showSection("recallview");
    if (state.user) $("recalluser").value = state.user;
    $("recallquery").focus();
    return;
  }
  history.replaceState(null, "", "#overview");
  state.user = null;
  for (const li of $("userlist").children) li.classList.remove("selected");
  showSection("overview");
  await loadOverview();
}

// ---- tenant overview --------------------------------------------------------------------------
const STATUS_ORDER = ["active", "fading", "faded", "expired", "superseded", "hidden"];
const STATUS_HELP = {
  active: "recalled",
  fading: "recalled, but under the threshold within a few days",
  faded: "strength under the recall threshold",
  expired: "its time to live passed",
  superseded: "replaced by a newer memory with the same key",
  hidden: "masked by a person or a forget request",
};

async function loadOverview() {
  const ov = await api("/v1/inspector/overview?days=30&points=24&ahead=60&ahead_points=31");
  state.overview = ov;
  syncClock(ov.now);
  state.threshold = ov.threshold;
  renderOverview();
}

function renderOverview() {
  const ov = state.overview;
  if (!ov) return;
  const last = ov.history[ov.history.length - 1];
  const chips = $("ovchips");
  chips.replaceChildren(el("span", { class: "chip strong", text: `${ov.remembered_now} remembered now` }));
  if (ov.pinned) chips.append(el("span", { class: "chip", text: `${ov.pinned} pinned` }));
  for (const s of STATUS_ORDER.slice(1)) if (last[s]) chips.append(el("span", { class: `chip st-${s}`, text: `${last[s]} ${s}` }));
  chips.append(el("span", {
    class: "chip", "data-testid": "half-life",
    title: "when under half of what is remembered now would still be, if nothing is used again",
    text: ov.half_life_days === null
      ? `half-life over ${T.days(ov.retention[ov.retention.length - 1].day)}`
      : `half-life ${T.days(ov.half_life_days)}`,
  }));
  $("ovdays").textContent = T.duration((Date.parse(last.at) - Date.parse(ov.history[0].at)) / 1000);
  drawStatusChart(ov);
  drawRetention(ov);
}

function chartSize(box, minW, h) {
  // drawn at the box's own width, so text keeps its size on a phone instead of shrinking with it
  const w = Math.max(minW, Math.round(box.getBoundingClientRect().width || 640));
  box.setAttribute("viewBox", `0 0 ${w} ${h}`);
  box.setAttribute("width", w);
  box.setAttribute("height", h);
  box.replaceChildren();
  return w;
}

function shortDay(ms) {
  return new Date(ms).toLocaleDateString(undefined, { month: "short", day: "numeric" });
}

function drawStatusChart(ov) {
  const box = $("statuschart");
  const H = 230, L = 34, R = 12, T0 = 12, B = 28;
  const W = chartSize(box, 280, H);
  const pts = ov.history.map((p) => ({ ...p, t: Date.parse(p.at) }));
  const t0 = pts[0].t, t1 = pts[pts.length - 1].t || t0 + 1;
  const totals = pts.map((p) => STATUS_ORDER.reduce((a, s) => a + p[s], 0));
  const ymax = Math.max(1, ...totals);
  const X = (t) => L + ((t - t0) / Math.max(t1 - t0, 1)) * (W - L - R);
  const Y = (v) => T0 + (1 - v / ymax) * (H - T0 - B);
  const yStep = Math.max(1, Math.ceil(ymax / 4));
  for (let v = 0; v <= ymax; v += yStep) {
    box.append(svg("line", { x1: L, x2: W - R, y1: Y(v), y2: Y(v), class: "grid" }));
    box.append(svg("text", { x: L - 6, y: Y(v) + 3, class: "axis", "text-anchor": "end" }, String(v)));
  }
  const ticks = Math.max(2, Math.min(6, Math.floor((W - L - R) / 80)));
  for (let i = 0; i <= ticks; i++) {
    const t = t0 + ((t1 - t0) * i) / ticks;
    box.append(svg("text", { x: X(t), y: H - 8, class: "axis", "text-anchor": i === 0 ? "start" : i === ticks ? "end" : "middle" },
      i === ticks ? "now" : shortDay(t)));
  }
  // stacked areas, active at the bottom
  const base = pts.map(() => 0);
  for (const s of STATUS_ORDER) {
    const top = pts.map((p, i) => base[i] + p[s]);
    if (top.some((v, i) => v !== base[i])) {
      const up = pts.map((p, i) => `${i ? "L" : "M"}${X(p.t).toFixed(1)},${Y(top[i]).toFixed(1)}`).join(" ");
      const down = pts.map((p, i) => `L${X(p.t).toFixed(1)},${Y(base[i]).toFixed(1)}`).reverse().join(" ");
      box.append(svg("path", { d: `${up} ${down} Z`, class: `layer s-${s}`, "data-testid": `status-layer-${s}` }));
    }
    for (let i = 0; i < base.length; i++) base[i] = top[i];
  }
  // a hover target per sample: its counts
  const half = (W - L - R) / Math.max(pts.length - 1, 1) / 2;
  pts.forEach((p, i) => {
    const r = svg("rect", { x: X(p.t) - half, y: T0, width: 2 * half, height: H - T0 - B, class: "hover" });
    r.append(svg("title", {}, `${i === pts.length - 1 ? "now" : ago(p.at)}: ` + STATUS_ORDER.map((s) => `${p[s]} ${s}`).join(", ")));
    box.append(r);
  });
  const legend = $("statuslegend");
  const last = pts[pts.length - 1];
  const help = { ...STATUS_HELP, fading: `recalled, but under the threshold within ${T.days(ov.fading_days)}` };
  legend.replaceChildren(...STATUS_ORDER.map((s) => el("li", { title: help[s] },
    el("span", { class: `swatch s-${s}` }), `${s} `, el("strong", { text: String(last[s]) }))));
}

function drawRetention(ov) {
  const box = $("retentionchart");
  const H = 210, L = 40, R = 14, T0 = 14, B = 28;
  const W = chartSize(box, 280, H);
  const pts = ov.retention;
  const x1 = pts[pts.length - 1].day || 1;
  const X = (d) => L + (d / x1) * (W - L - R);
  const Y = (v) => T0 + (1 - v) * (H - T0 - B);
  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    box.append(svg("line", { x1: L, x2: W - R, y1: Y(v), y2: Y(v), class: v === 0.5 ? "grid half" : "grid" }));
    box.append(svg("text", { x: L - 6, y: Y(v) + 3, class: "axis", "text-anchor": "end" }, `${v * 100}%`));
  }
  const ticks = Math.max(2, Math.min(6, Math.floor((W - L - R) / 70)));
  for (let i = 0; i <= ticks; i++) {
    const d = (x1 * i) / ticks;
    box.append(svg("text", { x: X(d), y: H - 8, class: "axis", "text-anchor": i === 0 ? "start" : i === ticks ? "end" : "middle" },
      i === 0 ? "today" : `+${Math.round(d)}d`));
  }
  if (!ov.remembered_now) {
    box.append(svg("text", { x: W / 2, y: H / 2, class: "axis", "text-anchor": "middle" }, "nothing is remembered now"));
  } else {
    const line = pts.map((p, i) => `${i ? "L" : "M"}${X(p.day).toFixed(1)},${Y(p.share).toFixed(1)}`).join(" ");
    box.append(svg("path", { d: `${line} L${X(x1)},${Y(0)} L${X(0)},${Y(0)} Z`, class: "retarea" }));
    box.append(svg("path", { d: line, class: "retline", "data-testid": "retention-line" }));
    if (ov.half_life_days !== null) {
      box.append(svg("circle", { cx: X(ov.half_life_days), cy: Y(0.5), r: 4, class: "fadedot" }));
    }
    for (const p of pts) {
      const c = svg("circle", { cx: X(p.day), cy: Y(p.share), r: 6, class: "hover" });
      c.append(svg("title", {}, `in ${T.days(p.day)}: ${p.remembered} of ${ov.remembered_now} (${Math.round(p.share * 100)}%)`));
      box.append(c);
    }
  }
  const end = pts[pts.length - 1];
  const unit = ov.clock_mode === "active_days" ? " active days" : "";
  $("retentioncap").textContent = ov.remembered_now
    ? `${end.remembered} of ${ov.remembered_now} (${Math.round(end.share * 100)}%) still above the recall threshold in ${T.days(end.day)}${unit}` +
      (ov.half_life_days === null ? "" : `; half are gone in ${T.days(ov.half_life_days)}${unit}`) +
      (ov.pinned ? `; ${ov.pinned} pinned never fade` : "") + "."
    : "";
}

// ---- recall box: what would be recalled, and why ----------------------------------------------
const pct = (x) => `${Math.round(x * 100)}%`;
const num = (x, d = 2) => (x === null || x === undefined ? "–" : Number(x).toFixed(d));

function highlight(text, terms) {
  // the matched terms marked in the content (a term marks words it starts: "peanut" in "peanuts")
  const frag = document.createDocumentFragment();
  const wanted = terms.map((t) => t.toLowerCase());
  for (const part of Array.from(withPlaceholders(text).childNodes)) {
    if (part.nodeType !== Node.TEXT_NODE || !wanted.length) { frag.append(part); continue; }
    for (const w of part.textContent.split(/(\p{L}[\p{L}\p{N}_']*)/u)) {
      if (!w) continue;
      const lw = w.toLowerCase();
      if (wanted.some((t) => lw === t || (t.length >= 3 && lw.startsWith(t)))) frag.append(el("mark", { text: w }));
      else frag.append(document.createTextNode(w));
    }
  }
  return frag;
}

function meter(label, value, cls, tick) {
  const v = Math.max(0, Math.min(1, value));
  return el("div", { class: "meter" },
    el("span", { class: "small muted mlabel", text: label }),
    el("div", { class: "bar" },
      el("div", { class: `fill ${cls || ""}`, css: { width: `${(v * 100).toFixed(1)}%` } }),
      tick === undefined ? null : el("div", { class: "tick", css: { left: `${(tick * 100).toFixed(1)}%` } })),
    el("span", { class: "pct", text: pct(value) }));
}

function whyText(h, ex) {
  const found = [];
  if (h.lexical_rank) found.push(`by its words (BM25 #${h.lexical_rank})`);
  if (h.vector_rank) found.push(`by meaning (vector #${h.vector_rank}, cosine ${num(h.vector_similarity)})`);
  if (h.entity_score) found.push(`by what it names (entity round +${num(h.entity_score, 3)})`);
  const parts = [found.length ? `Found ${found.join(" and ")}.` : ex.retriever === "hybrid" || ex.retriever === "lexical" || ex.retriever === "vector" ? "" : `Found by ${ex.retriever}.`];
  if (h.ranker) {
    const top = Object.entries(h.ranker.contributions).slice(0, 4)
      .map(([k, v]) => `${k.replace(/_/g, " ")} ${v >= 0 ? "+" : ""}${num(v)}`).join(", ");
    let s = `Learned ranker: relevance ${num(h.ranker.score, 3)} (biggest parts: ${top})`;
    if (h.signal_factor !== null) s += ` × ${num(h.signal_factor, 3)} for strength ${pct(h.strength)} and confidence ${num(h.confidence)}`;
    parts.push(`${s} = score ${num(h.score, 3)}.`);
  } else if (h.fused !== null) {
    let s = `Relevance ${num(h.fused)}`;
    if (h.speaker_boost) s += ` × ${num(1 + h.speaker_boost)} (the question names its speaker)`;
    if (h.signal_factor !== null) s += ` × ${num(h.signal_factor, 3)} for strength ${pct(h.strength)} and confidence ${num(h.confidence)}`;
    parts.push(`${s} = score ${num(h.score, 3)}.`);
  }
  if (h.fused === 0) parts.push("(Weighted fusion scales each side from its weakest candidate, which scores 0 there.)");
  parts.push(h.memory.pinned ? "Pinned: it never fades." : `Strength ${pct(h.strength)} ${h.above_threshold ? "≥" : "<"} the recall threshold ${pct(ex.threshold)}.`);
  parts.push(h.reinforces ? "A real recall would reinforce it (it shares most of the query's words)." : "A real recall would not reinforce it (too few of the query's words).");
  return parts.filter(Boolean).join(" ");
}

function partsTable(h) {
  const cells = [
    ["BM25", h.lexical_rank ? `#${h.lexical_rank} · ${num(h.lexical_score)}` : "–"],
    ["vector", h.vector_rank ? `#${h.vector_rank} · ${num(h.vector_similarity, 3)}` : "–"],
    ["entities", h.entity_score ? `+${num(h.entity_score, 3)}` : "–"],
    ["fused", num(h.fused, 3)],
    ["speaker", h.speaker_boost ? `+${pct(h.speaker_boost)}` : "–"],
    ["ranker", h.ranker ? num(h.ranker.score, 3) : "–"],
    ["signals ×", num(h.signal_factor, 3)],
    ["score", num(h.score, 3)],
  ];
  return el("div", { class: "tablewrap" },
    el("table", { class: "parts", "data-testid": "hit-parts" },
      el("thead", {}, el("tr", {}, ...cells.map(([k]) => el("th", { text: k })))),
      el("tbody", {}, el("tr", {}, ...cells.map(([k, v]) => el("td", { "data-label": k, text: v }))))));
}

async function runRecall(ev) {
  if (ev) ev.preventDefault();
  const user = $("recalluser").value;
  const query = $("recallquery").value;
  if (!user) { toast("Pick a user first", "error"); return; }
  const list = $("recallresults");
  $("recallsummary").textContent = "Recalling…";
  let ex;
  try {
    ex = await api("/v1/inspector/recall", { method: "POST", body: { query, user_id: user, limit: Number($("recalllimit").value) } });
  } catch (e) {
    $("recallsummary").textContent = "";
    toast(e.message, "error");
    return;
  }
  const how = ex.retriever === "hybrid"
    ? `hybrid recall, ${ex.fusion} fusion ${pct(ex.lexical_weight)} words / ${pct(ex.vector_weight)} meaning${ex.model_id ? ` (${ex.model_id})` : ""}`
    : ex.retriever === "lexical" ? "lexical recall (BM25)" : `${ex.retriever} recall`;
  const terms = ex.terms.length ? `terms: ${ex.terms.join(", ")}` : "no search terms: the strongest memories";
  $("recallsummary").textContent =
    `${ex.hits.length} would be recalled for ${user} · ${terms} · ${how}${ex.candidates ? ` · ${ex.candidates} candidates` : ""} · nothing was reinforced`;
  list.replaceChildren();
  if (!ex.hits.length) list.append(el("li", { class: "none muted", text: "Nothing would be recalled for this query." }));
  for (const h of ex.hits) {
    const m = h.memory;
    const li = el("li", { class: "hit", "data-testid": "recall-hit", "data-id": m.id },
      el("div", { class: "hithead" },
        el("span", { class: "rank", text: `#${h.rank}` }),
        el("div", { class: "content" }, highlight(m.content, h.matched_terms))),
      el("div", { class: "tags" },
        el("span", { class: `kind k-${m.kind}`, text: m.kind.replace("_", " ") }),
        m.key ? el("span", { class: "key", text: m.key }) : null,
        m.pinned ? el("span", { class: "pin", text: "pinned" }) : null,
        ...h.matched_terms.map((t) => el("span", { class: "term", text: t, title: "matched by the full-text index" })),
        el("span", { class: "small muted" }, "last used ", m.last_accessed_at ? when(m.last_accessed_at) : "never",
          " · created ", when(m.created_at))),
      el("div", { class: "meters" },
        meter("score", h.score, "score"),
        meter("strength", h.strength, m.pinned ? "pinned" : h.above_threshold ? "" : "weak", ex.threshold)),
      partsTable(h),
      el("p", { class: "small why-text", "data-testid": "hit-why", text: whyText(h, ex) }));
    li.addEventListener("click", (e) => { if (!e.target.closest("table")) openDetail(m.id); });
    list.append(li);
  }
  const faded = $("recallfaded");
  faded.replaceChildren();
  if (ex.faded.length) {
    faded.append(el("h2", { text: "Matching, but no longer recalled" }));
    for (const f of ex.faded) {
      faded.append(el("div", { class: "fadedhint" },
        el("span", { class: `chip st-${f.reason}`, text: f.reason }), " ",
        `${f.kind}${f.key ? ` “${f.key}”` : ""}, strength ${pct(f.strength)}`,
        f.since ? el("span", {}, ", ", when(f.since)) : ""));
    }
  }
}

// ---- detail and curve -------------------------------------------------------------------------
async function openDetail(id) {
  const [m, curve] = await Promise.all([api(`/v1/memories/${id}`), api(`/v1/memories/${id}/curve?points=90`)]);
  state.memory = m;
  state.threshold = curve.threshold;
  syncClock(curve.now);
  const activeDays = curve.axis === "active_days" ? " (active days)" : "";
  for (const li of document.querySelectorAll(".mem")) li.classList.toggle("selected", li.dataset.id === id);
  $("detail").hidden = false;
  $("d-content").replaceChildren(withPlaceholders(m.content));
  const meta = $("d-meta");
  meta.replaceChildren();
  const rows = [
    ["status", m.status + (m.status_reason ? ` (${T.naturalText(m.status_reason)})` : "")],
    ["kind", m.kind], ["key", m.key || "–"], ["strength", `${(m.strength * 100).toFixed(1)} %`],
    ["stability", `${T.days(curve.stability_days)}${activeDays}`],
    ["fades", m.pinned ? "never (pinned)" : curve.fade_in_days === null ? "never" : curve.fade_in_days <= 0 ? "already under the threshold" : `in ${T.days(curve.fade_in_days)}${activeDays}`],
    ["importance", m.importance.toFixed(2)], ["used", `${m.access_count}× (${m.review_count} review${m.review_count === 1 ? "" : "s"})`],
    ["created", when(m.created_at)], ["expires", m.expires_at ? when(m.expires_at) : "–"],
    ["last used", m.last_accessed_at ? when(m.last_accessed_at) : "never"],
    ["id", m.id],
  ];
  for (const [k, v] of rows) {
    const value = typeof v === "string" ? el("span", { class: "v", text: v }) : el("span", { class: "v" }, v);
    meta.append(el("div", { class: k === "id" ? "kv wide" : "kv" }, el("span", { class: "k", text: k }), value));
  }
  drawCurve(curve);
  const live = m.status === "active" || m.status === "faded";
  $("b-pin").textContent = m.pinned ? "Unpin" : "Pin";
  $("b-pin").disabled = !live;
  $("b-review").disabled = !live;
  $("b-hide").textContent = m.status === "hidden" ? "Restore" : "Hide";
  $("b-hide").disabled = !(m.status === "hidden" || live);
}

function closeDetail() {
  $("detail").hidden = true;
  state.memory = null;
}

function niceStep(span) {
  const steps = [1 / 24, 0.25, 1, 2, 5, 7, 10, 14, 30, 60, 90, 180, 365];
  for (const s of steps) if (span / s <= 7) return s;
  return 365;
}

function drawCurve(c) {
  const box = $("curve");
  box.replaceChildren();
  const W = 460, H = 240, L = 40, R = 14, T = 16, B = 34;
  const pts = c.past.concat(c.projected);
  let x0 = Math.min(...pts.map((p) => p.day), 0);
  let x1 = Math.max(...pts.map((p) => p.day), 1);
  if (x1 - x0 < 1) x0 = x1 - 1;
  const X = (d) => L + ((d - x0) / (x1 - x0)) * (W - L - R);
  const Y = (s) => T + (1 - s) * (H - T - B);
  // the zone under the threshold: not recalled
  box.append(svg("rect", { x: L, y: Y(c.threshold), width: W - L - R, height: Y(0) - Y(c.threshold), class: "zone" }));
  for (const g of [0, 0.25, 0.5, 0.75, 1]) {
    box.append(svg("line", { x1: L, x2: W - R, y1: Y(g), y2: Y(g), class: "grid" }));
    box.append(svg("text", { x: L - 6, y: Y(g) + 4, class: "axis", "text-anchor": "end" }, `${g * 100}%`));
  }
  const step = niceStep(x1 - x0);
  for (let d = Math.ceil(x0 / step) * step; d <= x1 + 1e-9; d += step) {
    box.append(svg("line", { x1: X(d), x2: X(d), y1: Y(0), y2: Y(0) + 4, class: "grid" }));
    const label = d === 0 ? "now" : step < 1 ? `${d > 0 ? "+" : ""}${Math.round(d * 24)}h` : `${d > 0 ? "+" : ""}${Math.round(d)}d`;
    box.append(svg("text", { x: X(d), y: Y(0) + 16, class: "axis", "text-anchor": "middle" }, label));
  }
  box.append(svg("text", { x: W - R, y: H - 4, class: "axis", "text-anchor": "end" }, c.axis === "wall" ? "days" : "active days"));
  // threshold
  box.append(svg("line", { x1: L, x2: W - R, y1: Y(c.threshold), y2: Y(c.threshold), class: "threshold", "data-testid": "threshold-line" }));
  box.append(svg("text", { x: L + 6, y: Y(c.threshold) + 14, class: "thlabel", "text-anchor": "start" }, `recall threshold ${Math.round(c.threshold * 100)}%`));
  const path = (ps) => ps.map((p, i) => `${i ? "L" : "M"}${X(p.day).toFixed(1)},${Y(p.strength).toFixed(1)}`).join(" ");
  if (c.past.length > 1) box.append(svg("path", { d: path(c.past), class: "past", "data-testid": "curve-past" }));
  box.append(svg("path", { d: path(c.projected), class: "projected", "data-testid": "curve-projected" }));
  // now
  box.append(svg("line", { x1: X(0), x2: X(0), y1: T, y2: Y(0), class: "now" }));
  box.append(svg("circle", { cx: X(0), cy: Y(c.strength), r: 4.5, class: "nowdot" }));
  // events: creation and reinforcement
  for (const e of c.events) {
    if (e.day < x0 - 1e-9) continue;
    const g = svg("g", { class: `event e-${e.type}`, "data-testid": `event-${e.type}` });
    g.append(svg("line", { x1: X(e.day), x2: X(e.day), y1: T, y2: Y(0), class: "evline" }));
    g.append(svg("path", { d: `M${X(e.day)},${T} l5,-7 h-10 z`, class: "evmark" }));
    g.append(svg("title", {}, `${e.type}${e.at ? ` ${ago(e.at)} (${fmtTime(e.at)})` : ""}`));
    box.append(g);
  }
  // where it crosses the threshold
  if (c.fade_in_days !== null && c.fade_in_days > 0 && c.fade_in_days <= x1) {
    box.append(svg("circle", { cx: X(c.fade_in_days), cy: Y(c.threshold), r: 4, class: "fadedot" }));
    box.append(svg("text", { x: X(c.fade_in_days), y: Y(c.threshold) + 16, class: "fadelabel", "text-anchor": "middle" }, "fades"));
  }
  const marks = c.events.map((e) => e.label || e.type).join(", ");
  const parts = [`solid: past · dashed: projected · ▼ ${marks}`];
  if (c.note) parts.push(c.note);
  $("curvecap").textContent = parts.join(" · ");
}

// ---- actions ----------------------------------------------------------------------------------
async function act(label, fn) {
  try {
    await fn();
    toast(label, "ok");
  } catch (e) {
    toast(e.message, "error");
  }
  const id = state.memory && state.memory.id;
  const view = state.view === "user" ? refreshUser() : state.view === "recall" ? runRecall() : loadOverview();
  await Promise.all([view, loadUsers()]);
  if (id) {
    try { await openDetail(id); } catch (e) { closeDetail(); }
  }
}

function wire() {
  $("b-pin").addEventListener("click", () => {
    const m = state.memory;
    act(m.pinned ? "Unpinned" : "Pinned", () => api(`/v1/memories/${m.id}/${m.pinned ? "unpin" : "pin"}`, { method: "POST" }));
  });
  $("b-review").addEventListener("click", () => act("Reviewed: stronger, and it fades slower", () => api(`/v1/memories/${state.memory.id}/review`, { method: "POST" })));
  $("b-hide").addEventListener("click", () => {
    const m = state.memory;
    if (m.status === "hidden") act("Restored", () => api(`/v1/memories/${m.id}/unhide`, { method: "POST" }));
    else act("Hidden", () => api(`/v1/memories/${m.id}/hide`, { method: "POST", body: { reason: "hidden in the inspector" } }));
  });
  $("b-purge").addEventListener("click", () => {
    const m = state.memory;
    $("confirmtext").replaceChildren(withPlaceholders(m.content));
    $("forcewrap").hidden = !m.pinned;
    $("force").checked = false;
    $("confirm").returnValue = "";
    $("confirm").showModal();
  });
  $("confirm").addEventListener("close", () => {
    if ($("confirm").returnValue !== "ok" || !state.memory) return;
    const m = state.memory;
    const force = $("force").checked ? "?force=true" : "";
    act("Purged for good", async () => {
      await api(`/v1/memories/${m.id}${force}`, { method: "DELETE" });
      closeDetail();
    });
  });
  $("closedetail").addEventListener("click", closeDetail);
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => {
      for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t === tab);
      for (const p of document.querySelectorAll(".pane")) p.hidden = p.id !== `pane-${tab.dataset.tab}`;
    });
  }
  $("userfilter").addEventListener("input", () => loadUsers());
  for (const b of document.querySelectorAll(".view")) b.addEventListener("click", () => showView(b.dataset.view));
  $("userrecall").addEventListener("click", () => showView("recall"));
  $("recallform").addEventListener("submit", runRecall);
  let resizing = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizing);
    resizing = setTimeout(() => { if (state.view === "overview") renderOverview(); }, 120);
  });
  $("keyform").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    state.key = $("keyinput").value.trim();
    sessionStorage.setItem("remnant_key", state.key);
    await start();
  });
}

async function start() {
  if (!(await loadWho())) return;
  await loadUsers();
  const m = location.hash.match(/user=([^&]+)/);
  if (m) await selectUser(decodeURIComponent(m[1]));
  else await showView(location.hash === "#recall" ? "recall" : "overview");
}

wire();
start();

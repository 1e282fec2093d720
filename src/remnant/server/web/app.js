// Remnant inspector: plain JavaScript, no framework, no CDN. Charts are drawn as SVG by hand.
"use strict";

const $ = (id) => document.getElementById(id);
const SVGNS = "http://www.w3.org/2000/svg";
const state = { key: sessionStorage.getItem("remnant_key") || "", user: null, memory: null, threshold: 0.52 };

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

function fmtDays(days) {
  if (days === null || days === undefined) return "never";
  const a = Math.abs(days);
  if (a < 1 / 24) return `${Math.round(a * 1440)} min`;
  if (a < 1) return `${Math.round(a * 24)} h`;
  if (a < 60) return `${a.toFixed(a < 10 ? 1 : 0)} days`;
  return `${Math.round(a / 30)} months`;
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
}

async function selectUser(user) {
  state.user = user;
  history.replaceState(null, "", `#user=${encodeURIComponent(user)}`);
  for (const li of $("userlist").children) li.classList.toggle("selected", li.dataset.user === user);
  $("empty").hidden = true;
  $("userview").hidden = false;
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
      el("span", { class: "small muted", text: shortIds(m.status_reason) }),
      el("span", { class: "small muted", text: fmtTime(m.status_changed_at) }));
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
          el("span", { class: "muted small", text: ` · ${fmtTime(e.at)} · by ${e.actor}${e.policy ? ` · policy ${e.policy}` : ""}` })),
        el("div", { class: "small", text: shortIds(e.reason) }),
        el("div", { class: "small muted", text: `${e.summary} · #${e.seq}` }))));
  }
}

// ---- detail and curve -------------------------------------------------------------------------
async function openDetail(id) {
  const [m, curve] = await Promise.all([api(`/v1/memories/${id}`), api(`/v1/memories/${id}/curve?points=90`)]);
  state.memory = m;
  state.threshold = curve.threshold;
  for (const li of document.querySelectorAll(".mem")) li.classList.toggle("selected", li.dataset.id === id);
  $("detail").hidden = false;
  $("d-content").replaceChildren(withPlaceholders(m.content));
  const meta = $("d-meta");
  meta.replaceChildren();
  const rows = [
    ["status", m.status + (m.status_reason ? ` (${m.status_reason})` : "")],
    ["kind", m.kind], ["key", m.key || "–"], ["strength", `${(m.strength * 100).toFixed(1)} %`],
    ["stability", `${curve.stability_days.toFixed(1)} days`],
    ["fades", m.pinned ? "never (pinned)" : curve.fade_in_days === null ? "never" : curve.fade_in_days <= 0 ? "already under the threshold" : `in ${fmtDays(curve.fade_in_days)}`],
    ["importance", m.importance.toFixed(2)], ["used", `${m.access_count}× (${m.review_count} review${m.review_count === 1 ? "" : "s"})`],
    ["created", fmtTime(m.created_at)], ["expires", m.expires_at ? fmtTime(m.expires_at) : "–"],
    ["id", m.id],
  ];
  for (const [k, v] of rows) meta.append(el("div", { class: k === "id" ? "kv wide" : "kv" }, el("span", { class: "k", text: k }), el("span", { class: "v", text: v })));
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
    g.append(svg("title", {}, `${e.type}${e.at ? " " + fmtTime(e.at) : ""}`));
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
  await Promise.all([refreshUser(), loadUsers()]);
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
}

wire();
start();

// The mesh operator console: polls the steward's read-only JSON endpoints and renders them.
// No framework and no build step; every value goes into the page as text, never as markup.
"use strict";

const POLL_MS = 2000;
const KEEP = 5000; // receipts this page remembers for the chart
const SHOWN = 50; // receipts shown in the table
const SVG = "http://www.w3.org/2000/svg";

const seen = new Map(); // sequence -> receipt
let lastSeq = null;

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function short(hex) {
  return hex ? hex.slice(0, 12) + "…" : "–";
}

function fmt(n) {
  return n === null || n === undefined ? "–" : Number(n).toLocaleString("en");
}

async function getJson(path) {
  const r = await fetch(path, { cache: "no-store", credentials: "omit" });
  if (!r.ok) throw new Error(path + ": HTTP " + r.status);
  return r.json();
}

function renderStatus(s) {
  document.getElementById("did").textContent = s.did;
  document.getElementById("chain").textContent =
    "next sequence " + s.chain.next_sequence + (s.chain.head ? " · head " + short(s.chain.head) : " · genesis");
  const j = s.journal;
  const journal = document.getElementById("journal");
  journal.replaceChildren(
    el("span", j.description, "mono"),
    el("br"),
    el("span", j.durable ? (j.locked ? "durable, locked" : "durable, not locked") : "not durable",
      j.durable && j.locked ? "live" : "not-live"),
    el("span", " · " + j.unresolved + " unresolved", j.unresolved > 0 ? "bad" : ""));
  if (j.refuses_appends) journal.append(el("br"), el("span", "refuses appends: " + j.refuses_appends, "bad"));
  document.getElementById("ready").textContent = s.ready ? "ready" : "not ready";
  document.getElementById("ready").className = s.ready ? "live" : "bad";
  const g = document.getElementById("grants-state");
  g.replaceChildren(el("span", s.grants.honoured ? "honoured" : "not honoured", s.grants.honoured ? "live" : "bad"));
  if (s.grants.refused_because) g.append(el("br"), el("span", s.grants.refused_because, "muted"));
  document.getElementById("meter-name").textContent =
    s.meter.name + (s.meter.estimator_only ? " (no live counter: figures graded Estimator)" : "");
  const counters = document.getElementById("counters");
  counters.replaceChildren(...s.meter.counters.map(c => {
    const li = el("li", c.counter + (c.domain ? " (" + c.domain + ")" : "") + ": " + c.state + (c.issue ? ", " + c.issue : ""),
      c.state === "live" ? "live" : "not-live");
    li.title = c.detail;
    return li;
  }));
}

function renderReceipts() {
  const rows = [...seen.values()].sort((a, b) => b.sequence - a.sequence).slice(0, SHOWN);
  const body = document.querySelector("#receipts tbody");
  body.replaceChildren(...rows.map(r => {
    const tr = el("tr", null, "receipt");
    tr.dataset.sequence = r.sequence;
    const per = r.kind === "decision"
      ? (r.uj_per_decision === null ? "–" : fmt(r.uj_per_decision) + " /decision")
      : (r.uj_per_accepted_token === null ? "–" : fmt(r.uj_per_accepted_token) + " /token");
    tr.append(
      el("td", r.sequence, "num"),
      el("td", new Date(r.sealed_at_ms).toLocaleTimeString("en-GB")),
      el("td", r.backend),
      el("td", r.kind),
      el("td", r.provenance),
      el("td", fmt(r.energy_uj), "num"),
      el("td", per, "num"),
      el("td", r.tokens_in + " / " + r.tokens_out + " / " + r.tokens_accepted, "num"),
      el("td", r.status, r.status === "ok" ? "live" : "bad"));
    return tr;
  }));
  document.getElementById("receipts-empty").hidden = rows.length > 0;
}

function renderGrants(list) {
  const body = document.querySelector("#grants tbody");
  body.replaceChildren(...list.data.map(g => {
    const tr = el("tr", null, "grant");
    const spent = g.debited_uj + g.reserved_uj;
    const bar = document.createElement("meter");
    bar.min = 0;
    bar.max = Math.max(1, g.budget_uj);
    bar.value = Math.min(spent, bar.max);
    bar.title = fmt(spent) + " of " + fmt(g.budget_uj) + " µJ";
    const cell = el("td");
    cell.append(bar, el("span", " " + fmt(spent) + " / " + fmt(g.budget_uj)));
    tr.append(
      el("td", short(g.grant_id), "mono"),
      el("td", short(g.issuer), "mono"),
      cell,
      el("td", fmt(g.debited_uj), "num"),
      el("td", fmt(g.reserved_uj), "num"),
      el("td", fmt(g.remaining_uj), "num"),
      el("td", g.expires));
    return tr;
  }));
  document.getElementById("grants-empty").hidden = list.data.length > 0;
}

// Cumulative µJ per backend against time, one polyline each, drawn as plain SVG.
// sealed_at_ms is the steward's clock, which may step back (an NTP correction, an operator's
// date): a later receipt can carry an earlier time. So the receipts are accumulated in time order
// (sequence breaking ties) and the axis spans the earliest to the latest time seen, never the first
// and last by sequence; each line then only goes right and up, inside the axes. Drawn by sequence,
// a step back drew back left of the axis and the line doubled over itself.
function renderChart(nowMs) {
  const svg = document.getElementById("chart");
  const legend = document.getElementById("legend");
  const W = 800, H = 240, L = 70, R = 10, T = 10, B = 30;
  const rows = [...seen.values()]
    .filter(r => Number.isFinite(r.sealed_at_ms))
    .sort((a, b) => a.sealed_at_ms - b.sealed_at_ms || a.sequence - b.sequence);
  const series = new Map();
  for (const r of rows) {
    if (!series.has(r.backend)) series.set(r.backend, { total: 0, points: [] });
    const s = series.get(r.backend);
    s.total += r.energy_uj;
    s.points.push([r.sealed_at_ms, s.total]);
  }
  svg.replaceChildren();
  legend.replaceChildren();
  const axis = (x1, y1, x2, y2) => {
    const l = document.createElementNS(SVG, "line");
    l.setAttribute("x1", x1); l.setAttribute("y1", y1); l.setAttribute("x2", x2); l.setAttribute("y2", y2);
    l.setAttribute("class", "axis");
    svg.append(l);
  };
  const label = (x, y, text, anchor) => {
    const t = document.createElementNS(SVG, "text");
    t.setAttribute("x", x); t.setAttribute("y", y); t.setAttribute("text-anchor", anchor);
    t.textContent = text;
    svg.append(t);
  };
  axis(L, T, L, H - B);
  axis(L, H - B, W - R, H - B);
  if (rows.length === 0) {
    label((L + W - R) / 2, H / 2, "no receipts yet", "middle");
    return;
  }
  const t0 = rows[0].sealed_at_ms;
  const now = Number.isFinite(nowMs) ? nowMs : t0;
  const t1 = Math.max(now, rows[rows.length - 1].sealed_at_ms, t0 + 1000);
  let top = 1;
  for (const s of series.values()) top = Math.max(top, s.total);
  const x = t => L + (t - t0) / (t1 - t0) * (W - L - R);
  const y = v => H - B - v / top * (H - T - B);
  label(L - 4, T + 10, fmt(top) + " µJ", "end");
  label(L - 4, H - B, "0", "end");
  label(L, H - 8, new Date(t0).toLocaleTimeString("en-GB"), "start");
  label(W - R, H - 8, new Date(t1).toLocaleTimeString("en-GB"), "end");
  let i = 0;
  for (const [backend, s] of series) {
    // A step line: the total holds until the next receipt, and up to now.
    const pts = [[x(t0), y(0)]];
    let prev = 0;
    for (const [t, v] of s.points) {
      pts.push([x(t), y(prev)], [x(t), y(v)]);
      prev = v;
    }
    pts.push([x(t1), y(prev)]);
    const line = document.createElementNS(SVG, "polyline");
    line.setAttribute("points", pts.map(p => p[0].toFixed(1) + "," + p[1].toFixed(1)).join(" "));
    line.setAttribute("class", "series c" + (i % 6));
    line.dataset.backend = backend;
    svg.append(line);
    const key = el("span");
    key.append(el("b", null, "c" + (i % 6)), document.createTextNode(backend + ": " + fmt(s.total) + " µJ"));
    legend.append(key);
    i++;
  }
}

async function poll() {
  const updated = document.getElementById("updated");
  try {
    const after = lastSeq === null ? "" : "&after=" + lastSeq;
    const [status, receipts, grants] = await Promise.all([
      getJson("/v1/mesh/status"),
      getJson("/v1/mesh/receipts?limit=256" + after),
      getJson("/v1/mesh/grants"),
    ]);
    for (const r of receipts.data) {
      seen.set(r.sequence, r);
      if (lastSeq === null || r.sequence > lastSeq) lastSeq = r.sequence;
    }
    while (seen.size > KEEP) seen.delete(Math.min(...seen.keys()));
    renderStatus(status);
    renderReceipts();
    renderGrants(grants);
    renderChart(status.now_ms);
    updated.textContent = "updated " + new Date().toLocaleTimeString("en-GB");
    updated.className = "muted";
    document.body.dataset.polled = String(Number(document.body.dataset.polled || 0) + 1);
  } catch (e) {
    updated.textContent = "not reachable: " + e.message;
    updated.className = "bad";
  }
}

poll();
setInterval(poll, POLL_MS);

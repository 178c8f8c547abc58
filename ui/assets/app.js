// The replay's browser view: plain JS, no framework, no network beyond
// this server. The feed (GET /events, SSE) is described in feed.go.
"use strict";
(function () {
  const token = new URLSearchParams(location.search).get("token") || "";
  const FROZEN = window.REPLAYCTL_FROZEN || null; // a report's page: its events, no server
  const q = (id) => document.getElementById(id);
  const COLORS = { passed: "#2f9e44", warned: "#c9a300", failed: "#e03131", error: "#9c36b5", timeout: "#f08c00", skipped: "#adb5bd", sent: "#4c6ef5",
    // serve's verdicts (serve --ui)
    served: "#2f9e44", miss: "#e03131", forwarded: "#1098ad", taken: "#868e96",
    recorded: "#3b5bdb" }; // record --ui
  const ROW = 18, AXIS = 20, LABELW = 150;

  // The model, folded from the feed's events.
  const names = [];
  const lanes = [];            // by first appearance
  const laneOf = new Map();    // session name index -> lane
  const msgs = new Map();      // "s:seq" -> message
  const methods = new Set(), tools = new Set();
  let tMax = 0, runEnded = null, lost = 0, checked = 0, failedN = 0, lastFrame = 0;
  let state = null, result = null, debug = false, thresholds = [];

  function lane(si) {
    let l = laneOf.get(si);
    if (!l) {
      l = { si, name: names[si] || "?", msgs: [], marks: [], failed: 0, ended: null, endDetail: "" };
      laneOf.set(si, l); lanes.push(l); layout();
    }
    return l;
  }
  function msg(si, seq) {
    const k = si + ":" + seq;
    let m = msgs.get(k);
    if (!m) {
      m = { k, si, seq, lane: lane(si), method: "", kind: "", dir: "", name: "", verdict: "", sent: -1, due: -1, ans: -1, at: -1, lag: -1, held: -1, lat: -1, ndiff: 0, detail: "", fault: "" };
      msgs.set(k, m); m.lane.msgs.push(m);
    }
    return m;
  }
  const nm = (i) => (i >= 0 ? names[i] : "");

  // Charts: buckets of width bw µs, doubled (merged) past 600 buckets.
  const NH = 48; // log buckets of latency: 1 µs .. ~10^7 µs, factor 1.42
  let bw = 10000, buckets = [];
  function bucket(t) {
    let i = Math.floor(t / bw);
    while (i >= 600) { mergeBuckets(); i = Math.floor(t / bw); }
    while (buckets.length <= i) buckets.push({ due: 0, sent: 0, h: new Float64Array(NH), n: 0 });
    return buckets[i];
  }
  function mergeBuckets() {
    const nb = [];
    for (let i = 0; i < buckets.length; i += 2) {
      const a = buckets[i], b = buckets[i + 1];
      if (b) { a.due += b.due; a.sent += b.sent; a.n += b.n; for (let j = 0; j < NH; j++) a.h[j] += b.h[j]; }
      nb.push(a);
    }
    buckets = nb; bw *= 2;
  }
  const hIndex = (us) => Math.max(0, Math.min(NH - 1, Math.floor(Math.log(Math.max(us, 1)) / Math.log(1.42))));
  const hValue = (i) => Math.pow(1.42, i + 0.5);

  function apply(ev) {
    const code = ev[0], t = ev[1], si = ev[2], seq = ev[3];
    if (t > tMax) tMax = t;
    let m, l;
    switch (code) {
      case "D": l = lane(si); l.marks.push({ t, k: "dial", d: ev[4] }); break;
      case "C": l = lane(si); l.marks.push({ t, k: "reconnect", d: ev[4] }); break;
      case "E": l = lane(si); l.ended = t; l.endDetail = ev[4]; break;
      case "X": runEnded = { t, d: ev[4] }; break;
      case "A": l = lane(si); l.marks.push({ t, k: "anchored" }); break;
      case "H": m = msg(si, seq); m.method = nm(ev[4]) || m.method; m.heldReason = nm(ev[5]); if (m.sent < 0) m.heldAt = t; break;
      case "S": m = msg(si, seq); m.method = nm(ev[4]) || m.method; m.sent = t; if (ev[5] >= 0) m.held = ev[5]; m.dir = m.dir || "c2s";
        bucket(t).sent++; break;
      case "F": l = lane(si); l.marks.push({ t, k: "fault", d: nm(ev[5]) + (ev[6] ? ": " + ev[6] : ""), seq }); if (seq >= 0) msg(si, seq).fault = nm(ev[5]); break;
      case "R": l = lane(si); l.marks.push({ t, k: "retry", d: "attempt " + ev[5] + " " + nm(ev[6]) + " " + ev[7], seq }); break;
      case "J": judge(si, seq, t, ev); break;
      case "G": m = msg(si, seq); m.group = ev[4]; m.groupKind = nm(ev[5]); m.lane.grouped = true; break;
    }
  }
  // groupsOf is the groups of a lane's messages (an MRTR chain, a task's
  // request and polls: the "G" events), those of two messages or more,
  // each {kind, msgs} in the order of their first message.
  function groupsOf(ms) {
    const by = new Map();
    for (const m of ms) {
      if (!m.group) continue;
      let g = by.get(m.group);
      if (!g) { g = { id: m.group, kind: m.groupKind, msgs: [] }; by.set(m.group, g); }
      g.msgs.push(m);
    }
    return [...by.values()].filter((g) => g.msgs.length > 1);
  }
  // count is n and word, in the plural unless n is 1 (as Go's english.Count).
  const count = (n, word) => n + " " + (n === 1 ? word : word + "s");
  const groupLabel = (g) => g.kind === "task" ? count(g.msgs.length - 1, "poll") : count(g.msgs.length, "round");
  function judge(si, seq, t, ev) {
    const m = msg(si, seq);
    m.method = nm(ev[4]) || m.method; m.kind = nm(ev[5]); m.dir = nm(ev[6]); m.verdict = nm(ev[7]);
    m.lag = ev[8]; m.held = ev[9] >= 0 ? ev[9] : m.held; m.lat = ev[10]; m.name = nm(ev[11]); m.ndiff = ev[12]; m.detail = ev[13]; m.fault = nm(ev[14]) || m.fault;
    m.at = t;
    if (m.dir === "c2s" && m.lag >= 0) {
      if (m.sent < 0) m.sent = m.lat >= 0 ? t - m.lat : t;
      m.due = m.sent - Math.max(m.held, 0) - m.lag;
      if (m.lat >= 0) m.ans = m.sent + m.lat;
      bucket(Math.max(m.due, 0)).due++;
    }
    if (m.lat >= 0) { const b = bucket(m.ans >= 0 ? m.ans : t); b.h[hIndex(m.lat)]++; b.n++; }
    if (m.method) methods.add(m.method);
    if (m.name && m.method === "tools/call") tools.add(m.name);
    if (m.verdict === "passed" || m.verdict === "warned" || m.verdict === "failed") checked++; // the report's validation.checked
    if (bad(m.verdict)) { failedN++; m.lane.failed++; }
  }
  const bad = (v) => v === "failed" || v === "error" || v === "timeout" || v === "miss";

  // Filters.
  const F = { method: "", tool: "", session: "", verdict: "" };
  function shown(m) {
    if (F.method && m.method !== F.method) return false;
    if (F.tool && m.name !== F.tool) return false;
    if (F.verdict === "bad") { if (!bad(m.verdict)) return false; } else if (F.verdict && m.verdict !== F.verdict) return false;
    return true;
  }
  function visibleLanes() {
    if (!F.session) return lanes;
    const s = F.session.toLowerCase();
    return lanes.filter((l) => l.name.toLowerCase().includes(s));
  }

  // The timeline: a canvas over the visible rows only (virtual scrolling).
  const box = q("lanes"), cv = q("tl"), spacer = q("spacer"), labels = q("labels");
  let view = null; // [t0, t1] µs; null: fit the whole run
  let rows = lanes;
  function layout() { dirty = true; }
  function span() { return view || [0, Math.max(tMax, 1000) * 1.03]; }
  function xOf(t, w) { const [a, b] = span(); return LABELW + ((t - a) / (b - a)) * (w - LABELW - 6); }
  let dirty = true;
  function draw() {
    rows = visibleLanes();
    spacer.style.height = (AXIS + rows.length * ROW) + "px";
    const fit = Math.max(120, Math.min(window.innerHeight * 0.56, AXIS + rows.length * ROW + 4)) + "px";
    if (box.style.height !== fit) box.style.height = fit;
    const w = box.clientWidth, h = box.clientHeight;
    const dpr = window.devicePixelRatio || 1;
    if (cv.width !== w * dpr || cv.height !== h * dpr) { cv.width = w * dpr; cv.height = h * dpr; cv.style.width = w + "px"; cv.style.height = h + "px"; }
    cv.style.marginBottom = (-h) + "px";
    const g = cv.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    const top = box.scrollTop;
    const first = Math.max(0, Math.floor(top / ROW) - 1), last = Math.min(rows.length, Math.ceil((top + h) / ROW) + 1);
    let html = "", drawn = 0;
    const now = runEnded ? runEnded.t : tMax;
    for (let r = first; r < last; r++) {
      const l = rows[r], y = AXIS + r * ROW - top;
      if (r % 2) { g.fillStyle = "#f8f9fa"; g.fillRect(0, y, w, ROW); }
      if (r * ROW >= top - 2) html += '<div class="lane-label' + (l.failed ? " failed" : "") + '" style="top:' + (AXIS + r * ROW) + 'px" data-session="' + esc(l.name) + '">' + esc(l.name) + "</div>";
      for (const m of l.msgs) {
        if (!shown(m)) continue;
        drawn++;
        drawMsg(g, m, y, w, now);
      }
      if (l.grouped) for (const gr of groupsOf(l.msgs)) drawGroup(g, gr, y);
      for (const k of l.marks) drawMark(g, k, y, w);
      if (l.ended != null) { const x = xOf(l.ended, w); g.fillStyle = l.endDetail ? COLORS.failed : "#868e96"; g.fillRect(x, y + 3, 2, ROW - 6); }
    }
    labels.innerHTML = html;
    // The axis, on top.
    g.fillStyle = "#fff"; g.fillRect(0, 0, w, AXIS);
    g.fillStyle = "#6b7480"; g.font = "11px system-ui"; g.strokeStyle = "#e3e6ea";
    const [a, b] = span(), step = niceStep((b - a) / 8);
    for (let t = Math.ceil(a / step) * step; t <= b; t += step) {
      const x = xOf(t, w); g.fillRect(x, AXIS - 5, 1, 5); g.fillText(fmtUs(t), x + 2, 12);
    }
    g.fillText(count(rows.length, "lane"), 4, 12);
    api.drawn = drawn; api.rowsFrom = first; api.rowsTo = last;
  }
  function drawMsg(g, m, y, w, now) {
    const col = COLORS[m.verdict] || "#74c0fc";
    if (m.dir === "s2c") { // from the server: a notification (dot) or a request (diamond)
      const x = xOf(m.at, w);
      g.fillStyle = col;
      if (m.kind === "request") {
        g.beginPath(); g.moveTo(x, y + 4); g.lineTo(x + 4, y + 9); g.lineTo(x, y + 14); g.lineTo(x - 4, y + 9); g.fill();
        m.b0 = x - 4; m.b1 = x + 4; m.y0 = 4; m.y1 = 14;
      } else {
        g.beginPath(); g.arc(x, y + ROW - 4, 2.5, 0, 7); g.fill();
        m.b0 = x - 2.5; m.b1 = x + 2.5; m.y0 = ROW - 6.5; m.y1 = ROW - 1.5;
      }
      m.x0 = x - 4; m.x1 = x + 4; return;
    }
    if (m.sent < 0) return;
    if (m.kind === "notification" || m.kind === "response" || m.kind === "error") {
      const x = xOf(m.sent, w); g.fillStyle = col; g.fillRect(x - 1, y + 3, 2, ROW - 6);
      m.b0 = x - 1; m.b1 = x + 1; m.y0 = 3; m.y1 = ROW - 3; m.x0 = x - 3; m.x1 = x + 3; return;
    }
    const xs = xOf(m.sent, w), xe = xOf(m.ans >= 0 ? m.ans : (m.verdict ? Math.max(m.at, m.sent) : now), w);
    if (m.due >= 0) {
      const xd = xOf(m.due, w), xh = xOf(m.due + Math.max(m.held, 0), w);
      if (xh - xd >= 1) { g.fillStyle = "#adb5bd"; g.fillRect(xd, y + 8, xh - xd, 2); }
      if (xs - xh >= 1) { g.fillStyle = "#fd7e14"; g.fillRect(xh, y + 8, xs - xh, 2); }
    }
    g.fillStyle = col;
    g.fillRect(xs, y + 4, Math.max(xe - xs, 2), ROW - 8);
    if (m.ndiff) { g.fillStyle = "#000"; g.fillRect(xs, y + ROW - 5, Math.max(xe - xs, 2), 1); }
    // b0..b1, y0..y1 (in its row): the bar; x0..x1: with the lines from
    // its due time.
    m.b0 = xs; m.b1 = Math.max(xe, xs + 2); m.y0 = 4; m.y1 = ROW - 4;
    m.x0 = Math.min(xs, m.due >= 0 ? xOf(m.due, w) : xs) - 1; m.x1 = m.b1 + 1;
  }
  // drawGroup draws a bracket around the shown messages of a group, and
  // its count.
  function drawGroup(g, gr, y) {
    let x0 = Infinity, x1 = -Infinity;
    for (const m of gr.msgs) if (shown(m) && m.x0 !== undefined) { x0 = Math.min(x0, m.x0); x1 = Math.max(x1, m.x1); }
    if (x0 === Infinity) return;
    g.strokeStyle = gr.kind === "task" ? "#0c8599" : "#7048e8"; g.lineWidth = 1;
    g.strokeRect(x0 - 1.5, y + 1.5, x1 - x0 + 3, ROW - 3);
    g.fillStyle = g.strokeStyle; g.font = "9px system-ui";
    g.fillText(groupLabel(gr), x1 + 4, y + ROW - 5);
  }
  function drawMark(g, k, y, w) {
    const x = xOf(k.t, w);
    if (k.k === "fault") { g.fillStyle = "#e03131"; g.beginPath(); g.moveTo(x - 4, y); g.lineTo(x + 4, y); g.lineTo(x, y + 6); g.fill(); }
    else if (k.k === "retry") { g.fillStyle = "#f08c00"; g.fillRect(x - 2, y + 1, 4, 4); }
    else if (k.k === "reconnect") { g.fillStyle = "#9c36b5"; for (let i = 0; i < ROW; i += 4) g.fillRect(x, y + i, 1, 2); }
    else if (k.k === "dial") { g.fillStyle = "#868e96"; g.fillRect(x, y + 5, 1, ROW - 10); }
  }
  function niceStep(s) { const p = Math.pow(10, Math.floor(Math.log10(Math.max(s, 1)))); for (const f of [1, 2, 5, 10]) if (f * p >= s) return f * p; return 10 * p; }
  function fmtUs(t) { return t >= 1e6 ? (t / 1e6).toFixed(t % 1e6 ? 2 : 0) + "s" : t >= 1000 ? (t / 1000).toFixed(t % 1000 ? 1 : 0) + "ms" : t + "µs"; }
  function esc(s) { return String(s).replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";"); }

  // Which message is at (x, y) of the canvas: the one whose bar (line,
  // dot, diamond) is drawn there on top, b0..b1 by y0..y1 of its row (a
  // lane's messages are drawn in order, each over the ones before; a slow
  // answer's bar spans the next requests), else the nearest within 4 px,
  // its lines from the due time included.
  function hit(x, y) {
    const r = Math.floor((y + box.scrollTop - AXIS) / ROW);
    const l = rows[r];
    if (!l || y < AXIS) return null;
    const yr = y + box.scrollTop - AXIS - r * ROW;
    let top = null, best = null, bd = 1e9;
    for (const m of l.msgs) {
      if (!shown(m) || m.x0 === undefined) continue;
      if (x >= m.b0 && x <= m.b1 && yr >= m.y0 && yr <= m.y1) top = m;
      const d = x < m.x0 ? m.x0 - x : x > m.x1 ? x - m.x1 : 0;
      if (d <= bd) { bd = d; best = m; }
    }
    return top || (bd <= 4 ? best : null);
  }
  // spot is where m's bar shows: the middle of the widest stretch of it
  // no later bar of its lane is drawn over, or of the whole bar when they
  // cover it all (a fast run's messages within a pixel or two).
  function spot(m) {
    let parts = [[m.b0, m.b1]];
    for (const o of m.lane.msgs.slice(m.lane.msgs.indexOf(m) + 1)) {
      if (!shown(o) || o.b0 === undefined) continue;
      parts = parts.flatMap(([a, b]) => [[a, Math.min(b, o.b0)], [Math.max(a, o.b1), b]]).filter(([a, b]) => b - a >= 1);
    }
    let best = null;
    for (const p of parts) if (!best || p[1] - p[0] > best[1] - best[0]) best = p;
    return best ? (best[0] + best[1]) / 2 : (m.b0 + m.b1) / 2;
  }
  cv.addEventListener("click", (e) => {
    const rc = cv.getBoundingClientRect();
    const m = hit(e.clientX - rc.left, e.clientY - rc.top);
    if (m) open(m);
  });
  box.addEventListener("scroll", () => { dirty = true; });
  box.addEventListener("wheel", (e) => {
    if (!e.ctrlKey) return;
    e.preventDefault();
    const rc = cv.getBoundingClientRect(), w = box.clientWidth;
    const [a, b] = span(), f = e.deltaY > 0 ? 1.25 : 0.8;
    const at = a + ((e.clientX - rc.left - LABELW) / (w - LABELW - 6)) * (b - a);
    view = [Math.max(0, at - (at - a) * f), at + (b - at) * f]; dirty = true;
  }, { passive: false });
  q("fit").onclick = () => { view = null; dirty = true; };
  window.addEventListener("resize", () => { dirty = true; });

  // The detail of one message: as sent, the live and the recorded answer.
  let openKey = "";
  async function open(m) {
    openKey = m.k;
    const d = q("detail"); d.classList.remove("hidden");
    q("dhead").textContent = m.lane.name + " seq " + m.seq + " " + (m.method || m.kind) + (m.name ? " " + m.name : "") + " — " + (m.verdict || "in flight") + timing(m);
    q("ddiffs").innerHTML = ""; for (const id of ["dsent", "danswer", "drecorded"]) q(id).textContent = "…";
    const u = "api/message?token=" + encodeURIComponent(token) + "&session=" + encodeURIComponent(m.lane.name) + "&seq=" + m.seq;
    let det;
    try {
      if (FROZEN) det = FROZEN.messages[m.lane.name + "\u0000" + m.seq];
      else { const r = await fetch(u); det = r.ok ? await r.json() : { error: await r.text() }; }
    } catch (e) { det = { error: String(e) }; }
    if (openKey !== m.k) return;
    if (!det) det = { error: "not kept" };
    const paths = (det.differences || []).map((x) => x.path);
    q("ddiffs").innerHTML = (det.differences || []).map((x) => "<li data-path=\"" + esc(x.path) + "\">" + esc(x.path) + ": expected " + esc(show(x.expected)) + ", got " + esc(show(x.actual)) + " (" + esc(x.kind) + ")</li>").join("") +
      (det.error ? "<li class=err>" + esc(det.error) + "</li>" : "") + (det.not_kept ? "<li class=warn>bytes not kept: past the --ui-bodies bound</li>" : "");
    q("dsent").innerHTML = pretty(det.sent, []);
    q("danswer").innerHTML = pretty(det.answer, paths);
    q("drecorded").innerHTML = pretty(det.recorded, paths);
    api.opened = det;
  }
  function timing(m) {
    const p = [];
    if (m.lag >= 0) p.push("lag " + fmtUs(m.lag)); if (m.held > 0) p.push("held " + fmtUs(m.held) + (m.heldReason ? " (" + m.heldReason + ")" : ""));
    if (m.lat >= 0) p.push("latency " + fmtUs(m.lat)); if (m.fault) p.push("fault " + m.fault); if (m.detail) p.push(m.detail);
    return p.length ? " · " + p.join(" · ") : "";
  }
  const show = (v) => (v === undefined || v === null ? "(absent)" : JSON.stringify(v));
  // pretty prints v with the values at paths (the validator's syntax) marked.
  function pretty(v, paths) {
    if (v === null || v === undefined) return '<span class="warn">(none)</span>';
    const mark = new Set(paths), out = [];
    const key = (p, k) => /^[A-Za-z0-9_-]+$/.test(k) ? (p === "$" ? k : p + "." + k) : (p === "$" ? "" : p) + "[" + JSON.stringify(k) + "]";
    function walk(x, p, ind) {
      const open = mark.has(p) ? '<mark class="diff" data-path="' + esc(p) + '">' : "", close = open ? "</mark>" : "";
      if (Array.isArray(x)) {
        if (!x.length) { out.push(open + "[]" + close); return; }
        out.push(open + "[\n");
        x.forEach((y, i) => { out.push(ind + "  "); walk(y, (p === "$" ? "" : p) + "[" + i + "]", ind + "  "); out.push(i < x.length - 1 ? ",\n" : "\n"); });
        out.push(ind + "]" + close);
      } else if (x && typeof x === "object") {
        const ks = Object.keys(x);
        if (!ks.length) { out.push(open + "{}" + close); return; }
        out.push(open + "{\n");
        ks.forEach((k, i) => { out.push(ind + "  " + esc(JSON.stringify(k)) + ": "); walk(x[k], key(p, k), ind + "  "); out.push(i < ks.length - 1 ? ",\n" : "\n"); });
        out.push(ind + "}" + close);
      } else out.push(open + esc(JSON.stringify(x)) + close);
    }
    walk(v, "$", "");
    // A path absent on this side is listed above; mark where it would be.
    return out.join("");
  }

  // The charts.
  function charts() {
    const pct = [0.5, 0.9, 0.99], lat = pct.map(() => []), due = [], sent = [];
    for (let i = 0; i < buckets.length; i++) {
      const b = buckets[i], sec = bw / 1e6;
      due.push(b.due / sec); sent.push(b.sent / sec);
      pct.forEach((p, k) => lat[k].push(b.n ? quant(b, p) / 1000 : null));
    }
    plot(q("clat"), lat, ["#2f9e44", "#f08c00", "#e03131"], ["p50", "p90", "p99"]);
    plot(q("crate"), [sent, due], ["#4c6ef5", "#495057"], ["achieved", "intended"]);
  }
  function quant(b, p) { let want = p * b.n, c = 0; for (let j = 0; j < NH; j++) { c += b.h[j]; if (c >= want) return hValue(j); } return hValue(NH - 1); }
  function plot(c, series, cols, lbl) {
    const g = c.getContext("2d"), w = c.width, h = c.height;
    g.clearRect(0, 0, w, h);
    let max = 0, n = 0;
    for (const s of series) { n = Math.max(n, s.length); for (const v of s) if (v != null && v > max) max = v; }
    g.fillStyle = "#6b7480"; g.font = "10px system-ui";
    g.fillText(fmtNum(max), 2, 10); g.fillText("0", 2, h - 12);
    g.fillText(fmtUs(n * bw), w - 40, h - 2);
    series.forEach((s, k) => {
      g.strokeStyle = cols[k]; g.fillStyle = cols[k]; g.lineWidth = 1.5; g.setLineDash(k === 1 && series.length === 2 ? [4, 3] : []);
      g.beginPath(); let pen = false;
      s.forEach((v, i) => {
        if (v == null) { pen = false; return; }
        const x = 30 + (i / Math.max(n - 1, 1)) * (w - 36), y = h - 14 - (max ? (v / max) * (h - 28) : 0);
        if (pen) g.lineTo(x, y); else g.moveTo(x, y);
        g.fillRect(x - 1, y - 1, 2, 2); pen = true;
      });
      g.stroke(); g.setLineDash([]); g.fillText(lbl[k], 40 + k * 55, 10);
    });
  }
  function fmtNum(v) { return v >= 1e6 ? (v / 1e6).toFixed(1) + "M" : v >= 1e3 ? (v / 1e3).toFixed(1) + "k" : v >= 10 ? v.toFixed(0) : v.toPrecision(2); }

  // The header, the filters' options, the debugger's state.
  let known = { m: 0, t: 0 };
  function header() {
    q("counts").textContent = count(lanes.length, "session") + " · " + count(msgs.size, "message") + " · " + checked + " checked · " + failedN + " not passed · " + fmtUs(runEnded ? runEnded.t : tMax);
    q("run").textContent = runEnded ? "ended" + (runEnded.d ? ": " + runEnded.d : "") : "running";
    if (lost) { q("lost").classList.remove("hidden"); q("lost").textContent = count(lost, "earlier event") + " not kept (journal bound)"; }
    if (methods.size !== known.m) { known.m = methods.size; options(q("fmethod"), methods); }
    if (tools.size !== known.t) { known.t = tools.size; options(q("ftool"), tools); }
    if (result) {
      const v = q("verdict"); v.classList.remove("hidden");
      v.className = "badge " + (result.passed ? "ok" : "bad");
      v.textContent = (result.passed ? "PASSED" : "FAILED") + " (exit " + result.exit + ")" + (result.aborted ? ": " + result.aborted : "");
      q("thresholds").innerHTML = result.thresholds.map((t) => '<li class="' + (t.passed ? "ok" : "bad") + '">' + esc(t.expr) + " — " + esc(t.value) + (t.passed ? " ✓" : " ✗") + "</li>").join("") || "<li>none</li>";
    } else q("thresholds").innerHTML = thresholds.map((t) => "<li>" + esc(t) + " — pending</li>").join("") || "<li>none</li>";
    if (state) {
      const s = q("state"); s.textContent = state.state + " before seq " + state.next + " " + (state.reason ? "(" + state.reason + ") " : "") + "· " + state.speed + " · released " + state.released + ", sent " + state.sent + ", checked " + checked; // the REPL's status line
      s.className = "badge " + (state.state === "paused" ? "paused" : "");
      q("bps").innerHTML = state.breakpoints.map((b) => '<span class="bp">#' + b.id + " " + esc(b.spec) + ' <button type="button" data-bp="' + b.id + '">×</button></span>').join(" ");
    }
  }
  function options(sel, set) {
    const cur = sel.value;
    sel.innerHTML = '<option value="">all</option>' + [...set].sort().map((v) => "<option>" + esc(v) + "</option>").join("");
    sel.value = cur;
  }
  for (const [id, f] of [["fmethod", "method"], ["ftool", "tool"], ["fverdict", "verdict"]]) q(id).onchange = (e) => { F[f] = e.target.value; dirty = true; };
  q("fsession").oninput = (e) => { F.session = e.target.value; dirty = true; };

  // The debugger's commands: the same controller as the REPL's.
  async function control(cmd, arg) {
    q("ctlerr").textContent = "";
    try {
      const r = await fetch("api/control?token=" + encodeURIComponent(token), { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ cmd, arg: arg || "" }) });
      const j = await r.json();
      if (!j.ok) q("ctlerr").textContent = cmd + ": " + j.error;
      // The state shown is the feed's: a reply can arrive after a newer
      // state event (resume, then a breakpoint), and must not undo it.
      return j;
    } catch (e) { q("ctlerr").textContent = cmd + ": " + e; }
  }
  q("pause").onclick = () => control("pause");
  q("resume").onclick = () => control("resume");
  q("step").onclick = () => control("step", "1");
  q("seek").onclick = () => control("seek", q("seekarg").value);
  q("break").onclick = () => control("break", q("breakarg").value);
  q("speed").onclick = () => control("speed", q("speedarg").value);
  q("bps").onclick = (e) => { const id = e.target.getAttribute("data-bp"); if (id) control("delete", id); };
  q("legend").innerHTML = Object.entries(COLORS).map(([k, c]) => '<i style="background:' + c + '"></i>' + k).join("") + '<i style="background:#fd7e14"></i>lag<i style="background:#adb5bd"></i>held<i style="background:#e03131;clip-path:polygon(0 0,100% 0,50% 100%)"></i>fault' +
    '<i style="border:1px solid #7048e8"></i>MRTR rounds<i style="border:1px solid #0c8599"></i>task polls';

  // The feed.
  function hello(h) {
    (h.names || []).forEach((n, i) => { names[i] = n; });
    lost = h.lost; debug = h.debug; thresholds = h.thresholds || [];
    if (h.title) { q("title").textContent = h.title; document.title = "replayctl · " + h.title; }
    if (h.state) state = h.state;
    if (h.result) result = h.result;
    q("debug").classList.toggle("hidden", !debug);
    dirty = true;
  }
  function frame(f) {
    if (f.id <= lastFrame) return; // seen before a reconnect
    for (let i = 0; i < f.names.length; i++) names[f.base + i] = f.names[i];
    for (const l of lanes) if (l.name === "?") l.name = names[l.si];
    for (const ev of f.ev) apply(ev);
    lastFrame = f.id; dirty = true;
  }
  function connect() {
    const es = new EventSource("events?token=" + encodeURIComponent(token) + (lastFrame ? "&last=" + lastFrame : ""));
    es.addEventListener("hello", (e) => { q("conn").textContent = "live"; q("conn").className = "badge ok"; hello(JSON.parse(e.data)); });
    es.addEventListener("state", (e) => { state = JSON.parse(e.data); dirty = true; });
    es.addEventListener("result", (e) => { result = JSON.parse(e.data); dirty = true; });
    es.onmessage = (e) => frame(JSON.parse(e.data));
    es.onerror = () => {
      q("conn").textContent = "reconnecting"; q("conn").className = "badge off";
      if (es.readyState === EventSource.CLOSED) { es.close(); setTimeout(connect, 1000); }
    };
    api.source = es;
  }
  function render() {
    if (dirty) { dirty = false; draw(); charts(); header(); }
  }
  function tick() {
    render();
    requestAnimationFrame(tick);
  }

  // What tests (and the curious) read: window.replayView.
  const api = {
    lanes: () => lanes.map((l) => l.name),
    shownLanes: () => rows.map((l) => l.name),
    messages: () => [...msgs.values()].map((m) => ({ session: m.lane.name, seq: m.seq, method: m.method, verdict: m.verdict, kind: m.kind, dir: m.dir, fault: m.fault })),
    groups: () => lanes.flatMap((l) => groupsOf(l.msgs).map((g) => ({ session: l.name, kind: g.kind, seqs: g.msgs.map((m) => m.seq), label: groupLabel(g) }))),
    state: () => state, result: () => result, lastFrame: () => lastFrame, lost: () => lost, runEnded: () => runEnded,
    // point: where on the page the bar of a message shows, scrolled into
    // view, as drawn from every event come so far.
    point(session, seq) {
      render();
      const r = rows.findIndex((l) => l.name === session);
      if (r < 0) return null;
      const y = AXIS + r * ROW;
      if (y - AXIS < box.scrollTop || y + ROW > box.scrollTop + box.clientHeight) { box.scrollTop = Math.max(0, y - AXIS - 40); draw(); }
      const m = rows[r].msgs.find((x) => x.seq === seq);
      if (!m || m.x0 === undefined || !shown(m)) return null;
      const rc = cv.getBoundingClientRect();
      return { x: rc.left + spot(m), y: rc.top + y - box.scrollTop + (m.y0 + m.y1) / 2 };
    },
    control, drawn: 0, opened: null,
  };
  window.replayView = api;
  if (FROZEN) { hello(FROZEN.hello); for (const f of FROZEN.frames) frame(f); q("conn").textContent = "report"; }
  else connect();
  requestAnimationFrame(tick);
})();

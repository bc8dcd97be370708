// locksim report: draws the timeline from the JSON in #report-data.
// Everything is inline; no network access. Errors end up in
// document.body.dataset.errors, and dataset.ready is "1" when done.
(function () {
  "use strict";
  var errors = [];
  function fail(msg) {
    errors.push(String(msg));
    document.body.dataset.errors = errors.join(" | ");
  }
  window.addEventListener("error", function (e) { fail(e.message || "error"); });

  var svg = document.getElementById("lanes");
  if (!svg) { // a check's page with no failing case: nothing to draw
    document.body.dataset.ready = "1";
    return;
  }
  var NS = svg.namespaceURI;
  var PALETTE = ["#2563eb", "#db2777", "#0891b2", "#65a30d", "#d97706", "#7c3aed", "#475569", "#be123c"];
  var LABEL_W = 160, RIGHT = 16, TOP = 50, BAND = 16, ROW_H = 22, LANE_GAP = 6, BOTTOM = 10;

  // view.label says what the view shows: "all" (the whole run), "v1"
  // (violation 1) or "custom" (zoomed or panned by hand).
  var dragMoved = false;
  var data, tl, colors = {}, tips = [], view = { t0: 0, t1: 1, label: "all" }, full = { t0: 0, t1: 1 };

  function el(name, attrs, parent) {
    var n = document.createElementNS(NS, name);
    if (attrs) {
      for (var k in attrs) {
        if (Object.prototype.hasOwnProperty.call(attrs, k)) { n.setAttribute(k, attrs[k]); }
      }
    }
    if (parent) { parent.appendChild(n); }
    return n;
  }
  function text(parent, x, y, s, cls) {
    var t = el("text", { x: x, y: y }, parent);
    if (cls) { t.setAttribute("class", cls); }
    t.textContent = s;
    return t;
  }

  // fmtT renders nanoseconds like the Go side: "1.050000s".
  function fmtT(ns) {
    var neg = ns < 0;
    if (neg) { ns = -ns; }
    var us = Math.floor(ns / 1000);
    var s = Math.floor(us / 1e6), frac = String(us % 1e6);
    while (frac.length < 6) { frac = "0" + frac; }
    return (neg ? "-" : "") + s + "." + frac + "s";
  }
  // fmtMs renders nanoseconds for people as the Go side's msText does:
  // milliseconds with one decimal and commas ("1,049.1 ms", "1,500.0 ms"),
  // three decimals below 0.1 ms ("0.012 ms"), "0 ms" for zero.
  function fmtMs(ns) {
    var sign = ns < 0 ? "-" : "", a = Math.abs(ns);
    if (a === 0) { return "0 ms"; }
    if (a < 1e5) {
      var us = String(Math.floor((a + 500) / 1000));
      while (us.length < 3) { us = "0" + us; }
      return sign + "0." + us + " ms";
    }
    var tenths = Math.floor((a + 5e4) / 1e5), ip = String(Math.floor(tenths / 10)), f = tenths % 10;
    for (var i = ip.length - 3; i > 0; i -= 3) { ip = ip.slice(0, i) + "," + ip.slice(i); }
    return sign + ip + "." + f + " ms";
  }
  function tickStep(span, n) {
    for (var p = 1; p < 1e18; p *= 10) {
      var fs = [1, 2, 5];
      for (var i = 0; i < fs.length; i++) {
        if (span / (fs[i] * p) <= n) { return fs[i] * p; }
      }
    }
    return span;
  }
  function tickLabel(ns, step) {
    var unit = 1e9, name = "s";
    if (step < 1e3) { unit = 1; name = "ns"; } else if (step < 1e6) { unit = 1e3; name = "us"; } else if (step < 1e8) { unit = 1e6; name = "ms"; }
    var dec = 0;
    for (var u = unit; dec < 9 && Math.round(step) % u !== 0; u /= 10) { dec++; }
    return (ns / unit).toFixed(dec) + name;
  }

  // The plot spans LABEL_W..LABEL_W+plotW(); time maps inside it with a
  // margin of PAD pixels so marks at the edges stay whole.
  var PAD = 8;
  function x(t) {
    return LABEL_W + PAD + (t - view.t0) / (view.t1 - view.t0) * (plotW() - 2 * PAD);
  }
  function plotW() { return Math.max(200, chartWidth() - LABEL_W - RIGHT); }
  function chartWidth() {
    var c = document.getElementById("chart");
    return Math.max(640, c.clientWidth || 0);
  }
  function tAtX(px) { return view.t0 + (px - LABEL_W - PAD) / (plotW() - 2 * PAD) * (view.t1 - view.t0); }

  function ownerColor(o) { return colors[o] || "#6b7280"; }

  function addTip(node, title, at, detail, extra) {
    tips.push({ title: title, at: at, detail: detail, extra: extra || "" });
    node.setAttribute("data-tip", String(tips.length - 1));
  }

  // Span styles: fill, opacity, height fraction, dash.
  function spanStyle(s) {
    var c = ownerColor(s.owner);
    switch (s.kind) {
      case "held": return { fill: c, op: 0.9, h: 0.62 };
      case "acquiring": return { fill: "#d1d5db", op: 1, h: 0.3 };
      case "lease": return { fill: c, op: 0.3, h: 0.5, stroke: c };
      case "paused": return { fill: "url(#hatch-pause)", op: 1, h: 0.62, stroke: "#d97706" };
      case "crashed": return { fill: "#7f1d1d", op: 0.85, h: 0.62 };
      case "key": return { fill: c, op: 0.35, h: 0.7, stroke: c };
      case "down": return { fill: "url(#hatch-down)", op: 1, h: 0.7, stroke: "#374151" };
      case "partition": return { fill: "#a855f7", op: 0.3, h: 0.62, stroke: "#7e22ce" };
      case "danger-none": return { fill: "#86efac", op: 0.7, h: 0.5 };
      case "danger-liveness": return { fill: "#60a5fa", op: 0.8, h: 0.62 };
      case "danger-lease": return { fill: "#f59e0b", op: 0.85, h: 0.7 };
      case "danger-data": return { fill: "#dc2626", op: 0.9, h: 0.8 };
    }
    return { fill: "#9ca3af", op: 0.6, h: 0.5 };
  }

  var MARKS = {
    "acquired": ["tri", "#15803d"], "reacquired": ["tri", "#65a30d"],
    "acquire-failed": ["diamond", "#ea580c"], "lease-lost": ["diamond", "#ea580c"],
    "write-prepared": ["hollow", "#374151"],
    "write": ["ring", "#374151"], "write-ok": ["dot", "#15803d"], "write-rejected": ["xdot", "#dc2626"],
    "res-ok": ["dot", "#15803d"], "res-rejected": ["xdot", "#dc2626"],
    "res-read": ["read", "#2563eb"], "res-read-refused": ["read", "#ea580c"],
    "release": ["square", "#4b5563"], "released": ["small", "#9ca3af"],
    "renew": ["diamond", "#0d9488"], "renew-failed": ["diamond", "#dc2626"], "watchdog-stop": ["diamond", "#dc2626"],
    "crash": ["cross", "#7f1d1d"], "node-crash": ["cross", "#7f1d1d"],
    "restart": ["up", "#15803d"], "node-up": ["up", "#15803d"],
    "expired": ["cross", "#dc2626"], "deleted": ["bar", "#374151"], "evicted": ["cross", "#ea580c"],
    "promote": ["up", "#2563eb"], "demote": ["down", "#2563eb"],
    "clock-jump": ["diamond", "#7c3aed"], "clock-drift": ["ring", "#7c3aed"],
    "heal": ["bar", "#7e22ce"], "net-delay": ["diamond", "#7e22ce"], "net-drop": ["cross", "#7e22ce"],
    "node-stall": ["diamond", "#b45309"], "node-resume": ["up", "#b45309"],
    "starve": ["diamond", "#ca8a04"], "starve-end": ["up", "#ca8a04"],
    "memory-pressure": ["diamond", "#0f766e"],
    "error": ["ring", "#dc2626"]
  };
  var MARK_NAMES = {
    "acquired": "acquired", "reacquired": "nested hold", "acquire-failed": "acquire gave up", "lease-lost": "lease lost",
    "write-prepared": "write prepared (sent later)",
    "write": "write (no answer)", "write-ok": "write accepted (sent here)", "write-rejected": "write rejected (sent here)",
    "res-ok": "write applied by the resource", "res-rejected": "write refused by the resource",
    "res-read": "read served by the resource", "res-read-refused": "read refused by the resource",
    "release": "release", "released": "release finished", "renew": "renewed", "renew-failed": "renewal failed",
    "watchdog-stop": "watchdog stopped", "crash": "crash", "node-crash": "node crash", "node-up": "node restart",
    "restart": "restart", "expired": "key expired", "deleted": "key deleted", "evicted": "key evicted",
    "promote": "promoted", "demote": "demoted", "clock-jump": "clock jump", "clock-drift": "clock rate",
    "heal": "partition healed", "net-delay": "network delay", "net-drop": "network drop", "error": "task error",
    "node-stall": "node stalled", "node-resume": "node serves again",
    "starve": "task starved of CPU", "starve-end": "starved task runs again",
    "memory-pressure": "memory pressure (a burst of other data)"
  };
  var SPAN_NAMES = {
    "acquiring": "acquiring", "held": "holding (critical section)", "lease": "believed lease",
    "paused": "paused", "crashed": "crashed", "key": "key on node (by owner)", "down": "node down",
    "partition": "partition",
    "danger-none": "danger: no single fault here breaks anything",
    "danger-liveness": "danger: one fault here stalls the lock (liveness)",
    "danger-lease": "danger: one fault here breaks the lease, the data holds",
    "danger-data": "danger: one fault here can lose data"
  };

  function drawMark(g, kind, cx, cy, r, cited) {
    var m = MARKS[kind] || ["dot", "#6b7280"];
    var shape = m[0], c = m[1], n;
    var grp = el("g", null, g);
    if (cited) { el("circle", { cx: cx, cy: cy, r: r + 4, fill: "none", stroke: "#dc2626", "stroke-width": 2 }, grp); }
    switch (shape) {
      case "tri":
        n = el("path", { d: "M" + (cx - r) + " " + (cy - r) + "L" + (cx + r) + " " + cy + "L" + (cx - r) + " " + (cy + r) + "Z", fill: c }, grp); break;
      case "up":
        n = el("path", { d: "M" + (cx - r) + " " + (cy + r) + "L" + cx + " " + (cy - r) + "L" + (cx + r) + " " + (cy + r) + "Z", fill: c }, grp); break;
      case "down":
        n = el("path", { d: "M" + (cx - r) + " " + (cy - r) + "L" + cx + " " + (cy + r) + "L" + (cx + r) + " " + (cy - r) + "Z", fill: c }, grp); break;
      case "diamond":
        n = el("path", { d: "M" + cx + " " + (cy - r) + "L" + (cx + r) + " " + cy + "L" + cx + " " + (cy + r) + "L" + (cx - r) + " " + cy + "Z", fill: c }, grp); break;
      case "square":
        n = el("rect", { x: cx - r * 0.8, y: cy - r * 0.8, width: r * 1.6, height: r * 1.6, fill: c }, grp); break;
      case "small":
        n = el("circle", { cx: cx, cy: cy, r: r * 0.45, fill: c }, grp); break;
      case "hollow":
        n = el("rect", { x: cx - r * 0.75, y: cy - r * 0.75, width: r * 1.5, height: r * 1.5, fill: "#fff", stroke: c, "stroke-width": 2 }, grp); break;
      case "read":
        // A chevron, as the text report's 'v'.
        el("rect", { x: cx - r, y: cy - r, width: 2 * r, height: 2 * r, fill: "transparent" }, grp);
        n = el("path", { d: "M" + (cx - r) + " " + (cy - r * 0.7) + "L" + cx + " " + (cy + r * 0.8) + "L" + (cx + r) + " " + (cy - r * 0.7),
          stroke: c, "stroke-width": 2.5, fill: "none", "stroke-linecap": "round", "stroke-linejoin": "round" }, grp); break;
      case "ring":
        n = el("circle", { cx: cx, cy: cy, r: r * 0.85, fill: "#fff", stroke: c, "stroke-width": 2 }, grp); break;
      case "bar":
        n = el("rect", { x: cx - 1.5, y: cy - r - 1, width: 3, height: 2 * r + 2, fill: c }, grp); break;
      case "cross":
        n = el("path", { d: "M" + (cx - r) + " " + (cy - r) + "L" + (cx + r) + " " + (cy + r) + "M" + (cx + r) + " " + (cy - r) + "L" + (cx - r) + " " + (cy + r), stroke: c, "stroke-width": 3, fill: "none" }, grp);
        el("rect", { x: cx - r, y: cy - r, width: 2 * r, height: 2 * r, fill: "transparent" }, grp); break;
      case "xdot":
        n = el("circle", { cx: cx, cy: cy, r: r, fill: c }, grp);
        el("path", { d: "M" + (cx - r / 2) + " " + (cy - r / 2) + "L" + (cx + r / 2) + " " + (cy + r / 2) + "M" + (cx + r / 2) + " " + (cy - r / 2) + "L" + (cx - r / 2) + " " + (cy + r / 2), stroke: "#fff", "stroke-width": 1.6 }, grp); break;
      default:
        n = el("circle", { cx: cx, cy: cy, r: r, fill: c }, grp);
    }
    return grp;
  }

  function defs() {
    var d = el("defs", null, svg);
    var p = el("pattern", { id: "hatch-pause", width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, d);
    el("rect", { width: 6, height: 6, fill: "#fef3c7" }, p);
    el("rect", { width: 3, height: 6, fill: "#fbbf24" }, p);
    var q = el("pattern", { id: "hatch-down", width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(-45)" }, d);
    el("rect", { width: 6, height: 6, fill: "#e5e7eb" }, q);
    el("rect", { width: 2, height: 6, fill: "#6b7280" }, q);
    [["arrow-ok", "#15803d"], ["arrow-bad", "#dc2626"], ["arrow-hit", "#7c3aed"]].forEach(function (a) {
      var mk = el("marker", { id: a[0], viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, d);
      el("path", { d: "M0 0L10 5L0 10Z", fill: a[1] }, mk);
    });
    var clip = el("clipPath", { id: "plot-clip" }, d);
    return clip;
  }

  // A danger map's danger rows are the point of the page: drawn taller.
  var DANGER_H = 36;
  function rowHeight(r) { return r.name === "danger" ? DANGER_H : ROW_H; }
  function laneHeight(l) {
    var h = LANE_GAP;
    for (var i = 0; i < l.rows.length; i++) { h += rowHeight(l.rows[i]); }
    return h;
  }

  function render() {
    while (svg.firstChild) { svg.removeChild(svg.firstChild); }
    tips = [];
    // One band per violation window under the axis labels.
    TOP = 34 + Math.max(1, (tl.windows || []).length) * BAND;
    var W = chartWidth();
    var H = TOP;
    for (var i = 0; i < tl.lanes.length; i++) { H += laneHeight(tl.lanes[i]); }
    H += BOTTOM;
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("width", W);
    svg.setAttribute("height", H);
    var clip = defs();
    el("rect", { x: LABEL_W, y: 0, width: plotW(), height: H }, clip);

    // Axis and grid.
    var span = view.t1 - view.t0;
    var step = tickStep(span, Math.max(2, Math.floor(plotW() / 90)));
    var axis = el("g", { "class": "tick" }, svg);
    var first = Math.ceil(view.t0 / step) * step;
    for (var t = first; t <= view.t1 + 1e-9; t += step) {
      var px = x(t);
      el("line", { x1: px, x2: px, y1: 18, y2: TOP - 4, "class": "grid" }, axis);
      text(axis, px + 3, 14, tickLabel(t, step));
    }
    el("line", { x1: LABEL_W, x2: LABEL_W + plotW(), y1: TOP - 4, y2: TOP - 4, stroke: "#d1d5db" }, axis);

    // Lanes.
    var y = TOP, rowY = {};
    for (var li = 0; li < tl.lanes.length; li++) {
      var l = tl.lanes[li];
      // Write links attach to the lane's first row that is not a danger row.
      var lead = l.rows.length && l.rows[0].name === "danger" ? DANGER_H : 0;
      rowY[l.kind === "resource" ? "resource" : l.id] = y + lead + ROW_H / 2 + 1;
      var g = el("g", { "class": "lane", "data-lane": l.id, "data-kind": l.kind }, svg);
      var lh = laneHeight(l);
      el("rect", { x: 0, y: y, width: W, height: lh - 2, fill: li % 2 ? "#ffffff" : "#f9fafb" }, g);
      var idText = text(g, 8, y + 15, l.id, "lane-id");
      if (l.kind === "client") { idText.setAttribute("style", "fill:" + ownerColor(l.id)); }
      for (var ri = 0, ry = y; ri < l.rows.length; ry += rowHeight(l.rows[ri]), ri++) {
        var rw = l.rows[ri], rh = rowHeight(rw);
        var cy = ry + rh / 2 + 1;
        var rn = text(g, 96, cy + 4, rw.name, "row-name");
        if (rw.name === "danger") { rn.setAttribute("class", "row-name danger-row"); }
        var rowG = el("g", { "class": "row", "data-row": rw.name }, g);
        var body = el("g", { "clip-path": "url(#plot-clip)" }, rowG);
        var spans = rw.spans || [];
        for (var si = 0; si < spans.length; si++) {
          var s = spans[si], st = spanStyle(s);
          var sx0 = x(s.from_ns), sx1 = Math.max(x(s.to_ns), sx0 + 2);
          if (sx1 < LABEL_W - 2 || sx0 > W) { continue; }
          var h = rh * st.h;
          var rect = el("rect", { x: sx0, y: cy - h / 2, width: sx1 - sx0, height: h, rx: 2, fill: st.fill, "fill-opacity": st.op }, body);
          if (st.stroke) { rect.setAttribute("stroke", st.stroke); rect.setAttribute("stroke-width", 1); }
          if (s.kind === "held" && s.lost_ns) {
            // Believed, not held: from when its lease was gone the client
            // still acts as the holder; drawn hollow and dashed.
            var lx0 = Math.max(x(s.lost_ns), sx0);
            var bel = el("rect", { x: lx0, y: cy - h / 2, width: Math.max(sx1 - lx0, 2), height: h, rx: 2, fill: "#ffffff", "fill-opacity": 0.75,
              stroke: ownerColor(s.owner), "stroke-width": 1.5, "stroke-dasharray": "4 2", "class": "believed" }, body);
            addTip(bel, "believed, not held (" + s.owner + ")", s.lost_ns, s.owner + " still acts as the holder, but its lease was gone",
              "from " + fmtMs(s.lost_ns) + " until " + fmtMs(s.to_ns) + ", " + fmtMs(s.to_ns - s.lost_ns));
          }
          addTip(rect, (SPAN_NAMES[s.kind] || s.kind) + (s.owner ? " (" + s.owner + ")" : ""), s.from_ns,
            s.detail, "until " + fmtMs(s.to_ns) + (s.open ? " (still going at the end)" : "") + ", " + fmtMs(s.to_ns - s.from_ns));
          var label = s.label || (s.kind === "held" ? s.owner : "");
          var vis0 = Math.max(sx0, LABEL_W), vis1 = Math.min(sx1, LABEL_W + plotW());
          if (label && vis1 - vis0 > label.length * 6 + 8) { text(body, vis0 + 4, cy + 4, label, "span-label"); }
        }
        var marks = (rw.marks || []).slice().sort(function (a, b) { return a.at_ns - b.at_ns; });
        var lastX = -1e9;
        for (var mi = 0; mi < marks.length; mi++) {
          // Marks at one instant (or closer than a mark's width) sit side by
          // side, in time order, rather than on top of each other.
          var m = marks[mi], mx = Math.max(x(m.at_ns), lastX + 11);
          if (mx > LABEL_W + plotW() - 2) { mx = x(m.at_ns); } // no room left at the edge: its own place
          lastX = mx;
          if (mx < LABEL_W - 6 || mx > W) { continue; }
          var mg = drawMark(body, m.kind, mx, cy, 5, m.cited);
          mg.setAttribute("data-mark", m.kind);
          addTip(mg, (MARK_NAMES[m.kind] || m.kind) + (m.label ? " - " + m.label : ""), m.at_ns, m.detail, m.cited ? "cited by a violation" : "");
        }
      }
      y += lh;
    }
    drawLinks(rowY);
    drawHits(rowY);
    // Grid lines over the lane backgrounds.
    var grid = el("g", { "pointer-events": "none" }, svg);
    for (var gt = first; gt <= view.t1 + 1e-9; gt += step) {
      el("line", { x1: x(gt), x2: x(gt), y1: TOP - 4, y2: H - BOTTOM, stroke: "#9ca3af", "stroke-opacity": 0.25 }, grid);
    }

    // Violation windows: a band under the axis and a shade over the lanes.
    var wins = el("g", { "clip-path": "url(#plot-clip)", "class": "windows" }, svg);
    for (var w = 0; w < (tl.windows || []).length; w++) {
      var win = tl.windows[w];
      var x0 = x(win.from_ns), x1 = Math.max(x(win.to_ns), x0 + 3);
      el("rect", { x: x0, y: TOP - 4, width: x1 - x0, height: H - TOP - BOTTOM + 4, fill: "#dc2626", "fill-opacity": 0.1,
        stroke: "#dc2626", "stroke-opacity": 0.7, "stroke-dasharray": "4 3", "pointer-events": "none" }, wins);
      var band = el("g", { "class": "win-band", "data-violation": win.index }, wins);
      var by = 22 + w * BAND;
      el("rect", { x: x0, y: by, width: x1 - x0, height: BAND - 2, fill: "#dc2626", rx: 2 }, band);
      var lbl = "#" + win.index + " " + win.invariant;
      var lx = Math.max(x1, LABEL_W) + 4;
      var inside = x1 - Math.max(x0, LABEL_W) > lbl.length * 6.5 + 8;
      if (inside) { lx = Math.max(x0, LABEL_W) + 4; } else if (lx + lbl.length * 6.5 > LABEL_W + plotW()) { lx = Math.max(LABEL_W + 2, x0 - 4 - lbl.length * 6.5); }
      var lt = text(band, lx, by + 11, lbl, "win-label");
      if (inside) { lt.setAttribute("style", "fill:#fff"); }
      addTip(band, "violation " + win.index + ": " + win.invariant, win.from_ns,
        "from " + fmtMs(win.from_ns) + " to " + fmtMs(win.to_ns) + ", " + fmtMs(win.to_ns - win.from_ns) + (win.clients ? " (" + win.clients.join(", ") + ")" : ""),
        "click to zoom on it");
    }

    var vr = document.getElementById("view-range");
    if (vr) {
      vr.textContent = fmtMs(view.t0) + " to " + fmtMs(view.t1) +
        (view.label === "all" ? " (the whole run)" : view.label === "story" ? " (the violations' story; \"whole run\" shows it all)" : view.label.charAt(0) !== "v" ? "" :
          view.label.indexOf(",") < 0 ? " (violation " + view.label.slice(1) + ")" : " (violations " + view.label.slice(1).split(",").join(", ") + ")");
    }
    document.body.dataset.zoom = view.label;
    svg.setAttribute("data-view-from-ns", String(Math.round(view.t0)));
    svg.setAttribute("data-view-to-ns", String(Math.round(view.t1)));
  }

  // drawLinks joins each write the resource answered: from where the
  // client prepared it (along the bottom of its row while it waited, when
  // the request left later) to the resource's mark, with an arrow.
  function drawLinks(rowY) {
    var links = tl.links || [];
    if (!links.length || rowY.resource === undefined) { return; }
    var g = el("g", { "clip-path": "url(#plot-clip)", "class": "links" }, svg);
    links.forEach(function (k) {
      var yc = rowY[k.client];
      if (yc === undefined) { return; }
      var xp = x(k.prepared_ns), xs = x(k.sent_ns), xr = x(k.applied_ns), yr = rowY.resource;
      var yb = yc + ROW_H / 2 - 3, d = "M" + xp + " " + yc;
      var y0 = yc;
      if (k.sent_ns !== k.prepared_ns) { d += "L" + xp + " " + yb + "L" + xs + " " + yb; y0 = yb; }
      // End the arrow at the edge of the resource's mark.
      var dx = xr - xs, dy = yr - y0, len = Math.sqrt(dx * dx + dy * dy) || 1;
      d += "L" + (xr - dx / len * 6) + " " + (yr - dy / len * 6);
      var c = k.accepted ? "#15803d" : "#dc2626";
      var lg = el("g", { "class": "link", "data-client": k.client, "data-seq": k.seq }, g);
      el("path", { d: d, fill: "none", stroke: "transparent", "stroke-width": 8 }, lg);
      var p = el("path", { d: d, fill: "none", stroke: c, "stroke-width": 1.5, "stroke-opacity": 0.7,
        "marker-end": "url(#" + (k.accepted ? "arrow-ok" : "arrow-bad") + ")" }, lg);
      if (k.sent_ns !== k.prepared_ns) { p.setAttribute("stroke-dasharray", "5 3"); }
      addTip(lg, "write by " + k.client + (k.accepted ? ", applied" : ", refused") + " by the resource", k.prepared_ns, k.detail,
        (k.sent_ns !== k.prepared_ns ? "prepared " + fmtMs(k.prepared_ns) + ", " : "") + "sent " + fmtMs(k.sent_ns) +
        ", answered " + fmtMs(k.applied_ns) + " (" + fmtMs(k.applied_ns - k.prepared_ns) + " after it was prepared)");
    });
  }

  // drawHits joins each command that changed another client's key: from
  // where the client sent it to where the node ran it, so a late command
  // points at the key it hit.
  function drawHits(rowY) {
    var hits = tl.hits || [];
    if (!hits.length) { return; }
    var g = el("g", { "clip-path": "url(#plot-clip)", "class": "hits" }, svg);
    hits.forEach(function (k) {
      var yc = rowY[k.client], yn = rowY[k.node];
      if (yc === undefined || yn === undefined) { return; }
      var xs = x(k.sent_ns), xa = x(k.applied_ns);
      var dx = xa - xs, dy = yn - yc, len = Math.sqrt(dx * dx + dy * dy) || 1;
      var d = "M" + xs + " " + yc + "L" + (xa - dx / len * 6) + " " + (yn - dy / len * 6);
      var hg = el("g", { "class": "hit", "data-client": k.client, "data-node": k.node, "data-seq": k.seq }, g);
      el("path", { d: d, fill: "none", stroke: "transparent", "stroke-width": 8 }, hg);
      el("path", { d: d, fill: "none", stroke: "#7c3aed", "stroke-width": 1.5, "stroke-dasharray": "3 2", "marker-end": "url(#arrow-hit)" }, hg);
      addTip(hg, "a command that hit another client's key", k.sent_ns, k.detail, "sent " + fmtMs(k.sent_ns) + ", ran " + fmtMs(k.applied_ns));
    });
  }

  function legend() {
    var box = document.getElementById("legend");
    if (!box) { return; }
    var seenS = {}, seenM = {};
    tl.lanes.forEach(function (l) {
      l.rows.forEach(function (r) {
        (r.spans || []).forEach(function (s) { seenS[s.kind] = s.owner || true; });
        (r.marks || []).forEach(function (m) { seenM[m.kind] = true; });
      });
    });
    Object.keys(SPAN_NAMES).forEach(function (k) {
      if (!seenS[k]) { return; }
      var item = document.createElement("span");
      var s = el("svg", { viewBox: "0 0 26 14" }, item);
      // Owner-coloured spans (holding, lease, key) show in neutral grey here:
      // the client swatches below give each owner's colour.
      var st = spanStyle({ kind: k, owner: "" });
      var r = el("rect", { x: 1, y: 7 - 12 * st.h / 2, width: 24, height: 12 * st.h, fill: st.fill, "fill-opacity": st.op }, s);
      if (st.stroke) { r.setAttribute("stroke", st.stroke); }
      item.appendChild(document.createTextNode(SPAN_NAMES[k]));
      box.appendChild(item);
    });
    Object.keys(MARK_NAMES).forEach(function (k) {
      if (!seenM[k]) { return; }
      var item = document.createElement("span");
      var s = el("svg", { viewBox: "0 0 26 14" }, item);
      drawMark(s, k, 13, 7, 5, false);
      item.appendChild(document.createTextNode(MARK_NAMES[k]));
      box.appendChild(item);
    });
    if ((tl.links || []).length) {
      var li = document.createElement("span");
      var ls = el("svg", { viewBox: "0 0 26 14" }, li);
      el("path", { d: "M2 7L24 7", stroke: "#15803d", "stroke-width": 1.5, "marker-end": "url(#arrow-ok)" }, ls);
      li.appendChild(document.createTextNode("a write, from where it was prepared (dashed while it waited to be sent) to the resource's answer"));
      box.appendChild(li);
    }
    var believed = tl.lanes.some(function (l) { return l.rows.some(function (r) { return (r.spans || []).some(function (s) { return s.lost_ns; }); }); });
    if (believed) {
      var bi = document.createElement("span");
      var bs = el("svg", { viewBox: "0 0 26 14" }, bi);
      el("rect", { x: 1, y: 2, width: 24, height: 10, rx: 2, fill: "#ffffff", stroke: "#6b7280", "stroke-width": 1.5, "stroke-dasharray": "4 2" }, bs);
      bi.appendChild(document.createTextNode("believed, not held: the client still acts as the holder after its lease was gone"));
      box.appendChild(bi);
    }
    if ((tl.hits || []).length) {
      var hi = document.createElement("span");
      var hs = el("svg", { viewBox: "0 0 26 14" }, hi);
      el("path", { d: "M2 7L24 7", stroke: "#7c3aed", "stroke-width": 1.5, "stroke-dasharray": "3 2", "marker-end": "url(#arrow-hit)" }, hs);
      hi.appendChild(document.createTextNode("a command that changed another client's key, from where it was sent to where the node ran it"));
      box.appendChild(hi);
    }
    if ((tl.windows || []).length) {
      var item = document.createElement("span");
      var s = el("svg", { viewBox: "0 0 26 14" }, item);
      el("rect", { x: 1, y: 1, width: 24, height: 12, fill: "#dc2626", "fill-opacity": 0.12, stroke: "#dc2626", "stroke-dasharray": "4 3" }, s);
      item.appendChild(document.createTextNode("violation window"));
      box.appendChild(item);
    }
    var owners = data.spec && data.spec.clients ? data.spec.clients : [];
    owners.forEach(function (c) {
      var item = document.createElement("span");
      var s = el("svg", { viewBox: "0 0 26 14" }, item);
      el("rect", { x: 1, y: 2, width: 24, height: 10, rx: 2, fill: ownerColor(c) }, s);
      item.appendChild(document.createTextNode("client " + c));
      box.appendChild(item);
    });
  }

  // Zoom and pan.
  var MIN_SPAN = 1000;
  function setView(t0, t1, label) {
    var span = Math.max(MIN_SPAN, Math.min(t1 - t0, full.t1 - full.t0));
    if (t0 < full.t0) { t0 = full.t0; }
    if (t0 + span > full.t1) { t0 = full.t1 - span; }
    view.t0 = t0;
    view.t1 = t0 + span;
    view.label = label || "custom";
    render();
  }
  function wholeRun() { setView(full.t0, full.t1, "all"); markActive([]); }
  // showViolation zooms on violation i (from 1); false if there is none.
  function showViolation(i) {
    var w = (tl.windows || [])[i - 1];
    if (!w) { return false; }
    focus(w.from_ns, w.to_ns, "v" + i);
    markActive([i]);
    return true;
  }
  // showViolations zooms on the span of several violations (a group).
  function showViolations(is) {
    var ws = is.map(function (i) { return (tl.windows || [])[i - 1]; }).filter(Boolean);
    if (!ws.length) { return false; }
    var from = Math.min.apply(null, ws.map(function (w) { return w.from_ns; }));
    var to = Math.max.apply(null, ws.map(function (w) { return w.to_ns; }));
    focus(from, to, "v" + is.join(","));
    markActive(is);
    return true;
  }
  // markActive highlights the entries of the violations shown.
  function markActive(is) {
    Array.prototype.forEach.call(document.querySelectorAll("#explanation li.active"), function (n) { n.classList.remove("active"); });
    is.forEach(function (i) {
      var n = document.querySelector('#explanation li[data-violation="' + i + '"]');
      if (n) { n.classList.add("active"); }
    });
  }
  function numbersOf(s) { return String(s || "").split(" ").filter(Boolean).map(Number); }
  function zoom(factor, center) {
    if (center === undefined) { center = (view.t0 + view.t1) / 2; }
    var span = (view.t1 - view.t0) * factor;
    var f = (center - view.t0) / (view.t1 - view.t0);
    setView(center - f * span, center - f * span + span);
  }
  function focus(from, to, label) {
    var pad = Math.max((to - from) * 0.25, (full.t1 - full.t0) * 0.02, MIN_SPAN);
    setView(from - pad, to + pad, label);
  }
  function svgX(ev) {
    var r = svg.getBoundingClientRect();
    var scale = r.width > 0 ? chartWidth() / r.width : 1;
    return (ev.clientX - r.left) * scale;
  }

  function wire() {
    document.getElementById("zoom-in").addEventListener("click", function () { zoom(0.5); });
    document.getElementById("zoom-out").addEventListener("click", function () { zoom(2); });
    document.getElementById("zoom-reset").addEventListener("click", wholeRun);
    svg.addEventListener("wheel", function (ev) {
      ev.preventDefault();
      var px = svgX(ev);
      var c = px >= LABEL_W ? tAtX(px) : undefined;
      zoom(ev.deltaY < 0 ? 1 / 1.25 : 1.25, c);
    }, { passive: false });
    var chart = document.getElementById("chart"), drag = null;
    svg.addEventListener("mousedown", function (ev) {
      dragMoved = false;
      drag = { x: svgX(ev), t0: view.t0, t1: view.t1 };
      chart.classList.add("dragging");
    });
    window.addEventListener("mouseup", function () { drag = null; chart.classList.remove("dragging"); });
    var tip = document.getElementById("tip");
    svg.addEventListener("mousemove", function (ev) {
      if (drag) {
        if (Math.abs(svgX(ev) - drag.x) > 3) { dragMoved = true; }
        var dt = (svgX(ev) - drag.x) / plotW() * (drag.t1 - drag.t0);
        setView(drag.t0 - dt, drag.t1 - dt);
        tip.hidden = true;
        return;
      }
      var n = ev.target && ev.target.closest ? ev.target.closest("[data-tip]") : null;
      if (!n) { tip.hidden = true; return; }
      var d = tips[Number(n.getAttribute("data-tip"))];
      if (!d) { tip.hidden = true; return; }
      tip.textContent = "";
      var b = document.createElement("b");
      b.textContent = d.title;
      tip.appendChild(b);
      tip.appendChild(document.createTextNode("\n" + fmtMs(d.at) + " (exactly " + fmtT(d.at) + ")\n" + (d.detail || "") + (d.extra ? "\n" + d.extra : "")));
      tip.hidden = false;
      var tx = ev.clientX + 14, ty = ev.clientY + 14;
      if (tx + 470 > window.innerWidth) { tx = Math.max(4, ev.clientX - 474); }
      if (ty + tip.offsetHeight + 8 > window.innerHeight) { ty = Math.max(4, ev.clientY - tip.offsetHeight - 10); }
      tip.style.left = tx + "px";
      tip.style.top = ty + "px";
    });
    svg.addEventListener("mouseleave", function () { tip.hidden = true; });
    // A click on a violation (its entry, its button or its band on the
    // timeline) zooms on it; on a group's head, on all of its violations.
    function zoomFrom(n) {
      var ok = n.hasAttribute("data-violations") ? showViolations(numbersOf(n.getAttribute("data-violations")))
        : showViolation(Number(n.getAttribute("data-violation")));
      if (ok) { document.getElementById("timeline").scrollIntoView({ behavior: "smooth" }); }
    }
    Array.prototype.forEach.call(document.querySelectorAll("#explanation [data-violation], #explanation [data-violations]"), function (n) {
      n.addEventListener("click", function (ev) {
        if (ev.target && ev.target.closest && ev.target.closest("a, summary, details > p")) { return; }
        var own = ev.target && ev.target.closest ? ev.target.closest("[data-violation], [data-violations]") : n;
        if (own !== n) { return; } // the innermost entry handles it
        ev.stopPropagation();
        zoomFrom(n);
      });
    });
    svg.addEventListener("click", function (ev) {
      var b = ev.target && ev.target.closest ? ev.target.closest("g.win-band") : null;
      if (b && !dragMoved) { showViolation(Number(b.getAttribute("data-violation"))); }
    });
    Array.prototype.forEach.call(document.querySelectorAll("#events tbody tr"), function (tr) {
      tr.addEventListener("click", function () {
        var at = Number(tr.getAttribute("data-at"));
        var span = Math.max((full.t1 - full.t0) / 20, MIN_SPAN);
        setView(at - span / 2, at + span / 2);
        tr.classList.add("flash");
        setTimeout(function () { tr.classList.remove("flash"); }, 700);
        document.getElementById("timeline").scrollIntoView({ behavior: "smooth" });
      });
    });
    var hist = document.getElementById("history");
    if (hist) {
      hist.addEventListener("toggle", function () {
        var pre = document.getElementById("history-text");
        if (!hist.open || pre.textContent) { return; }
        pre.textContent = (data.history || []).map(eventLine).join("\n");
      });
    }
    window.addEventListener("resize", function () { render(); });
  }

  function eventLine(e) {
    var s = fmtT(e.at_ns) + " " + pad(e.actor + (e.task && e.task !== "main" ? "/" + e.task : ""), 9) + " " + pad(e.kind, 14);
    if (e.peer) { s += " peer=" + e.peer; }
    if (e.args) { s += " args=[" + e.args.join(" ") + "]"; }
    if (e.reply) { s += " reply=" + e.reply; }
    if (e.key) { s += " key=" + e.key; }
    if (e.value) { s += " value=" + e.value; }
    if (e.token) { s += " token=" + e.token; }
    if (e.n) { s += " n=" + e.n; }
    if (e.dur_ns) { s += " dur=" + fmtT(e.dur_ns); }
    if (e.note) { s += " note=" + JSON.stringify(e.note); }
    return s;
  }
  function pad(s, n) { while (s.length < n) { s += " "; } return s; }

  try {
    data = JSON.parse(document.getElementById("report-data").textContent);
    tl = data.timeline;
    (data.spec.clients || []).forEach(function (c, i) { colors[c] = PALETTE[i % PALETTE.length]; });
    tl.lanes.forEach(function (l) {
      if (l.kind === "client" && !colors[l.id]) { colors[l.id] = PALETTE[Object.keys(colors).length % PALETTE.length]; }
    });
    full = { t0: 0, t1: Math.max(tl.end_ns, MIN_SPAN) };
    view = { t0: full.t0, t1: full.t1, label: "all" };
    // The page opens on the whole run with every violation's band drawn;
    // page.html#v2 opens zoomed on violation 2 (#all: the whole run).
    var h = location.hash, m = /^#v(\d+)$/.exec(h);
    if (!(m && showViolation(Number(m[1])))) {
      // Open on the span the violations' stories tell, when it is a part
      // of the run (#all: the whole run); "whole run" is a click away.
      if (tl.story && h !== "#all") { setView(tl.story.from_ns, tl.story.to_ns, "story"); markActive([]); } else { wholeRun(); }
    }
    legend();
    wire();
    if (h === "#selftest") { selftest(); }
  } catch (e) {
    fail(e && e.stack ? e.stack : e);
  }
  document.body.dataset.ready = "1";

  // selftest drives every interaction once (zoom, pan, focus, hover, the
  // event table and the history) so a headless browser can catch errors.
  function selftest() {
    zoom(0.5);
    zoom(2, full.t0);
    zoom(1 / 1.25, (full.t0 + full.t1) / 3);
    setView(full.t1 * 0.9, full.t1 * 2);
    (tl.windows || []).forEach(function (w, i) { showViolation(i + 1); });
    wholeRun();
    var n = svg.querySelector("[data-tip]");
    if (n) {
      var r = n.getBoundingClientRect();
      n.dispatchEvent(new MouseEvent("mousemove", { bubbles: true, clientX: r.left + 1, clientY: r.top + 1 }));
      var tipBox = document.getElementById("tip");
      if (tipBox.hidden) { fail("selftest: hovering a mark showed no tooltip"); }
      // Hover texts give times in ms, the instant's exact value beside it.
      if (!/\d ms \(exactly \d+\.\d{6}s\)/.test(tipBox.textContent)) {
        fail("selftest: the tooltip does not give its instant in ms: " + tipBox.textContent);
      }
    }
    tips.forEach(function (d) {
      if (/\d\.\d{6}s/.test(d.detail + " " + d.extra)) { fail("selftest: a hover text shows a time not in ms: " + d.detail + " " + d.extra); }
    });
    svg.dispatchEvent(new WheelEvent("wheel", { bubbles: true, cancelable: true, deltaY: -100, clientX: 400, clientY: 100 }));
    svg.dispatchEvent(new MouseEvent("mousedown", { bubbles: true, clientX: 500, clientY: 100 }));
    svg.dispatchEvent(new MouseEvent("mousemove", { bubbles: true, clientX: 450, clientY: 100 }));
    window.dispatchEvent(new MouseEvent("mouseup", { bubbles: true }));
    var row = document.querySelector("#events tbody tr");
    if (row) { row.click(); }
    // The key events' times (rendered by Go's msText) read as fmtMs does.
    Array.prototype.forEach.call(document.querySelectorAll("#events tbody tr"), function (tr) {
      var want = fmtMs(Number(tr.getAttribute("data-at"))), got = tr.querySelector("td.t").textContent;
      if (got !== want) { fail("selftest: key event time " + got + " but fmtMs gives " + want); }
    });
    wholeRun();
    if ((tl.hits || []).length !== svg.querySelectorAll("g.hit").length) {
      fail("selftest: " + svg.querySelectorAll("g.hit").length + " command lines drawn for " + (tl.hits || []).length);
    }
    if ((tl.links || []).length !== svg.querySelectorAll("g.link").length) {
      fail("selftest: " + svg.querySelectorAll("g.link").length + " write links drawn for " + (tl.links || []).length);
    }
    var b = document.querySelector("button.zoomto");
    if (b) { b.click(); }
    var g = document.querySelector("#explanation li.group > p.vhead");
    if (g) {
      g.click();
      if (document.body.dataset.zoom.indexOf(",") < 0) { fail("selftest: a click on a group did not zoom on its violations: " + document.body.dataset.zoom); }
    }
    var band = svg.querySelector("g.win-band");
    if (band) {
      // A click is a press and a release in place, then the click.
      wholeRun();
      band = svg.querySelector("g.win-band");
      var br = band.getBoundingClientRect();
      band.dispatchEvent(new MouseEvent("mousedown", { bubbles: true, clientX: br.left + 1, clientY: br.top + 1 }));
      window.dispatchEvent(new MouseEvent("mouseup", { bubbles: true }));
      band.dispatchEvent(new MouseEvent("click", { bubbles: true, clientX: br.left + 1, clientY: br.top + 1 }));
      if (document.body.dataset.zoom !== "v" + band.getAttribute("data-violation")) { fail("selftest: a click on a band did not zoom on its violation"); }
    }
    document.getElementById("zoom-reset").click();
    var hist = document.getElementById("history");
    if (hist) {
      hist.open = true;
      hist.dispatchEvent(new Event("toggle"));
    }
    document.body.dataset.selftest = "done";
  }
})();

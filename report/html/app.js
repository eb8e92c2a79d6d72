// app.js draws the wolong explain page from the JSON in #data: the pass
// columns, the timeline, the cost tables and the graph. Long lists are
// virtualized (only the rows on screen are in the DOM) and the timeline
// and graph are drawn on canvases, so a 10k-node model stays light.
"use strict";
(function () {
  const errBox = document.getElementById("errors");
  const status = document.getElementById("status");
  function reportError(msg) {
    errBox.textContent += msg + "\n";
  }
  window.addEventListener("error", (e) => reportError("error: " + e.message));
  const consoleError = console.error;
  console.error = function (...a) {
    reportError("console.error: " + a.join(" "));
    consoleError.apply(console, a);
  };

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function ms(x) {
    if (x === undefined || x === null) return "?";
    if (Math.abs(x) >= 100) return x.toFixed(1) + " ms";
    if (Math.abs(x) >= 1) return x.toFixed(3) + " ms";
    return (x * 1000).toFixed(1) + " us";
  }
  function si(x) {
    const u = ["", "k", "M", "G", "T", "P"];
    let i = 0;
    while (Math.abs(x) >= 1000 && i < u.length - 1) { x /= 1000; i++; }
    return (i ? x.toFixed(1) : String(Math.round(x * 100) / 100)) + u[i];
  }
  // hue gives a stable color per string (op class or op type).
  function hue(s) {
    let h = 0;
    for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) >>> 0;
    return "hsl(" + (h % 360) + ",55%,62%)";
  }

  // vlist renders rows [0,count) of height rowH into box (a scrolling
  // element), only those near the visible part. render(i) returns a row.
  function vlist(box, count, rowH, render) {
    const spacer = el("div");
    spacer.style.position = "relative";
    spacer.style.height = count * rowH + "px";
    box.appendChild(spacer);
    let first = -1, last = -1;
    function draw(force) {
      const top = Math.max(0, box.scrollTop - spacer.offsetTop);
      const h = box.clientHeight || 600;
      const f = Math.max(0, Math.floor(top / rowH) - 20);
      const l = Math.min(count, Math.ceil((top + h) / rowH) + 20);
      if (!force && f === first && l === last) return;
      first = f; last = l;
      spacer.textContent = "";
      for (let i = f; i < l; i++) {
        const r = render(i);
        r.style.top = i * rowH + "px";
        spacer.appendChild(r);
      }
    }
    box.addEventListener("scroll", () => draw(false), { passive: true });
    draw(true);
    return { redraw: () => draw(true) };
  }

  // panzoom keeps a view (scale s, offsets ox, oy) for a canvas: wheel
  // zooms around the pointer, drag pans, double-click resets; xOnly keeps
  // y fixed (the timeline).
  function panzoom(cv, view, reset, draw, xOnly) {
    let drag = null;
    cv.addEventListener("wheel", (e) => {
      e.preventDefault();
      const r = cv.getBoundingClientRect();
      const x = e.clientX - r.left, y = e.clientY - r.top;
      const f = Math.exp(-e.deltaY * 0.002);
      view.ox = x - (x - view.ox) * f;
      if (!xOnly) view.oy = y - (y - view.oy) * f;
      view.s *= f;
      draw();
    }, { passive: false });
    cv.addEventListener("mousedown", (e) => { drag = { x: e.clientX, y: e.clientY }; });
    window.addEventListener("mouseup", () => { drag = null; });
    window.addEventListener("mousemove", (e) => {
      if (!drag) return;
      view.ox += e.clientX - drag.x;
      if (!xOnly) view.oy += e.clientY - drag.y;
      drag = { x: e.clientX, y: e.clientY };
      draw();
    });
    cv.addEventListener("dblclick", () => { reset(); draw(); });
  }

  // sizeCanvas matches the canvas's pixels to its box and returns its
  // 2D context in CSS pixels.
  function sizeCanvas(cv, h) {
    const dpr = window.devicePixelRatio || 1;
    const w = cv.clientWidth || 800;
    cv.style.height = h + "px";
    cv.width = Math.round(w * dpr);
    cv.height = Math.round(h * dpr);
    const ctx = cv.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return { ctx, w, h };
  }

  function showTip(tip, cv, e, text) {
    if (!text) { tip.style.display = "none"; return; }
    const r = cv.getBoundingClientRect();
    tip.textContent = text;
    tip.style.left = Math.min(e.clientX - r.left + 12, r.width - 200) + "px";
    tip.style.top = e.clientY - r.top + 12 + "px";
    tip.style.display = "block";
  }

  const tParse = performance.now();
  const D = JSON.parse(document.getElementById("data").textContent);

  function summary() {
    const h = document.getElementById("summary");
    h.appendChild(el("h1", "", "wolong explain: " + D.model));
    const b = D.baseline, f = D.optimized;
    h.appendChild(el("div", "", D.hardware + " at -O" + D.level + ": " + b.nodes + " nodes / " + b.kernels +
      " kernels / " + ms(b.total_ms) + " -> " + f.nodes + " nodes / " + f.kernels + " kernels / " +
      ms(f.total_ms) + " (" + D.speedup.toFixed(2) + "x, predicted)"));
    if (D.expected_error) {
      const x = D.expected_error;
      h.appendChild(el("div", "", "expected error \u00b1" + x.pct.toFixed(0) + "% (" + ms(x.low_ms) + " to " + (x.high_ms > 0 ? ms(x.high_ms) : "no upper bound") +
        "): " + x.models + " models of " + x.size_class + " predicted time, from " + x.source));
    }
    if (D.branch_range) {
      const r = D.branch_range;
      h.appendChild(el("div", "", "input-dependent branches: " + ms(r.low_ms) + " to " + ms(r.high_ms) +
        " as the If in " + r.nodes + (r.nodes === 1 ? " node" : " nodes") + " takes its cheaper or its costlier branch"));
    }
    const shown = D.warnings.slice(0, 20);
    for (const w of shown) h.appendChild(el("div", "warn", "warning: " + w));
    if (D.warnings.length > shown.length) {
      h.appendChild(el("div", "warn", "... " + (D.warnings.length - shown.length) + " more warnings (on stderr)"));
    }
  }

  // passes draws one column per pass; a column's list is the previous
  // one's when the pass changed nothing.
  function passes() {
    const box = document.getElementById("columns");
    const lists = [];
    let marked = null;
    let prev = null, cur = null;
    D.passes.forEach((p, k) => {
      if (p.nodes) { prev = cur; cur = p.nodes; }
      const ids = cur || [];
      const before = k === 0 || !p.nodes ? null : new Set(prev || []);
      const quiet = k > 0 && !p.changed && p.rewrites.length === 0;
      // explain --pass NAME: that column open, the other passes collapsed
      const focused = D.focus && p.name === D.focus;
      const shut = D.focus ? k > 0 && !focused : quiet;
      const col = el("div", "col pass" + (shut ? " collapsed" : "") + (focused ? " focus" : ""));
      col.dataset.pass = p.name;
      const head = el("div", "head", p.name);
      head.title = quiet ? p.name + ": no change (click to open)" : p.name + " (click to collapse)";
      col.appendChild(head);
      const d = p.delta_ms;
      const stats = el("div", "stats");
      stats.textContent = k === 0
        ? p.after.nodes + " nodes, " + p.after.kernels + " kernels, " + ms(p.after.total_ms)
        : "nodes " + p.before.nodes + "\u2192" + p.after.nodes + ", kernels " + p.before.kernels + "\u2192" +
          p.after.kernels + ", " + ms(p.before.total_ms) + "\u2192" + ms(p.after.total_ms);
      if (k > 0) {
        const g = el("span", d > 0 ? "good" : d < 0 ? "bad" : "", " (" + (d > 0 ? "-" : d < 0 ? "+" : "\u00b1") + ms(Math.abs(d)) + ")");
        stats.appendChild(g);
        if (p.changed) stats.appendChild(el("div", "", "+" + p.added + " new, -" + p.removed + " gone"));
      }
      col.appendChild(stats);
      if (p.rewrites.length) {
        const det = el("details");
        det.appendChild(el("summary", "", p.rewrites.length + " rewrite(s)"));
        const n = Math.min(p.rewrites.length, 500);
        for (let i = 0; i < n; i++) det.appendChild(el("div", "", p.rewrites[i]));
        if (n < p.rewrites.length) det.appendChild(el("div", "", "... " + (p.rewrites.length - n) + " more"));
        col.appendChild(det);
      }
      if (p.diff) {
        const det = el("details", "diff");
        det.appendChild(el("summary", "", "IR diff"));
        const pre = el("pre");
        for (const line of p.diff.split("\n")) {
          const c = line[0] === "+" && !line.startsWith("+++") ? "add" : line[0] === "-" && !line.startsWith("---") ? "del" : line[0] === "@" ? "hunk" : "";
          if (c) pre.appendChild(el("span", c, line + "\n"));
          else pre.appendChild(document.createTextNode(line + "\n"));
        }
        det.appendChild(pre);
        col.appendChild(det);
      }
      const body = el("div", "body");
      col.appendChild(body);
      box.appendChild(col);
      const render = (i) => {
        const nd = D.nodes[ids[i]];
        const r = el("div", "row");
        if (before && !before.has(ids[i])) r.classList.add("new");
        if (nd[4].length) r.classList.add("fused");
        if (nd[0] === marked) r.classList.add("mark");
        r.appendChild(document.createTextNode(nd[0] + " "));
        r.appendChild(el("span", "op", nd[1]));
        r.title = nd[0] + " = " + nd[1] + "(" + nd[2].join(", ") + ") -> " + nd[3].join(", ") +
          (nd[4].length ? "\nfused: " + nd[4].join(" ") : "");
        r.addEventListener("click", () => {
          marked = marked === nd[0] ? null : nd[0];
          for (const l of lists) l.redraw();
        });
        return r;
      };
      const vl = vlist(body, ids.length, 16, render);
      lists.push(vl);
      head.addEventListener("click", (e) => {
        e.stopPropagation();
        col.classList.toggle("collapsed");
        vl.redraw();
      });
      col.addEventListener("click", () => {
        if (col.classList.contains("collapsed")) { col.classList.remove("collapsed"); vl.redraw(); }
      });
      if (focused) setTimeout(() => col.scrollIntoView({ inline: "center", block: "nearest" }), 0);
    });
  }

  // timeline draws the host lane (issue intervals) and one lane per
  // stream (kernels) on a canvas.
  function timeline() {
    const T = D.timeline;
    const cv = document.getElementById("tl");
    if (!T) { cv.replaceWith(el("p", "help", "no simulation")); return; }
    const left = 160, top = 20, laneH = 22;
    const H = top + T.tracks.length * laneH + 6;
    const view = { s: 1, ox: 0, oy: 0 };
    let size = sizeCanvas(cv, H);
    const span = T.total_us > 0 ? T.total_us : 1;
    const reset = () => { view.s = (size.w - left - 10) / span; view.ox = 0; };
    reset();
    // lane k: 0 the host (issue interval), k>0 stream k-1 (kernel).
    const iv = (t, k) => (k === 0 ? [t[4], t[5]] : [t[6], t[7]]);
    const inLane = (t, k) => (k === 0 ? t[5] > t[4] : t[3] === k - 1);
    function draw() {
      const { ctx, w } = size;
      ctx.clearRect(0, 0, w, H);
      ctx.font = "11px sans-serif";
      // axis
      const t0 = -view.ox / view.s, t1 = (w - left - view.ox) / view.s;
      let step = Math.pow(10, Math.floor(Math.log10(Math.max(t1 - t0, 1e-6) / 8)));
      if ((t1 - t0) / step > 16) step *= 5; else if ((t1 - t0) / step > 8) step *= 2;
      ctx.fillStyle = "#666";
      ctx.strokeStyle = "#eee";
      for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
        const x = left + view.ox + t * view.s;
        ctx.beginPath(); ctx.moveTo(x, top - 4); ctx.lineTo(x, H); ctx.stroke();
        ctx.fillText(t >= 1000 ? (t / 1000).toFixed(step >= 1000 ? 0 : 3) + " ms" : si(t) + " us", x + 2, 12);
      }
      for (let k = 0; k < T.tracks.length; k++) {
        const y = top + k * laneH;
        let lastX = -1;
        for (const t of T.tasks) {
          if (!inLane(t, k)) continue;
          const [a, b] = iv(t, k);
          let x = left + view.ox + a * view.s;
          const x2 = left + view.ox + b * view.s;
          if (x2 < left || x > w) continue;
          x = Math.max(x, left);
          const bw = Math.max(x2 - x, 1);
          if (bw < 1.5 && Math.floor(x) === lastX) continue; // one pixel already drawn
          lastX = Math.floor(x);
          ctx.fillStyle = k === 0 ? "#bbb" : hue(t[2] || t[1]);
          ctx.fillRect(x, y + 2, bw, laneH - 5);
          if (bw > 40) {
            ctx.fillStyle = "#000";
            ctx.fillText(t[0].slice(0, Math.floor(bw / 6)), x + 2, y + 15);
          }
        }
        ctx.fillStyle = "#fff";
        ctx.fillRect(0, y, left, laneH);
        ctx.fillStyle = "#222";
        ctx.fillText(T.tracks[k], 4, y + 15);
      }
    }
    panzoom(cv, view, reset, draw, true);
    const tip = document.getElementById("tltip");
    cv.addEventListener("mousemove", (e) => {
      const r = cv.getBoundingClientRect();
      const x = e.clientX - r.left, k = Math.floor((e.clientY - r.top - top) / laneH);
      const at = (x - left - view.ox) / view.s;
      let hit = null;
      if (k >= 0 && k < T.tracks.length && x > left) {
        const slop = 2 / view.s;
        for (const t of T.tasks) {
          if (!inLane(t, k)) continue;
          const [a, b] = iv(t, k);
          if (at >= a - slop && at <= b + slop) { hit = t; break; }
        }
      }
      showTip(tip, cv, e, hit && hit[0] + " (" + hit[1] + ", " + hit[2] + ")\n" +
        ms((iv(hit, k)[1] - iv(hit, k)[0]) / 1000) + " at " + ms(iv(hit, k)[0] / 1000));
    });
    cv.addEventListener("mouseleave", () => { tip.style.display = "none"; });
    window.addEventListener("resize", () => { size = sizeCanvas(cv, H); draw(); });
    draw();
  }

  // vtable draws a sortable table; rows are arrays or objects, cols
  // {name, get, num, fmt, wide}. Click a heading to sort (again: reverse).
  function vtable(box, cols, rows, small) {
    box.className = "vt" + (small ? " small" : "");
    const th = el("div", "th");
    let key = -1, dir = 1;
    cols.forEach((c, i) => {
      const s = el("span", (c.wide ? "w" : "") + (c.num ? " n" : ""), c.name);
      s.addEventListener("click", () => {
        dir = key === i ? -dir : c.num ? -1 : 1;
        key = i;
        rows.sort((a, b) => {
          const x = c.get(a), y = c.get(b);
          return (x < y ? -1 : x > y ? 1 : 0) * dir;
        });
        vl.redraw();
      });
      th.appendChild(s);
    });
    box.appendChild(th);
    if (small) box.style.height = Math.min(18 * (rows.length + 1) + 4, 400) + "px";
    const vl = vlist(box, rows.length, 18, (i) => {
      const r = el("div", "tr");
      for (const c of cols) {
        const v = c.get(rows[i]);
        r.appendChild(el("span", (c.wide ? "w" : "") + (c.num ? " n" : ""), c.fmt ? c.fmt(v) : String(v)));
      }
      return r;
    });
    return vl;
  }

  function costs() {
    const pct = (x) => (x * 100).toFixed(1) + "%";
    vtable(document.getElementById("optable"), [
      { name: "op", get: (o) => o.op, wide: true },
      { name: "count", get: (o) => o.count, num: true },
      { name: "kernels", get: (o) => o.kernels, num: true },
      { name: "time", get: (o) => o.time_ms, num: true, fmt: ms },
      { name: "share", get: (o) => o.share, num: true, fmt: pct },
      { name: "FLOPs", get: (o) => o.flops, num: true, fmt: si },
      { name: "bytes", get: (o) => o.bytes, num: true, fmt: si },
      { name: "bound", get: (o) => o.bound },
    ], D.ops.slice(), true);
    vtable(document.getElementById("nodetable"), [
      { name: "node", get: (r) => r[0], wide: true },
      { name: "op", get: (r) => r[1] },
      { name: "class", get: (r) => r[2] },
      { name: "bound", get: (r) => r[3] },
      { name: "kernels", get: (r) => r[4], num: true },
      { name: "time", get: (r) => r[5], num: true, fmt: ms },
      { name: "FLOPs", get: (r) => r[6], num: true, fmt: si },
      { name: "bytes", get: (r) => r[7], num: true, fmt: si },
      { name: "share", get: (r) => r[8], num: true, fmt: pct },
    ], D.costs.slice(), false);
  }

  // graph lays the optimized model out in layers (a node's layer is one
  // past its deepest producer) and draws it on a canvas; a fused group is
  // a cluster box holding its members.
  function graph() {
    const cv = document.getElementById("gr");
    let last = null;
    for (const p of D.passes) if (p.nodes) last = p.nodes;
    if (!last || !last.length) { cv.replaceWith(el("p", "help", "no nodes")); return; }
    const BW = 150, GAP = 16, VGAP = 28, LH = 13, MAXM = 12;
    const producer = new Map();
    const nodes = last.map((id, i) => {
      const nd = D.nodes[id];
      for (const v of nd[3]) if (v) producer.set(v, i);
      const m = nd[4].length ? Math.min(nd[4].length, MAXM) + (nd[4].length > MAXM ? 1 : 0) : 0;
      return { nd, layer: 0, x: 0, y: 0, h: m ? 20 + m * LH + 4 : 20, ins: [] };
    });
    nodes.forEach((n) => {
      for (const v of n.nd[2]) {
        const j = producer.get(v);
        if (j !== undefined && nodes[j] !== n) {
          n.ins.push(j);
          n.layer = Math.max(n.layer, nodes[j].layer + 1);
        }
      }
    });
    const layers = [];
    nodes.forEach((n) => { (layers[n.layer] = layers[n.layer] || []).push(n); });
    let y = 10, maxW = 0;
    for (const L of layers) {
      if (!L) continue;
      let h = 0;
      L.forEach((n, i) => { n.x = 10 + i * (BW + GAP); n.y = y; h = Math.max(h, n.h); });
      maxW = Math.max(maxW, L.length * (BW + GAP));
      y += h + VGAP;
    }
    const H = Math.round(Math.min(window.innerHeight * 0.7, 700));
    let size = sizeCanvas(cv, H);
    const view = { s: 1, ox: 0, oy: 0 };
    const reset = () => { view.s = Math.min(1, size.w / (maxW + 20)); view.ox = 0; view.oy = 0; };
    reset();
    function draw() {
      const { ctx, w } = size;
      ctx.clearRect(0, 0, w, H);
      ctx.save();
      ctx.translate(view.ox, view.oy);
      ctx.scale(view.s, view.s);
      const x0 = -view.ox / view.s, y0 = -view.oy / view.s, x1 = x0 + w / view.s, y1 = y0 + H / view.s;
      const vis = (n) => n.x + BW >= x0 && n.x <= x1 && n.y + n.h >= y0 && n.y <= y1;
      ctx.strokeStyle = "#999";
      ctx.lineWidth = 1 / view.s;
      ctx.beginPath();
      for (const n of nodes) {
        for (const j of n.ins) {
          const p = nodes[j];
          if (!vis(n) && !vis(p)) continue;
          ctx.moveTo(p.x + BW / 2, p.y + p.h);
          ctx.lineTo(n.x + BW / 2, n.y);
        }
      }
      ctx.stroke();
      ctx.font = "11px sans-serif";
      const text = view.s > 0.35;
      for (const n of nodes) {
        if (!vis(n)) continue;
        const fused = n.nd[4].length > 0;
        ctx.fillStyle = fused ? "#e4e4e4" : "#fff";
        ctx.strokeStyle = fused ? "#888" : hue(n.nd[1]);
        ctx.fillRect(n.x, n.y, BW, n.h);
        ctx.strokeRect(n.x, n.y, BW, n.h);
        if (!text) continue;
        ctx.fillStyle = "#000";
        ctx.fillText((n.nd[0] + " " + n.nd[1]).slice(0, 23), n.x + 3, n.y + 14);
        if (fused) {
          const m = n.nd[4];
          for (let i = 0; i < Math.min(m.length, MAXM); i++) {
            const [lab, op] = [m[i].slice(0, m[i].lastIndexOf(":")), m[i].slice(m[i].lastIndexOf(":") + 1)];
            ctx.fillStyle = "#fff";
            ctx.fillRect(n.x + 6, n.y + 20 + i * LH, BW - 12, LH - 2);
            ctx.fillStyle = "#333";
            ctx.fillText((op + " " + lab).slice(0, 22), n.x + 9, n.y + 20 + i * LH + 10);
          }
          if (m.length > MAXM) ctx.fillText("... " + (m.length - MAXM) + " more", n.x + 9, n.y + 20 + MAXM * LH + 10);
        }
      }
      ctx.restore();
    }
    panzoom(cv, view, reset, draw, false);
    const tip = document.getElementById("grtip");
    cv.addEventListener("mousemove", (e) => {
      const r = cv.getBoundingClientRect();
      const gx = (e.clientX - r.left - view.ox) / view.s, gy = (e.clientY - r.top - view.oy) / view.s;
      const n = nodes.find((n) => gx >= n.x && gx <= n.x + BW && gy >= n.y && gy <= n.y + n.h);
      showTip(tip, cv, e, n && n.nd[0] + " = " + n.nd[1] + (n.nd[4].length ? "\n" + n.nd[4].join("\n") : ""));
    });
    cv.addEventListener("mouseleave", () => { tip.style.display = "none"; });
    window.addEventListener("resize", () => { size = sizeCanvas(cv, H); draw(); });
    draw();
  }


  // why draws the causes of each prediction as a stacked bar (with its
  // error band), the roofline of the optimized model's kernels on a
  // canvas (points capped on the Go side), and the missed opportunities
  // as a virtual table.
  function why() {
    const box = document.getElementById("causes");
    const bars = [["before", D.baseline_breakdown, D.baseline_error_band, D.baseline.total_ms],
      ["after", D.optimized_breakdown, D.optimized_error_band, D.optimized.total_ms]];
    for (const [name, parts, band, total] of bars) {
      if (!parts) continue;
      const row = el("div", "causerow");
      row.appendChild(el("span", "causename", name + " " + ms(total) + (band ? " ±" + (band.pct * 100).toFixed(0) + "%" : "")));
      const bar = el("div", "causebar");
      for (const c of parts) {
        const seg = el("span", "seg", "");
        seg.style.width = (c.pct * 100).toFixed(2) + "%";
        seg.style.background = hue(c.cause);
        seg.title = c.label + ": " + ms(c.ms) + " (" + (c.pct * 100).toFixed(1) + "%)";
        bar.appendChild(seg);
      }
      row.appendChild(bar);
      box.appendChild(row);
      const legend = el("div", "help", parts.map((c) => c.label + " " + (c.pct * 100).toFixed(1) + "%").join(", ") +
        (band ? "; error band: " + band.source : ""));
      box.appendChild(legend);
    }
    roofline();
    const mrows = (D.missed || []).slice();
    const mbox = document.getElementById("missed");
    if (mrows.length === 0) {
      mbox.appendChild(el("div", "help", "none: every candidate the passes looked at was rewritten"));
    } else {
      vtable(mbox, [
        { name: "pass", get: (m) => m.pass },
        { name: "code", get: (m) => m.code },
        { name: "gain", get: (m) => m.gain_ms, num: true, fmt: ms },
        { name: "why not", get: (m) => m.reason, wide: true },
      ], mrows, true);
    }
  }

  function roofline() {
    const R = D.roofline;
    const cv = document.getElementById("roof");
    if (!R || R.points.length === 0) { cv.parentNode.style.display = "none"; return; }
    const H = 320;
    let size = sizeCanvas(cv, H);
    const ctx = cv.getContext("2d");
    const xs = R.points.map((p) => p[2]), ys = R.points.map((p) => p[3]);
    const ridge = R.peak_tflops * 1e3 / R.bandwidth_gbs;
    const x0 = Math.log10(Math.min(ridge, ...xs) / 4), x1 = Math.log10(Math.max(ridge, ...xs) * 4);
    const y0 = Math.log10(Math.max(1e-9, Math.min(...ys) / 4)), y1 = Math.log10(R.peak_tflops * 2);
    const px = (x) => 50 + (Math.log10(x) - x0) / (x1 - x0) * (size.w - 60);
    const py = (y) => H - 30 - (Math.log10(Math.max(y, 1e-12)) - y0) / (y1 - y0) * (H - 40);
    function draw() {
      ctx.clearRect(0, 0, size.w, H);
      ctx.strokeStyle = "#444"; ctx.lineWidth = 1.5; ctx.beginPath();
      const steps = 64;
      for (let i = 0; i <= steps; i++) {
        const x = Math.pow(10, x0 + (x1 - x0) * i / steps);
        const y = Math.min(R.peak_tflops, x * R.bandwidth_gbs / 1e3);
        i === 0 ? ctx.moveTo(px(x), py(y)) : ctx.lineTo(px(x), py(y));
      }
      ctx.stroke();
      ctx.fillStyle = "#222"; ctx.font = "11px sans-serif";
      ctx.fillText(R.peak_math + " peak " + R.peak_tflops + " TFLOP/s, " + R.bandwidth_gbs + " GB/s", 55, 14);
      ctx.fillText("FLOP/byte (log)", size.w - 110, H - 8);
      let lx = 55;
      for (const c of [...new Set(R.points.map((p) => p[1]))]) {
        ctx.fillStyle = hue(c); ctx.fillRect(lx, 20, 10, 10);
        ctx.fillStyle = "#222"; ctx.fillText(c, lx + 13, 29);
        lx += 20 + ctx.measureText(c).width;
      }
      ctx.save(); ctx.translate(12, H / 2); ctx.rotate(-Math.PI / 2); ctx.fillText("TFLOP/s (log)", 0, 0); ctx.restore();
      for (const p of R.points) {
        ctx.fillStyle = hue(p[1]);
        ctx.beginPath(); ctx.arc(px(p[2]), py(p[3]), p[5] ? 3 : 5, 0, 2 * Math.PI); ctx.fill();
      }
    }
    const tip = document.getElementById("rooftip");
    cv.addEventListener("mousemove", (e) => {
      const r = cv.getBoundingClientRect(), mx = e.clientX - r.left, my = e.clientY - r.top;
      let best = null, bd = 64;
      for (const p of R.points) {
        const d = (px(p[2]) - mx) ** 2 + (py(p[3]) - my) ** 2;
        if (d < bd) { bd = d; best = p; }
      }
      if (best) showTip(tip, cv, e, best[0] + " (" + best[1] + "): " + best[2].toPrecision(3) + " FLOP/B, " +
        best[3].toPrecision(3) + " TFLOP/s, " + ms(best[4]));
      else tip.style.display = "none";
    });
    cv.addEventListener("mouseleave", () => { tip.style.display = "none"; });
    window.addEventListener("resize", () => { size = sizeCanvas(cv, H); draw(); });
    draw();
  }

  const parts = ["parse " + Math.round(performance.now() - tParse) + " ms"];
  for (const part of [summary, passes, why, timeline, costs, graph]) {
    const t = performance.now();
    try {
      part();
    } catch (e) {
      reportError("error in " + part.name + ": " + (e && e.stack ? e.stack : e));
    }
    parts.push(part.name + " " + Math.round(performance.now() - t) + " ms");
  }
  status.title = parts.join(", ");
  status.textContent = "ready in " + Math.round(performance.now()) + " ms (" +
    document.getElementsByTagName("*").length + " DOM elements)";
  document.body.dataset.ready = "1";
})();

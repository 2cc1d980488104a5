"use strict";
// Draws the report from the JSON in #data: charts and the 3D arm on canvases, no network.
(function () {
  const errors = [];
  const body = document.body;
  function mark() {
    body.dataset.errors = String(errors.length);
    if (errors.length) body.dataset.error = errors.join(" | ");
  }
  window.addEventListener("error", (e) => { errors.push(String(e.message)); mark(); });
  const consoleError = console.error.bind(console);
  console.error = (...args) => { errors.push(args.join(" ")); mark(); consoleError(...args); };

  const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
    "#17becf", "#7f7f7f", "#bcbd22"];
  const main = document.getElementById("main");

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function section(title, note) {
    main.appendChild(el("h2", {}, title));
    if (note) main.appendChild(el("p", { class: "note" }, note));
  }
  function fmt(x) {
    if (x === null || x === undefined || !isFinite(x)) return "–";
    const a = Math.abs(x);
    return a !== 0 && (a < 1e-3 || a >= 1e5) ? x.toExponential(3) : x.toPrecision(4);
  }
  // A canvas sized for the screen's pixel ratio; returns its 2D context in CSS pixels.
  function surface(canvas) {
    const r = window.devicePixelRatio || 1;
    const w = canvas.clientWidth, h = canvas.clientHeight;
    canvas.width = Math.round(w * r);
    canvas.height = Math.round(h * r);
    const ctx = canvas.getContext("2d");
    ctx.setTransform(r, 0, 0, r, 0, 0);
    return { ctx, w, h };
  }

  function tickFmt(v) {
    const a = Math.abs(v);
    if (a !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(1).replace(".0e", "e");
    return String(+v.toPrecision(6));
  }
  // Ticks of a linear axis (1, 2, 5 × 10^k) or of a log axis (decades).
  function ticks(lo, hi, log) {
    if (log) {
      const out = [];
      for (let k = Math.floor(Math.log10(lo)); k <= Math.ceil(Math.log10(hi)); k++) {
        const v = Math.pow(10, k);
        if (v >= lo * 0.999 && v <= hi * 1.001) out.push(v);
      }
      return out;
    }
    const span = hi - lo || 1;
    const raw = span / 5, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => span / s <= 6);
    const out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
    return out;
  }

  // A line chart: opts = {title, x, series: [{name, y, color, dash, markers}], logX, logY,
  // xLabel, yLabel, bars: [{x, lo, hi}] per series optional}.
  function chart(canvas, opts) {
    const { ctx, w, h } = surface(canvas);
    const m = { l: 62, r: 12, t: 24, b: 38 };
    const pts = [];
    for (const s of opts.series) s.y.forEach((y, i) => {
      const x = opts.x[i];
      if (y !== null && isFinite(y) && (!opts.logY || y > 0) && (!opts.logX || x > 0)) pts.push([x, y]);
      if (s.lo) { const a = s.lo[i], b = s.hi[i]; if (a !== null && isFinite(a)) pts.push([x, a]); if (b !== null && isFinite(b)) pts.push([x, b]); }
    });
    ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, w, h);
    ctx.fillStyle = "#1d2330"; ctx.font = "600 12px system-ui, sans-serif";
    ctx.fillText(opts.title || "", m.l, 15);
    if (!pts.length) {
      const why = opts.empty || "no data";
      ctx.fillText(why, w / 2 - ctx.measureText(why).width / 2, h / 2); return;
    }
    let [x0, x1] = [Math.min(...pts.map((p) => p[0])), Math.max(...pts.map((p) => p[0]))];
    let [y0, y1] = [Math.min(...pts.map((p) => p[1])), Math.max(...pts.map((p) => p[1]))];
    if (opts.logY) { y0 = Math.pow(10, Math.floor(Math.log10(y0))); y1 = Math.pow(10, Math.ceil(Math.log10(y1))); }
    else { const pad = (y1 - y0) * 0.06 || Math.abs(y0) * 0.1 || 1; y0 -= pad; y1 += pad; }
    if (opts.logX) { x0 = Math.pow(10, Math.floor(Math.log10(x0) + 1e-9)); x1 = Math.pow(10, Math.ceil(Math.log10(x1) - 1e-9)); }
    if (x1 === x0) { x1 = x0 + 1; }
    const f = (v, lo, hi, log) => log ? (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) : (v - lo) / (hi - lo);
    const X = (v) => m.l + f(v, x0, x1, opts.logX) * (w - m.l - m.r);
    const Y = (v) => h - m.b - f(v, y0, y1, opts.logY) * (h - m.t - m.b);
    ctx.font = "11px system-ui, sans-serif"; ctx.strokeStyle = "#e6e9ef"; ctx.lineWidth = 1;
    ctx.fillStyle = "#4a5568";
    for (const v of ticks(y0, y1, opts.logY)) {
      ctx.beginPath(); ctx.moveTo(m.l, Y(v)); ctx.lineTo(w - m.r, Y(v)); ctx.stroke();
      const label = tickFmt(v); ctx.fillText(label, m.l - 6 - ctx.measureText(label).width, Y(v) + 4);
    }
    for (const v of ticks(x0, x1, opts.logX)) {
      ctx.beginPath(); ctx.moveTo(X(v), m.t); ctx.lineTo(X(v), h - m.b); ctx.stroke();
      const label = tickFmt(v); ctx.fillText(label, X(v) - ctx.measureText(label).width / 2, h - m.b + 14);
    }
    ctx.strokeStyle = "#8a94a6"; ctx.strokeRect(m.l, m.t, w - m.l - m.r, h - m.t - m.b);
    ctx.fillText(opts.xLabel || "", (w + m.l) / 2 - ctx.measureText(opts.xLabel || "").width / 2, h - 6);
    ctx.save(); ctx.translate(12, (h + m.t - m.b) / 2); ctx.rotate(-Math.PI / 2);
    ctx.fillText(opts.yLabel || "", -ctx.measureText(opts.yLabel || "").width / 2, 0); ctx.restore();
    ctx.save(); ctx.beginPath(); ctx.rect(m.l, m.t, w - m.l - m.r, h - m.t - m.b); ctx.clip();
    opts.series.forEach((s, k) => {
      const color = s.color || COLORS[k % COLORS.length];
      ctx.strokeStyle = color; ctx.fillStyle = color; ctx.lineWidth = s.width || 1.6;
      ctx.setLineDash(s.dash ? [6, 4] : []);
      if (s.lo) s.lo.forEach((a, i) => {
        const b = s.hi[i];
        if (a === null || b === null || !isFinite(a) || !isFinite(b)) return;
        ctx.beginPath(); ctx.moveTo(X(opts.x[i]), Y(a)); ctx.lineTo(X(opts.x[i]), Y(b)); ctx.stroke();
      });
      if (!s.markersOnly) {
        ctx.beginPath(); let pen = false;
        s.y.forEach((y, i) => {
          const ok = y !== null && isFinite(y) && (!opts.logY || y > 0);
          if (!ok) { pen = false; return; }
          if (pen) ctx.lineTo(X(opts.x[i]), Y(y)); else ctx.moveTo(X(opts.x[i]), Y(y));
          pen = true;
        });
        ctx.stroke();
      }
      if (s.markers || s.markersOnly) s.y.forEach((y, i) => {
        if (y === null || !isFinite(y) || (opts.logY && y <= 0)) return;
        ctx.beginPath(); ctx.arc(X(opts.x[i]), Y(y), 3, 0, 2 * Math.PI); ctx.fill();
      });
    });
    ctx.restore(); ctx.setLineDash([]);
    let ly = m.t + 12;
    ctx.font = "11px system-ui, sans-serif";
    opts.series.forEach((s, k) => {
      if (!s.name) return;
      const tw = ctx.measureText(s.name).width;
      ctx.fillStyle = "rgba(255,255,255,0.85)"; ctx.fillRect(w - m.r - tw - 34, ly - 10, tw + 30, 14);
      ctx.strokeStyle = s.color || COLORS[k % COLORS.length]; ctx.lineWidth = 2; ctx.setLineDash(s.dash ? [6, 4] : []);
      ctx.beginPath(); ctx.moveTo(w - m.r - tw - 30, ly - 3); ctx.lineTo(w - m.r - tw - 10, ly - 3); ctx.stroke();
      ctx.setLineDash([]); ctx.fillStyle = "#1d2330"; ctx.fillText(s.name, w - m.r - tw - 6, ly);
      ly += 14;
    });
  }
  function canvas(cls) { return el("canvas", { class: cls || "chart" }); }

  // The arm in 3D: link axes as thick strokes (cylinders at their radius), joint points as dots,
  // world z up; drag to turn, wheel to zoom, play through the run's frames.
  function arm(view, host) {
    const c = el("canvas", { id: "arm" });
    host.appendChild(c);
    const controls = el("div", { class: "controls" });
    const play = el("button", {}, "Pause");
    const slider = el("input", { type: "range", min: "0", max: String(view.t.length - 1), value: "0" });
    const label = el("span", {}, "");
    controls.append(play, slider, label);
    host.appendChild(controls);
    const all = [];
    for (const l of view.links) for (const [a, b] of l.ends) all.push(a, b);
    const lo = [0, 1, 2].map((i) => Math.min(...all.map((p) => p[i])));
    const hi = [0, 1, 2].map((i) => Math.max(...all.map((p) => p[i])));
    const centre = lo.map((v, i) => (v + hi[i]) / 2);
    const extent = Math.max(...hi.map((v, i) => v - lo[i]), 0.1);
    let yaw = -0.9, pitch = 0.45, zoom = 1, frame = 0, playing = true;
    const { ctx, w, h } = surface(c);
    function project(p) {
      const x = p[0] - centre[0], y = p[1] - centre[1], z = p[2] - centre[2];
      const cx = Math.cos(yaw) * x - Math.sin(yaw) * y, cy = Math.sin(yaw) * x + Math.cos(yaw) * y;
      const depth = Math.cos(pitch) * cy + Math.sin(pitch) * z;
      const up = -Math.sin(pitch) * cy + Math.cos(pitch) * z;
      const s = zoom * 0.8 * Math.min(w, h) / extent, persp = 1 / (1 + 0.25 * depth / extent);
      return [w / 2 + cx * s * persp, h / 2 - up * s * persp, depth, s * persp];
    }
    function draw() {
      ctx.fillStyle = "#f7f9fc"; ctx.fillRect(0, 0, w, h);
      ctx.strokeStyle = "#dde3ec"; ctx.lineWidth = 1;
      const g = extent * 0.75, n = 6;
      for (let i = -n; i <= n; i++) {
        for (const [a, b] of [[[centre[0] + g * i / n, centre[1] - g, lo[2]], [centre[0] + g * i / n, centre[1] + g, lo[2]]],
                              [[centre[0] - g, centre[1] + g * i / n, lo[2]], [centre[0] + g, centre[1] + g * i / n, lo[2]]]]) {
          const pa = project(a), pb = project(b);
          ctx.beginPath(); ctx.moveTo(pa[0], pa[1]); ctx.lineTo(pb[0], pb[1]); ctx.stroke();
        }
      }
      // The first joint point's path (the rail, where the arm is on one).
      ctx.strokeStyle = "#9aa5b8"; ctx.lineWidth = 2; ctx.beginPath();
      view.links[0].joint.forEach((p, i) => { const q = project(p); if (i) ctx.lineTo(q[0], q[1]); else ctx.moveTo(q[0], q[1]); });
      ctx.stroke();
      const items = view.links.map((l, k) => {
        const [a, b] = l.ends[frame];
        const pa = project(a), pb = project(b);
        return { k, l, pa, pb, depth: (pa[2] + pb[2]) / 2 };
      }).sort((u, v) => v.depth - u.depth);
      ctx.lineCap = "round";
      for (const { k, l, pa, pb } of items) {
        ctx.strokeStyle = COLORS[k % COLORS.length];
        // A rod (no cross-section in the model) as a 6 px stroke; a cylinder at its radius.
        ctx.lineWidth = l.radius > 0 ? Math.max(3, l.radius * (pa[3] + pb[3])) : 6;
        ctx.beginPath(); ctx.moveTo(pa[0], pa[1]); ctx.lineTo(pb[0], pb[1]); ctx.stroke();
        const o = project(l.joint[frame]);
        ctx.fillStyle = "#1d2330"; ctx.beginPath(); ctx.arc(o[0], o[1], 4, 0, 2 * Math.PI); ctx.fill();
      }
      ctx.fillStyle = "#4a5568"; ctx.font = "12px system-ui, sans-serif";
      ctx.fillText("world z up · drag to turn · wheel to zoom", 10, h - 10);
      label.textContent = `t = ${view.t[frame].toFixed(3)} s`;
      slider.value = String(frame);
    }
    let last = null, clock = view.t[0];
    function tick(now) {
      if (playing && last !== null) {
        clock += (now - last) / 1000;
        if (clock > view.t[view.t.length - 1]) clock = view.t[0];
        let f = frame;
        while (f + 1 < view.t.length && view.t[f + 1] <= clock) f++;
        if (view.t[f] > clock) f = 0;
        frame = f;
        draw();
      }
      last = now;
      requestAnimationFrame(tick);
    }
    play.onclick = () => { playing = !playing; play.textContent = playing ? "Pause" : "Play"; clock = view.t[frame]; };
    slider.oninput = () => { frame = Number(slider.value); clock = view.t[frame]; draw(); };
    let drag = null;
    c.onmousedown = (e) => { drag = [e.clientX, e.clientY]; };
    window.addEventListener("mouseup", () => { drag = null; });
    window.addEventListener("mousemove", (e) => {
      if (!drag) return;
      yaw += (e.clientX - drag[0]) * 0.01;
      pitch = Math.max(-1.5, Math.min(1.5, pitch + (e.clientY - drag[1]) * 0.01));
      drag = [e.clientX, e.clientY]; draw();
    });
    c.addEventListener("wheel", (e) => { e.preventDefault(); zoom *= Math.exp(-e.deltaY * 0.001); draw(); }, { passive: false });
    draw();
    const img = ctx.getImageData(0, 0, c.width, c.height).data;
    let painted = 0;
    for (let i = 0; i < img.length; i += 4) {
      const grey = Math.abs(img[i] - img[i + 1]) < 12 && Math.abs(img[i + 1] - img[i + 2]) < 12;
      if (!grey) painted++;
    }
    body.dataset.armPixels = String(painted);
    requestAnimationFrame(tick);
  }

  function run(view) {
    section("The arm through the run",
      view.links.length ? `${view.links.length} links from the run's link frames (body → world rotation, centroid, joint point) and the model's shapes; ${view.t.length} frames.`
        : "This run has no link frames (a recording of joints only).");
    if (view.links.length) { const host = el("div"); main.appendChild(host); arm(view, host); }
    else body.dataset.armPixels = "0";
    section("Joint trajectories", "q as measured (rad; m for a prismatic joint).");
    const qc = canvas("chart wide"); main.appendChild(qc);
    chart(qc, { title: "q(t)", x: view.t, xLabel: "t (s)", yLabel: "q",
      series: view.joints.map((j) => ({ name: j.name, y: j.q })) });
    section("Joint torques",
      view.predictor ? `Measured, predicted by ${view.predictor}'s identified model at the measured state (${view.predictor_choice || "the only torque model"}), and their residual (N·m; N on a prismatic joint). The whole-arm identifiers leave out the equations of a joint at rest (held by static friction, which no model here describes): a held joint's torque is not fitted.`
        : "Measured (no estimator that applies identifies a torque model on this run).");
    const row = el("div", { class: "row" }); main.appendChild(row);
    for (const j of view.joints) {
      const cv = canvas(); row.appendChild(cv);
      const series = [{ name: "measured", y: j.tau, color: "#1d2330" }];
      if (j.predicted) {
        series.push({ name: "predicted", y: j.predicted, color: "#d62728", dash: true });
        series.push({ name: "residual", y: j.tau.map((t, i) => t - j.predicted[i]), color: "#2ca02c" });
      }
      chart(cv, { title: `${j.name} (${j.kind})`, x: view.t, xLabel: "t (s)", yLabel: "τ", series });
    }
    estimates(view);
  }

  function estimates(view) {
    section("Estimates against the truth",
      "Relative error (estimate − truth)/|truth| per parameter with ±2 std where the method states one; pick a method.");
    const methods = [...new Set(view.estimates.map((r) => r.method))];
    const pick = el("select", { id: "method" });
    for (const m of methods) pick.appendChild(el("option", { value: m }, m));
    const pickRow = el("p", {}, "method: "); pickRow.appendChild(pick); main.appendChild(pickRow);
    const cv = canvas("chart wide"); main.appendChild(cv);
    const wrap = el("div", { class: "scroll" }); main.appendChild(wrap);
    function show() {
      const rows = view.estimates.filter((r) => r.method === pick.value);
      const scored = rows.filter((r) => r.truth !== null && r.estimate !== null && Math.abs(r.truth) > 1e-10);
      const x = scored.map((_, i) => i + 1);
      const rel = scored.map((r) => (r.estimate - r.truth) / Math.abs(r.truth));
      const sd = scored.map((r) => r.std === null ? null : 2 * r.std / Math.abs(r.truth));
      chart(cv, { title: `${pick.value}: relative error per parameter (1…${scored.length}, the table's order)`, x, xLabel: "parameter",
        yLabel: "relative error", series: [
          { name: "estimate ± 2 std", y: rel, markersOnly: true, lo: rel.map((v, i) => sd[i] === null ? null : v - sd[i]), hi: rel.map((v, i) => sd[i] === null ? null : v + sd[i]) },
          { name: "truth", y: x.map(() => 0), color: "#8a94a6", dash: true }] });
      const t = el("table");
      const head = el("tr");
      for (const c of ["#", "parameter", "truth", "estimate", "std", "rel. error"]) head.appendChild(el("th", { class: c === "parameter" ? "name" : "" }, c));
      t.appendChild(head);
      let k = 0;
      for (const r of rows) {
        const ok = r.truth !== null && r.estimate !== null && Math.abs(r.truth) > 1e-10;
        const tr = el("tr");
        for (const [v, cls] of [[ok ? String(++k) : "", ""], [r.parameter, "name"], [fmt(r.truth), ""], [fmt(r.estimate), ""], [fmt(r.std), ""],
          [ok ? `${(100 * (r.estimate - r.truth) / Math.abs(r.truth)).toFixed(2)} %` : "–", ""]]) tr.appendChild(el("td", { class: cls }, v));
        t.appendChild(tr);
      }
      wrap.replaceChildren(t);
    }
    pick.onchange = show;
    if (methods.length) show();
    if (view.skipped.length) {
      main.appendChild(el("p", { class: "note" }, "Not run: " + view.skipped.map(([m, why]) => `${m} (${why})`).join("; ")));
    }
  }

  function table(head, rows) {
    const t = el("table");
    const h = el("tr");
    head.forEach((c, i) => h.appendChild(el("th", { class: i ? "" : "name" }, c)));
    t.appendChild(h);
    for (const r of rows) {
      const tr = el("tr");
      r.forEach((c, i) => tr.appendChild(el("td", { class: i ? "" : "name" }, c)));
      t.appendChild(tr);
    }
    return t;
  }
  function driftText(d) {
    if (!d) return "–";
    if (d.mean_horizon === null) return `all ${d.windows} rollouts of ${d.horizon} s blew up`;
    const blown = d.blown_up ? `, ${d.blown_up} of ${d.windows} blew up` : "";
    return `${d.mean_horizon.toExponential(2)} rad at ${d.horizon} s${blown}`;
  }
  function pct(x) { return x === null || x === undefined ? "–" : `${(100 * x).toFixed(2)} %`; }

  function identify(f) {
    const c = f.choice;
    section("The model chosen",
      `${c.method}: holdout torque NRMS ${pct(c.holdout_nrms)}. Rule: ${f.rule}.` +
      (c.tied.length > 1 ? ` Tied within 1 %: ${c.tied.join(", ")}.` : "") +
      ` Written: ${f.files.join(", ")}. The model is the one identified on the first ${(100 * (1 - f.holdout)).toFixed(0)} % of the log, whose prediction of the rest these figures are.`);
    main.appendChild(table(["estimator", "holdout NRMS", "parameters", "consistent whole model", "rollout drift"],
      c.candidates.map((k) => [k.method + (k.method === c.method ? " (chosen)" : ""), pct(k.holdout_nrms), String(k.parameters), k.consistent_model ? "yes" : "no", driftText(k.drift)])));
    main.appendChild(el("p", { class: "note" }, "Rollout drift: the model simulated in Rapier from the recorded state at the start of each held-out window under the logged torque (each sample's held; the drives' offsets off, their armature, viscous and Coulomb terms on, a coupled drive's on the joints it turns), the mean joint error at the window's end. A rollout blows up when its error passes a full turn."));
    section("Per joint, over the held-out stretch",
      `NRMS: sqrt(Σ(τ̂ − τ)² / Σ τ²) of the chosen model against the torque as measured. Above low-pass: the share of the measured torque's RMS above the kinematics' cut-off (${f.signal.filter ? f.signal.filter[1].toFixed(1) + " Hz" : "none"}), which no model fed the filtered kinematics predicts. At rest: samples slower than 0.05 rad/s, where static friction holds the joint anywhere within its level. Replay: Rapier simulating the model (model.urdf + drives.toml) along the recorded motion.`);
    main.appendChild(table(["joint", "torque RMS", "NRMS", "above low-pass", "at rest", "replay NRMS"],
      f.joints.map((j) => [j.name, fmt(j.rms), pct(j.nrms), pct(j.above_bandwidth), `${(100 * j.at_rest).toFixed(0)} %`, pct(j.replay_nrms)])));
    main.appendChild(el("p", { class: "note" }, f.replays.map((r) =>
      `Replayed in Rapier on ${r.method === "prior" ? "the file as given" : r.method + "'s model"} (${r.files.join(", ")}): ${pct(r.residual.torque_nrms)}, moving joints ${pct(r.residual.torque_nrms_moving)}.`).join(" ")));
    const tr = f.traces;
    const row = el("div", { class: "row" }); main.appendChild(row);
    f.joints.forEach((j, k) => {
      const cv = canvas(); row.appendChild(cv);
      chart(cv, { title: j.name, x: tr.t, xLabel: "t (s)", yLabel: "τ", series: [
        { name: "measured", y: tr.measured[k], color: "#1d2330" },
        { name: "predicted", y: tr.predicted[k], color: "#d62728", dash: true }] });
    });
    section("The arm through the log", "Rapier's replay of the log on the chosen model: link frames from the simulation, drawn as rods between joint points.");
    if (f.arm.links.length) { const host = el("div"); main.appendChild(host); arm(f.arm, host); }
    else body.dataset.armPixels = "0";
    section("Links: the file's and the model's", "Mass (kg), centroid (m, world frame at the zero configuration) and principal moments about it (kg·m²). What the log does not determine is drawn toward the file's values (the prior, weighted as the chosen estimator weighs it).");
    const v3 = (v) => v.map(fmt).join(", ");
    main.appendChild(table(["link", "mass (file)", "mass (model)", "centroid (file)", "centroid (model)", "moments (file)", "moments (model)", "moved far"],
      f.links.map((l) => [l.name, fmt(l.mass[0]), fmt(l.mass[1]), v3(l.centroid[0]), v3(l.centroid[1]), v3(l.moments[0]), v3(l.moments[1]), (l.moved_far || []).join("; ") || "–"])));
    main.appendChild(el("p", { class: "note" }, "Moved far: a mass or principal moment (smallest with smallest) more than 10 times larger or smaller than the file's, or a centroid more than 0.1 m from it. The log may demand it; a body the motion hardly excites that moved far needs excitation, not trust."));
    section("Parameters", `The chosen estimator's estimates, its σ where it states one, and IDIM-OLS's estimate and σ (least-squares covariance on the same data) of the same parameter.`);
    const wrap = el("div", { class: "scroll" }); main.appendChild(wrap);
    wrap.appendChild(table(["parameter", "estimate", "σ", "IDIM-OLS", "σ (IDIM-OLS)"],
      f.parameters.map((p) => [p.parameter, fmt(p.estimate), fmt(p.std), p.reference ? fmt(p.reference[0]) : "–", p.reference ? fmt(p.reference[1]) : "–"])));
    const s = f.signal;
    section("Every choice made",
      `Inputs: ${f.inputs.join(", ")}. ${f.samples} samples on a ${s.period.toExponential(3)} s grid${s.resampled ? " (resampled)" : ""}; low-pass: ${s.filter ? `Butterworth order ${s.filter[0]} at ${s.filter[1].toFixed(2)} Hz, zero phase` : "none"}${s.spectrum ? ` (chosen from the angles' spectrum: edges ${s.spectrum.edges.map((e) => e.toFixed(2)).join(", ")} Hz)` : ""}; derivatives: ${s.derivatives}; torques: ${s.torque}. Held out: the last ${(100 * f.holdout).toFixed(0)} % from t = ${f.split_at.toFixed(3)} s. Estimators run: ${f.ran.join(", ")}.`);
    if (f.skipped.length) main.appendChild(el("p", { class: "note" }, "Not run: " + f.skipped.map(([m, why]) => `${m} (${why})`).join("; ")));
  }

  function servoIdentify(f) {
    body.dataset.armPixels = "0";
    const mean = (xs) => { const v = xs.filter((x) => x !== null && isFinite(x)); return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null; };
    const over = (key) => mean(f.judged.map((j) => mean(j[key])));
    const [file, fitted, commands] = ["model", "fitted", "commanded"].map(over);
    section("How the fitted servos move the arm",
      `Each log's last ${(100 * f.holdout).toFixed(0)} %, held out of the fit, rolled out in Rapier: 1 s rollouts every 0.5 s from the recorded state under the logged commands, the mean joint error at 1 s (rad), with the model file's own servos, with the fitted ones, and taking each command for the position (no model). Mean over the logs: file ${fmt(file)}, fitted ${fmt(fitted)}, commands ${fmt(commands)}${file !== null && fitted ? ` (file / fitted ${(file / fitted).toFixed(2)})` : ""}. Written: ${f.files.join(", ")}.`);
    main.appendChild(table(["log", "windows", "model file", "fitted", "commands"],
      f.judged.map((j) => [j.log, String(j.windows), fmt(mean(j.model)), fmt(mean(j.fitted)), fmt(mean(j.commanded))])));
    section("Per joint, mean over the logs (rad at 1 s)");
    main.appendChild(table(["", ...f.joints], ["model", "fitted", "commanded"].map((key) =>
      [key === "model" ? "model file" : key === "commanded" ? "commands" : key, ...f.joints.map((_, k) => fmt(mean(f.judged.map((j) => j[key][k]))))])));
    section("The fit", `Levenberg–Marquardt on ${f.fit.windows} rollouts of ${f.windows.horizon} s (one every ${f.windows.spacing} s of each log's first part), ${f.fit.iterations} iterations, RMS residual ${fmt(f.fit.rms_start)} → ${fmt(f.fit.rms)} rad; σ cluster-robust over windows. Start: ${f.start_from}.`);
    main.appendChild(table(["term", "start", "fitted", "σ"],
      f.fit.terms.map((t, k) => [`O${t.joint}.${t.kind}`, fmt(f.start[k]), fmt(f.fit.values[k]), fmt(f.fit.std[k])])));
    section("Every choice made", `Inputs: ${f.inputs.join(", ")}. Runs: ${f.runs.join(", ")}.`);
  }

  function sweep(data) {
    body.dataset.armPixels = "0";
    section(`Error against noise (${data.seeds} seeds per level)`,
      "Left: median over each method's parameters of RMSE/|truth|, with the Cramér–Rao bound's median bound/|truth| (dashed). Right: median RMSE / bound over the parameters that have one (1: as good as any unbiased estimator can be).");
    for (const p of data.panels) {
      main.appendChild(el("h3", {}, `${p.scenario} — ${p.sensor}`));
      const row = el("div", { class: "row" }); main.appendChild(row);
      const a = canvas(), b = canvas(); row.append(a, b);
      const series = p.series.map((s) => ({ name: s.method, y: s.relative_rmse, markers: true }));
      if (p.bound.some((v) => v !== null)) series.push({ name: "Cramér–Rao bound", y: p.bound, color: "#1d2330", dash: true, width: 2 });
      chart(a, { title: "relative RMSE", empty: "no parameter with a nonzero truth", x: p.levels, logX: true, logY: true, xLabel: "noise level", yLabel: "RMSE / |truth|", series });
      chart(b, { title: "RMSE / Cramér–Rao bound", x: p.levels, logX: true, logY: true, xLabel: "noise level", yLabel: "RMSE / bound",
        series: p.series.map((s) => ({ name: s.method, y: s.efficiency, markers: true })).concat([{ name: "bound", y: p.levels.map(() => 1), color: "#1d2330", dash: true }]) });
    }
    if (data.skipped.length) {
      main.appendChild(el("p", { class: "note" }, "Skipped: " + data.skipped.map(([s, m, why]) => `${m} on ${s} (${why})`).join("; ")));
    }
  }

  try {
    const data = JSON.parse(document.getElementById("data").textContent);
    if (data.kind === "run") run(data.view); else if (data.kind === "identify") identify(data.found);
    else if (data.kind === "servo_identify") servoIdentify(data.found); else sweep(data);
    body.dataset.status = "ready";
  } catch (e) {
    errors.push(String((e && e.stack) || e));
    body.dataset.status = "failed";
  }
  mark();
})();

// @ts-check
// The session view: draws the data that rlog-ls put in #rlog-data (its
// fields are described in docs/report.md). It runs the same from file://,
// in a browser, and in the VS Code webview, where clicking an item reveals
// its line in the editor. It writes no markup from the data (text only),
// sets no inline style attribute and adds no inline handler, so it runs
// under a Content-Security-Policy that allows nothing but its own nonce.
'use strict';
(function () {
  /** @typedef {{line: number[], ms: number[]}} Times */
  /** @typedef {{name: string, line: number, end_line: number, start_ms: ?number, end_ms: ?number, duration_ms: ?number, tool_calls: number, errors: number, tokens: {in: number, out: number, cached: number}}} Phase */
  /** @typedef {{type: string, id: string, line: number, end_line: ?number, status: string, duration_ms: ?number, lane: number, calls: number}} Subagent */
  /** @typedef {{line: number, previous_line: number, ms: number}} Gap */
  /** @typedef {{line: number, severity: string, code: string, message: string}} Finding */
  /** @typedef {{measured: number, median_ms: ?number, p95_ms: ?number, max_ms: ?number}} Latency */
  /**
   * @typedef {Object} Data
   * @property {number} version
   * @property {string} [generator]
   * @property {string} file
   * @property {string} [link]
   * @property {string} [path]
   * @property {string} id
   * @property {number} lines
   * @property {boolean} timed
   * @property {?string} start
   * @property {?string} end
   * @property {any} summary
   * @property {Phase[]} phases
   * @property {{name: string, calls: number, errors: number, unfinished: number, latency: Latency}[]} tools
   * @property {{tool: number[], line: number[], end: number[], outcome: number[], latency_ms: number[], stamped: number[], group: number[], lane: number[]}} calls
   * @property {Subagent[]} subagents
   * @property {{main: number, subagents: number[]}} lanes
   * @property {Times} times
   * @property {{line: number[], in: number[], out: number[], cached: number[]}} tokens
   * @property {Gap[]} gaps
   * @property {Finding[]} findings
   * @property {number} findings_omitted
   */

  const DATA_VERSION = 1;
  const OUTCOMES = ['unfinished', 'ok', 'error'];
  /** @type {Record<string, number>} */
  const SEVERITY_RANK = { hint: 1, info: 2, warning: 3, error: 4 };

  /** The VS Code webview's messaging, when the page runs in one. */
  const w = /** @type {any} */ (window);
  const vscode = typeof w.acquireVsCodeApi === 'function' ? w.acquireVsCodeApi() : null;

  /** @param {string} id */
  function $(id) {
    const el = document.getElementById(id);
    if (!el) throw new Error('missing #' + id);
    return el;
  }

  /**
   * @param {string} tag
   * @param {string} [cls]
   * @param {string|number} [text]
   */
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = String(text);
    return e;
  }

  // ---- formatting: the same as rlog-ls (analysis.FormatDuration, GroupDigits)

  /** @param {number} ms */
  function fmtDuration(ms) {
    if (ms < 1000) return Math.trunc(ms) + 'ms';
    if (ms < 10000) {
      let s = (ms / 1000).toFixed(1);
      if (s.endsWith('0')) s = s.slice(0, -1);
      if (s.endsWith('.')) s = s.slice(0, -1);
      return s + 's';
    }
    if (ms < 60000) return Math.round(ms / 1000) + 's';
    if (ms < 3600000) {
      const s = Math.round(ms / 1000);
      return Math.floor(s / 60) + 'm ' + (s % 60) + 's';
    }
    const m = Math.round(ms / 60000);
    return Math.floor(m / 60) + 'h ' + (m % 60) + 'm';
  }

  /** @param {number} n */
  function fmtInt(n) {
    const s = String(Math.trunc(n));
    let out = '';
    for (let i = 0; i < s.length; i++) {
      if (i > 0 && (s.length - i) % 3 === 0) out += ',';
      out += s[i];
    }
    return out;
  }

  /** @param {number} n @param {string} what */
  function plural(n, what) {
    return fmtInt(n) + ' ' + what + (n === 1 ? '' : 's');
  }

  /** @param {?number|undefined} ms */
  function optDuration(ms) {
    return ms === null || ms === undefined ? '—' : fmtDuration(ms);
  }

  // ---- state

  /** @type {Data} */
  let data;
  /** Axis mode: 'time' or 'order'. */
  let axis = 'order';
  /** The visible domain. */
  let view = { d0: 0, d1: 1 };
  /** The whole domain. */
  let full = { d0: 0, d1: 1 };
  /** Calls' positions in the current axis. */
  let callStart = new Float64Array(0);
  let callEnd = new Float64Array(0);
  /** The selected line (1-based), 0 for none. */
  let selectedLine = 0;
  let tokenSeries = 'out';
  /** Layout of the timeline's rows, filled by layout(). */
  /** @type {{label: string, y: number, h: number, kind: string, group: number, lane: number}[]} */
  let rows = [];
  const geometry = { plotX: 96, width: 0, height: 0, axisY: 0, phaseY: 0, phaseH: 18 };
  /** What the last draw did, for the tests and for anyone curious. */
  const stats = { drawMs: 0, drawn: 0, binned: 0, bins: 0, draws: 0 };

  // ---- positions: every item is placed by its line, mapped to time or order

  /**
   * pos maps a 1-based line to the axis: its time (interpolated between
   * the timestamped lines around it) or the line itself.
   * @param {number} line
   */
  function pos(line) {
    if (axis === 'order') return line;
    const L = data.times.line, M = data.times.ms;
    const n = L.length;
    if (n === 0) return 0;
    if (line <= L[0]) return M[0];
    if (line >= L[n - 1]) return M[n - 1];
    let lo = 0, hi = n - 1; // L[lo] <= line < L[hi]
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (L[mid] <= line) lo = mid; else hi = mid;
    }
    const f = (line - L[lo]) / (L[hi] - L[lo]);
    return M[lo] + f * (M[hi] - M[lo]);
  }

  function computePositions() {
    const c = data.calls;
    const n = c.line.length;
    callStart = new Float64Array(n);
    callEnd = new Float64Array(n);
    const last = data.lines;
    for (let i = 0; i < n; i++) {
      const s = pos(c.line[i]);
      let e;
      if (c.end[i] === 0) e = pos(last) + (axis === 'order' ? 1 : 0);
      else if (axis === 'order') e = c.end[i] + 1;
      else if (c.end[i] === c.line[i] && c.latency_ms[i] >= 0) e = s + c.latency_ms[i];
      else e = pos(c.end[i]);
      callStart[i] = s;
      callEnd[i] = Math.max(s, e);
    }
    if (axis === 'order') full = { d0: 1, d1: last + 1 };
    else full = { d0: 0, d1: Math.max(data.times.ms.length ? data.times.ms[data.times.ms.length - 1] : 1, 1) };
  }

  /** @param {number} p */
  function X(p) {
    return geometry.plotX + ((p - view.d0) / (view.d1 - view.d0)) * (geometry.width - geometry.plotX);
  }

  /** @param {number} x */
  function domainAt(x) {
    return view.d0 + ((x - geometry.plotX) / (geometry.width - geometry.plotX)) * (view.d1 - view.d0);
  }

  // ---- colours, read from the style sheet (theme aware)

  /** @type {Record<string, string>} */
  let colors = {};
  function readColors() {
    const cs = getComputedStyle(document.documentElement);
    for (const name of ['ok', 'error', 'unfinished', 'subagent', 'finding', 'pause', 'tokens', 'highlight', 'fg', 'muted', 'border', 'band-a', 'band-b', 'bg']) {
      colors[name] = cs.getPropertyValue('--' + name).trim() || '#888';
    }
  }

  // ---- the summary, the tables

  /** @param {number} line */
  function lineHref(line) {
    if (data.link) {
      return data.link.split('{line}').join(String(line)).split('{path}').join(encodeURI(data.path || ''));
    }
    return '#L' + line;
  }

  /** @param {number} line @param {string} [text] */
  function lineLink(line, text) {
    const a = /** @type {HTMLAnchorElement} */ (el('a', 'line-link', text || 'line ' + line));
    a.href = lineHref(line);
    a.dataset.line = String(line);
    return a;
  }

  /**
   * @param {string} label
   * @param {string} value
   * @param {(string|Node)[]} [sub]
   */
  function card(label, value, sub) {
    const c = el('div', 'card');
    c.append(el('div', 'label', label), el('div', 'value', value));
    if (sub && sub.length) {
      const s = el('div', 'sub');
      s.append(...sub);
      c.append(s);
    }
    return c;
  }

  /**
   * The totals. Every card reads data.summary, the numbers of `rlog-ls stats`;
   * when APM counts from the companion (the session's whole record), the
   * cards it is computed from say what the companion counts where the log
   * differs, and the duration is the companion's when the log has none, so
   * that no card contradicts another.
   */
  function renderSummary() {
    const s = data.summary;
    const box = $('summary');
    box.replaceChildren();
    const apm = s.apm;
    const companion = apm.source === 'companion' ? (apm.companion || 'the companion') : '';
    const companionMS = companion && apm.minutes !== null ? apm.minutes * 60000 : null;
    const oneTS = data.start ? 'one timestamp: ' + data.start.replace('T', ' ').replace('Z', ' UTC') : 'no timestamps in the log';
    /** @type {(string|Node)[]} */
    let durSub = [];
    let durValue = 'unknown';
    if (s.duration_ms !== null) {
      durValue = fmtDuration(s.duration_ms);
      durSub = [span()];
      if (companionMS !== null && fmtDuration(companionMS) !== durValue) durSub.push('; the companion spans ' + fmtDuration(companionMS));
    } else if (companionMS !== null) {
      durValue = fmtDuration(companionMS);
      durSub = ['from the companion ' + companion + ' (the log has ' + (data.start ? 'one timestamp' : 'no timestamps') + ')'];
    } else {
      durSub = [oneTS];
    }
    box.append(card('Duration', durValue, durSub));
    /** @param {number} inLog @param {number} inCompanion @param {string} what */
    const companionCount = (inLog, inCompanion, what) =>
      companion && inCompanion !== inLog ? ['; ' + plural(inCompanion, what) + ' in the companion, which APM counts'] : [];
    box.append(card('Tool calls', fmtInt(s.tool_calls), [plural(s.errors, 'error') + ', ' + fmtInt(s.unfinished) + ' unfinished',
      ...companionCount(s.tool_calls, apm.tool_calls, 'tool call')]));
    const t = s.tokens;
    box.append(card('Tokens out', fmtInt(t.out), [fmtInt(t.in) + ' in, ' + fmtInt(t.cached) + ' cached, ' + plural(t.messages, 'message') + ' counted once']));
    if (s.cost_usd !== null && s.cost_usd !== undefined) box.append(card('Cost', '$' + Number(s.cost_usd.toPrecision(6)), ['as the session states it']));
    const actions = plural(apm.messages, 'message') + ' + ' + plural(apm.tool_calls, 'tool call');
    box.append(card('APM', apm.value === null ? 'unknown' : apm.value.toFixed(2),
      [apm.value === null ? actions + ', no duration' : '(' + actions + ') / ' + apm.minutes.toFixed(1) + ' min',
        companion ? ', counted in the companion ' + companion : ', counted in the log']));
    const lat = s.latency;
    box.append(card('Latency median', lat.measured ? fmtDuration(lat.median_ms) : '—',
      [lat.measured ? 'p95 ' + fmtDuration(lat.p95_ms) + ', max ' + fmtDuration(lat.max_ms) + ' (' + fmtInt(lat.measured) + ' measured)' : 'no call has a measured latency']));
    if (s.longest_gap) box.append(card('Longest pause', fmtDuration(s.longest_gap.ms), ['before ', lineLink(s.longest_gap.line)]));
    box.append(card('Messages', fmtInt(s.messages), [plural(s.subagents, 'subagent'), ...companionCount(s.messages, apm.messages, 'message')]));
    const errs = data.findings.filter((f) => f.severity === 'error').length;
    box.append(card('Findings', fmtInt(data.findings.length + data.findings_omitted), [plural(errs, 'error') + (data.findings_omitted ? ' (first ' + fmtInt(data.findings.length) + ' listed)' : '')]));
  }

  /**
   * @param {string} boxId
   * @param {string[]} heads
   * @param {any[][]} rowsData cells: a string/number, or a Node
   * @param {string} empty what to say without rows
   * @param {number[]} [numeric] columns aligned right
   * @param {string} [more] a note after the table
   */
  function table(boxId, heads, rowsData, empty, numeric, more) {
    const box = $(boxId);
    box.replaceChildren();
    if (rowsData.length === 0) {
      box.append(el('p', 'empty', empty));
      return;
    }
    const wrap = el('div', 'table-wrap');
    const tbl = el('table');
    const thead = el('thead');
    const hr = el('tr');
    heads.forEach((h, i) => hr.append(el('th', numeric && numeric.includes(i) ? 'num' : '', h)));
    thead.append(hr);
    const tbody = el('tbody');
    for (const r of rowsData) {
      const tr = el('tr');
      r.forEach((cell, i) => {
        const td = el('td', numeric && numeric.includes(i) ? 'num' : '');
        if (cell instanceof Node) td.append(cell);
        else td.textContent = String(cell);
        tr.append(td);
      });
      tbody.append(tr);
    }
    tbl.append(thead, tbody);
    wrap.append(tbl);
    box.append(wrap);
    if (more) box.append(el('p', 'muted', more));
  }

  /** @param {number} o */
  function outcomeCell(o) {
    return el('span', 'outcome ' + OUTCOMES[o], OUTCOMES[o]);
  }

  function renderTables() {
    table('phases', ['phase', 'lines', 'time', 'calls', 'errors', 'tokens out'],
      data.phases.map((p) => [p.name || '(unnamed)', lineLink(p.line, p.line + '–' + p.end_line), optDuration(p.duration_ms), fmtInt(p.tool_calls), fmtInt(p.errors), fmtInt(p.tokens.out)]),
      'No @phase lines.', [2, 3, 4, 5]);
    table('tools', ['tool', 'calls', 'errors', 'unfinished', 'median', 'p95', 'max'],
      data.tools.map((t) => [t.name, fmtInt(t.calls), fmtInt(t.errors), fmtInt(t.unfinished), optDuration(t.latency.median_ms), optDuration(t.latency.p95_ms), optDuration(t.latency.max_ms)]),
      'No tool calls.', [1, 2, 3, 4, 5, 6]);
    const c = data.calls;
    const measured = [];
    for (let i = 0; i < c.line.length; i++) if (c.latency_ms[i] >= 0) measured.push(i);
    measured.sort((a, b) => c.latency_ms[b] - c.latency_ms[a] || c.line[a] - c.line[b]);
    table('slowest', ['tool', 'line', 'latency', 'outcome'],
      measured.slice(0, 20).map((i) => [data.tools[c.tool[i]].name, lineLink(c.line[i]), fmtDuration(c.latency_ms[i]), outcomeCell(c.outcome[i])]),
      'No call has a measured latency (no ts= on its lines, no latency_ms=).', [2]);
    const gaps = data.gaps.slice().sort((a, b) => b.ms - a.ms).slice(0, 10);
    table('gaps', ['pause', 'before', 'after'],
      gaps.map((g) => [fmtDuration(g.ms), lineLink(g.line), lineLink(g.previous_line)]),
      data.timed ? 'No pause of a minute or more.' : 'No timestamps, so no pauses.', [0]);
    table('subagents', ['type', 'id', 'lines', 'status', 'time', 'calls'],
      data.subagents.map((s) => [s.type, s.id, lineLink(s.line, s.end_line ? s.line + '–' + s.end_line : s.line + '–'), s.status || '—', optDuration(s.duration_ms), s.calls ? fmtInt(s.calls) : '—']),
      'No subagents.', [4, 5]);
    const shown = data.findings.slice(0, 500);
    const hidden = data.findings.length - shown.length + data.findings_omitted;
    table('findings', ['line', 'severity', 'code', 'message'],
      shown.map((f) => [lineLink(f.line, String(f.line)), el('span', 'sev ' + f.severity, f.severity), f.code, el('span', 'msg', f.message)]),
      'No findings.', [], hidden > 0 ? fmtInt(hidden) + ' more; rlog-ls check lists them all.' : '');
  }

  // ---- the timeline

  const ROW_H = 14, ROW_GAP = 3, SUB_H = 10;

  function layout() {
    rows = [];
    let y = geometry.phaseH + 6;
    for (let lane = 0; lane < data.lanes.main; lane++) {
      rows.push({ label: lane === 0 ? 'calls' : '', y, h: ROW_H, kind: 'calls', group: -1, lane });
      y += ROW_H + ROW_GAP;
    }
    data.lanes.subagents.forEach((callLanes, g) => {
      y += 6;
      rows.push({ label: g === 0 ? 'subagents' : '', y, h: SUB_H, kind: 'subagent', group: g, lane: -1 });
      y += SUB_H + ROW_GAP;
      for (let lane = 0; lane < callLanes; lane++) {
        rows.push({ label: '', y, h: ROW_H - 2, kind: 'calls', group: g, lane });
        y += ROW_H - 2 + ROW_GAP;
      }
    });
    y += 8;
    rows.push({ label: 'findings', y, h: 10, kind: 'findings', group: 0, lane: 0 });
    y += 10 + ROW_GAP + 4;
    rows.push({ label: 'pauses', y, h: 8, kind: 'pauses', group: 0, lane: 0 });
    y += 8 + 8;
    geometry.axisY = y;
    geometry.height = y + 18;
  }

  /** callRow maps (group, lane) to the row's index. */
  let callRowIndex = new Map();
  function indexRows() {
    callRowIndex = new Map();
    rows.forEach((r, i) => {
      if (r.kind === 'calls') callRowIndex.set(r.group + ':' + r.lane, i);
      if (r.kind === 'subagent') callRowIndex.set('sub:' + r.group, i);
    });
  }

  const timeline = /** @type {HTMLCanvasElement} */ ($('timeline'));
  const tokensCanvas = /** @type {HTMLCanvasElement} */ ($('tokens'));

  /** @param {HTMLCanvasElement} canvas @param {number} cssHeight */
  function prepare(canvas, cssHeight) {
    const dpr = window.devicePixelRatio || 1;
    const cssWidth = canvas.clientWidth || 800;
    canvas.style.height = cssHeight + 'px';
    canvas.width = Math.round(cssWidth * dpr);
    canvas.height = Math.round(cssHeight * dpr);
    const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return { ctx, width: cssWidth };
  }

  /** Nice tick steps: time in ms, order in lines. */
  const TIME_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5, 36e5, 72e5, 108e5, 216e5, 432e5, 864e5];

  /** @param {number} pxPerUnit */
  function tickStep(pxPerUnit) {
    const minPx = 90;
    if (axis === 'time') {
      for (const s of TIME_STEPS) if (s * pxPerUnit >= minPx) return s;
      return TIME_STEPS[TIME_STEPS.length - 1] * Math.ceil(minPx / (TIME_STEPS[TIME_STEPS.length - 1] * pxPerUnit));
    }
    let s = 1;
    for (;;) {
      for (const m of [1, 2, 5]) if (s * m * pxPerUnit >= minPx) return s * m;
      s *= 10;
    }
  }

  /** @param {number} p */
  function tickLabel(p) {
    if (axis === 'order') return 'line ' + fmtInt(p);
    return p === 0 ? '0' : fmtDuration(p);
  }

  /** span writes the session's start and end: 2025-12-19 20:29:02 → 20:33:00 UTC. */
  function span() {
    const a = (data.start || '').replace('T', ' ').replace(/\.\d+/, '').replace('Z', '');
    const b = (data.end || '').replace('T', ' ').replace(/\.\d+/, '').replace('Z', '');
    if (a.slice(0, 10) === b.slice(0, 10)) return a + ' → ' + b.slice(11) + ' UTC';
    return a + ' → ' + b + ' UTC';
  }

  /** @param {CanvasRenderingContext2D} ctx @param {number} top @param {number} bottom @param {boolean} labels */
  function drawPhaseBands(ctx, top, bottom, labels) {
    const ph = data.phases;
    for (let i = 0; i < ph.length; i++) {
      const a = X(pos(ph[i].line));
      const b = X(i + 1 < ph.length ? pos(ph[i + 1].line) : (axis === 'order' ? data.lines + 1 : full.d1));
      if (b < geometry.plotX || a > geometry.width) continue;
      const x0 = Math.max(a, geometry.plotX), x1 = Math.min(b, geometry.width);
      ctx.fillStyle = i % 2 ? colors['band-b'] : colors['band-a'];
      ctx.fillRect(x0, top, Math.max(1, x1 - x0), bottom - top);
      if (labels && x1 - x0 > 24) {
        ctx.fillStyle = colors.fg;
        ctx.save();
        ctx.beginPath();
        ctx.rect(x0, 0, x1 - x0 - 2, geometry.phaseH + 2);
        ctx.clip();
        ctx.fillText(ph[i].name || '(unnamed)', x0 + 4, 13);
        ctx.restore();
      }
    }
  }

  /** @param {CanvasRenderingContext2D} ctx @param {number} width @param {number} y */
  function drawAxis(ctx, width, y) {
    const span = view.d1 - view.d0;
    const pxPerUnit = (width - geometry.plotX) / span;
    const step = tickStep(pxPerUnit);
    ctx.strokeStyle = colors.border;
    ctx.fillStyle = colors.muted;
    ctx.beginPath();
    ctx.moveTo(geometry.plotX, y + 0.5);
    ctx.lineTo(width, y + 0.5);
    ctx.stroke();
    const first = Math.ceil(view.d0 / step) * step;
    for (let p = first; p <= view.d1; p += step) {
      const x = Math.round(X(p)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(x, y);
      ctx.lineTo(x, y + 4);
      ctx.stroke();
      ctx.fillText(tickLabel(p), x + 2, y + 14);
    }
  }

  /** Per-pixel bins for items narrower than a pixel. */
  let binCount = new Uint32Array(0);
  let binWorst = new Uint8Array(0);

  function drawTimeline() {
    const t0 = performance.now();
    layout();
    indexRows();
    const { ctx, width } = prepare(timeline, geometry.height);
    geometry.width = width;
    ctx.font = '11px system-ui, sans-serif';
    ctx.clearRect(0, 0, width, geometry.height);
    drawPhaseBands(ctx, 0, geometry.axisY, true);
    // Row labels.
    ctx.fillStyle = colors.muted;
    for (const r of rows) if (r.label) ctx.fillText(r.label, 4, r.y + r.h - 1);

    const W = Math.max(1, Math.ceil(width));
    const nbins = rows.length * W;
    if (binCount.length < nbins) {
      binCount = new Uint32Array(nbins);
      binWorst = new Uint8Array(nbins);
    } else {
      binCount.fill(0, 0, nbins);
      binWorst.fill(0, 0, nbins);
    }
    let drawn = 0, binned = 0;
    const plotX = geometry.plotX;
    const scale = (width - plotX) / (view.d1 - view.d0);
    const c = data.calls;
    const outcomeColor = [colors.unfinished, colors.ok, colors.error];
    const worstOf = [1, 0, 2]; // rank: error > unfinished > ok
    ctx.save();
    ctx.beginPath();
    ctx.rect(plotX, 0, width - plotX, geometry.height);
    ctx.clip();
    for (let i = 0; i < callStart.length; i++) {
      const s = callStart[i], e = callEnd[i];
      if (e < view.d0 || s > view.d1) continue;
      const row = rows[callRowIndex.get(c.group[i] + ':' + c.lane[i])];
      if (!row) continue;
      const x0 = plotX + (s - view.d0) * scale;
      const x1 = plotX + (e - view.d0) * scale;
      if (x1 - x0 >= 1) {
        ctx.fillStyle = outcomeColor[c.outcome[i]];
        const left = Math.max(x0, plotX - 1), right = Math.min(x1, width + 1);
        ctx.fillRect(left, row.y, Math.max(1, right - left - (x1 - x0 > 3 ? 0.6 : 0)), row.h);
        drawn++;
      } else {
        const col = Math.min(W - 1, Math.max(0, Math.floor(x0)));
        const k = callRowIndex.get(c.group[i] + ':' + c.lane[i]) * W + col;
        binCount[k]++;
        binWorst[k] = Math.max(binWorst[k], worstOf[c.outcome[i]] + 1);
        binned++;
      }
    }
    // Subagents.
    for (const sa of data.subagents) {
      const row = rows[callRowIndex.get('sub:' + sa.lane)];
      if (!row) continue;
      const s = pos(sa.line);
      const e = sa.end_line ? (axis === 'order' ? sa.end_line + 1 : pos(sa.end_line)) : full.d1;
      if (e < view.d0 || s > view.d1) continue;
      const x0 = X(s), x1 = X(e);
      ctx.fillStyle = colors.subagent;
      ctx.globalAlpha = sa.status === 'error' ? 1 : 0.75;
      ctx.fillRect(Math.max(x0, plotX - 1), row.y, Math.max(1.5, Math.min(x1, width) - Math.max(x0, plotX - 1)), row.h);
      ctx.globalAlpha = 1;
      drawn++;
    }
    // Findings: one mark each, or one per pixel.
    const fRowIndex = rows.findIndex((r) => r.kind === 'findings');
    const fRow = rows[fRowIndex];
    for (const f of data.findings) {
      const x = X(axis === 'order' ? f.line + 0.5 : pos(f.line));
      if (x < plotX - 3 || x > width + 3) continue;
      const k = fRowIndex * W + Math.min(W - 1, Math.max(0, Math.floor(x)));
      binCount[k]++;
      binWorst[k] = Math.max(binWorst[k], SEVERITY_RANK[f.severity] || 1);
    }
    // Pauses.
    const pRow = rows.find((r) => r.kind === 'pauses');
    if (pRow && axis === 'time') {
      ctx.fillStyle = colors.pause;
      for (const g of data.gaps) {
        const x0 = X(pos(g.previous_line)), x1 = X(pos(g.line));
        if (x1 < plotX || x0 > width) continue;
        ctx.fillRect(Math.max(x0, plotX), pRow.y, Math.max(1, Math.min(x1, width) - Math.max(x0, plotX)), pRow.h);
      }
    }
    // The bins: a column per pixel, its colour the worst outcome in it, its
    // strength how many items it holds.
    let bins = 0;
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r];
      const base = r * W;
      for (let col = 0; col < W; col++) {
        const n = binCount[base + col];
        if (n === 0) continue;
        bins++;
        const worst = binWorst[base + col];
        if (row.kind === 'findings') {
          ctx.fillStyle = worst >= 4 ? colors.error : worst === 3 ? colors.finding : colors.muted;
          ctx.fillRect(col - 1, row.y, 3, row.h);
        } else {
          ctx.fillStyle = worst === 3 ? colors.error : worst === 2 ? colors.unfinished : colors.ok;
          ctx.globalAlpha = Math.min(1, 0.45 + 0.15 * n);
          ctx.fillRect(col, row.y, 1, row.h);
        }
      }
    }
    ctx.globalAlpha = 1;
    // The selected line.
    if (selectedLine > 0) {
      const x = Math.round(X(axis === 'order' ? selectedLine + 0.5 : pos(selectedLine))) + 0.5;
      ctx.strokeStyle = colors.highlight;
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.moveTo(x, 0);
      ctx.lineTo(x, geometry.axisY);
      ctx.stroke();
      ctx.lineWidth = 1;
    }
    ctx.restore();
    void fRow;
    drawAxis(ctx, width, geometry.axisY);
    stats.drawMs = performance.now() - t0;
    stats.drawn = drawn;
    stats.binned = binned;
    stats.bins = bins;
    stats.draws++;
  }

  function drawTokens() {
    const height = 150;
    const { ctx, width } = prepare(tokensCanvas, height);
    ctx.font = '11px system-ui, sans-serif';
    ctx.clearRect(0, 0, width, height);
    const plotX = geometry.plotX, top = 10, bottom = height - 22;
    drawPhaseBands(ctx, top, bottom, false);
    const T = data.tokens;
    const ys = /** @type {number[]} */ (/** @type {any} */ (T)[tokenSeries]);
    const maxV = ys.length ? ys[ys.length - 1] : 0;
    ctx.fillStyle = colors.muted;
    ctx.fillText(fmtInt(maxV), 4, top + 9);
    ctx.fillText('0', 4, bottom);
    if (ys.length === 0) {
      ctx.fillText('No token usage in the log.', plotX + 8, (top + bottom) / 2);
    } else {
      const Y = (/** @type {number} */ v) => bottom - (maxV > 0 ? (v / maxV) * (bottom - top) : 0);
      ctx.save();
      ctx.beginPath();
      ctx.rect(plotX, 0, width - plotX, height);
      ctx.clip();
      ctx.strokeStyle = colors.tokens;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      let prevY = Y(0);
      ctx.moveTo(X(axis === 'order' ? 1 : full.d0), prevY);
      for (let i = 0; i < ys.length; i++) {
        const x = X(axis === 'order' ? T.line[i] + 0.5 : pos(T.line[i]));
        ctx.lineTo(x, prevY); // a step: the total holds until the next message
        prevY = Y(ys[i]);
        ctx.lineTo(x, prevY);
      }
      ctx.lineTo(X(full.d1), prevY);
      ctx.stroke();
      ctx.restore();
    }
    ctx.strokeStyle = colors.border;
    ctx.beginPath();
    ctx.moveTo(plotX, bottom + 0.5);
    ctx.lineTo(width, bottom + 0.5);
    ctx.stroke();
    drawAxis(ctx, width, bottom);
  }

  let frame = 0;
  function redraw() {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      drawTimeline();
      drawTokens();
    });
  }

  // ---- interaction

  /** @param {number} d0 @param {number} d1 */
  function setView(d0, d1) {
    const span = full.d1 - full.d0;
    const minSpan = axis === 'time' ? Math.min(span, 5) : Math.min(span, 4);
    let w0 = Math.max(d1 - d0, minSpan);
    w0 = Math.min(w0, span);
    let a = (d0 + d1) / 2 - w0 / 2;
    a = Math.max(full.d0, Math.min(a, full.d1 - w0));
    view = { d0: a, d1: a + w0 };
    redraw();
  }

  /** @param {number} factor @param {number} [at] domain point kept in place */
  function zoom(factor, at) {
    const c = at === undefined ? (view.d0 + view.d1) / 2 : at;
    const d0 = c - (c - view.d0) * factor, d1 = c + (view.d1 - c) * factor;
    const span = full.d1 - full.d0;
    const minSpan = axis === 'time' ? Math.min(span, 5) : Math.min(span, 4);
    if (d1 - d0 < minSpan) return;
    if (d1 - d0 >= span) { view = { ...full }; redraw(); return; }
    view = { d0: Math.max(full.d0, d0), d1: Math.min(full.d1, d1) };
    if (view.d0 === full.d0) view.d1 = full.d0 + (d1 - d0);
    if (view.d1 === full.d1) view.d0 = full.d1 - (d1 - d0);
    redraw();
  }

  /** @param {number} delta domain units */
  function pan(delta) {
    const w0 = view.d1 - view.d0;
    const a = Math.max(full.d0, Math.min(view.d0 + delta, full.d1 - w0));
    view = { d0: a, d1: a + w0 };
    redraw();
  }

  /**
   * hit finds what is under a point of the timeline.
   * @param {number} x @param {number} y
   * @returns {?{kind: string, index: number, count: number}}
   */
  function hit(x, y) {
    const r = rows.findIndex((row) => y >= row.y - 1 && y <= row.y + row.h + 1);
    if (r < 0 || x < geometry.plotX) return null;
    const row = rows[r];
    const tol = 3 * (view.d1 - view.d0) / (geometry.width - geometry.plotX);
    const p = domainAt(x);
    if (row.kind === 'calls') {
      const c = data.calls;
      let best = -1, count = 0;
      for (let i = 0; i < callStart.length; i++) {
        if (c.group[i] !== row.group || c.lane[i] !== row.lane) continue;
        if (callStart[i] - tol <= p && p <= callEnd[i] + tol) {
          count++;
          if (best < 0 || Math.abs(callStart[i] - p) < Math.abs(callStart[best] - p)) best = i;
        }
      }
      return best < 0 ? null : { kind: 'call', index: best, count };
    }
    if (row.kind === 'subagent') {
      for (let i = 0; i < data.subagents.length; i++) {
        const sa = data.subagents[i];
        if (sa.lane !== row.group) continue;
        const s = pos(sa.line), e = sa.end_line ? (axis === 'order' ? sa.end_line + 1 : pos(sa.end_line)) : full.d1;
        if (s - tol <= p && p <= e + tol) return { kind: 'subagent', index: i, count: 1 };
      }
      return null;
    }
    if (row.kind === 'findings') {
      let best = -1, count = 0;
      data.findings.forEach((f, i) => {
        const fp = axis === 'order' ? f.line + 0.5 : pos(f.line);
        if (Math.abs(fp - p) <= tol) {
          count++;
          if (best < 0) best = i;
        }
      });
      return best < 0 ? null : { kind: 'finding', index: best, count };
    }
    if (row.kind === 'pauses' && axis === 'time') {
      const i = data.gaps.findIndex((g) => pos(g.previous_line) - tol <= p && p <= pos(g.line) + tol);
      return i < 0 ? null : { kind: 'pause', index: i, count: 1 };
    }
    if (y <= geometry.phaseH + 4) {
      const i = phaseAt(axis === 'order' ? Math.floor(p) : lineAtPos(p));
      return i < 0 ? null : { kind: 'phase', index: i, count: 1 };
    }
    return null;
  }

  /** lineAtPos: the last line whose position is at or before p (time axis). @param {number} p */
  function lineAtPos(p) {
    const L = data.times.line, M = data.times.ms;
    let i = 0;
    while (i + 1 < M.length && M[i + 1] <= p) i++;
    return L.length ? L[i] : 1;
  }

  /** @param {number} line */
  function phaseAt(line) {
    let found = -1;
    for (let i = 0; i < data.phases.length; i++) if (data.phases[i].line <= line) found = i;
    return found;
  }

  /** describe says what an item is, for the tooltip and the details. @param {{kind: string, index: number, count: number}} h */
  function describe(h) {
    const c = data.calls;
    if (h.kind === 'call') {
      const i = h.index;
      const tool = data.tools[c.tool[i]].name;
      const lines = [tool + ' — ' + OUTCOMES[c.outcome[i]], 'line ' + c.line[i] + (c.end[i] ? ' → result on line ' + c.end[i] : ', no result')];
      if (c.latency_ms[i] >= 0) lines.push('latency ' + fmtDuration(c.latency_ms[i]));
      if (axis === 'time' && (c.stamped[i] & 1) === 0) lines.push('(placed between the timestamps around it)');
      const ph = phaseAt(c.line[i]);
      if (ph >= 0) lines.push('phase ' + (data.phases[ph].name || '(unnamed)'));
      if (h.count > 1) lines.push(fmtInt(h.count - 1) + ' more here: zoom in to tell them apart');
      return { line: c.line[i], text: lines.join('\n') };
    }
    if (h.kind === 'subagent') {
      const s = data.subagents[h.index];
      return { line: s.line, text: 'subagent ' + s.type + (s.id ? ' ' + s.id : '') + ' — ' + (s.status || '?') + '\nlines ' + s.line + '–' + (s.end_line || '…') + (s.duration_ms !== null ? '\n' + fmtDuration(s.duration_ms) : '') + (s.calls ? '\n' + plural(s.calls, 'call') : '') };
    }
    if (h.kind === 'finding') {
      const f = data.findings[h.index];
      return { line: f.line, text: f.severity + ' ' + f.code + ' on line ' + f.line + '\n' + f.message + (h.count > 1 ? '\n' + fmtInt(h.count - 1) + ' more here' : '') };
    }
    if (h.kind === 'pause') {
      const g = data.gaps[h.index];
      return { line: g.line, text: 'pause of ' + fmtDuration(g.ms) + '\nafter line ' + g.previous_line + ', before line ' + g.line };
    }
    const p = data.phases[h.index];
    return { line: p.line, text: 'phase ' + (p.name || '(unnamed)') + ', lines ' + p.line + '–' + p.end_line + '\n' + optDuration(p.duration_ms) + ', ' + plural(p.tool_calls, 'tool call') + ', ' + plural(p.errors, 'error') + ', ' + fmtInt(p.tokens.out) + ' tokens out' };
  }

  const tooltip = $('tooltip');
  const details = $('details');

  /** select shows an item's details and its line, and tells the editor. @param {number} line @param {string} text */
  function select(line, text) {
    selectedLine = line;
    details.replaceChildren();
    const lines = text.split('\n');
    details.append(el('span', 'kind', lines[0]), ' · ', lineLink(line));
    if (lines.length > 1) details.append(' · ' + lines.slice(1).join(' · '));
    document.querySelectorAll('tr.selected').forEach((tr) => tr.classList.remove('selected'));
    document.querySelectorAll('a[data-line="' + line + '"]').forEach((a) => {
      const tr = a.closest('tr');
      if (tr) tr.classList.add('selected');
    });
    redraw();
  }

  /** reveal asks the editor to show the line (in VS Code), or marks it in the address. @param {number} line */
  function reveal(line) {
    if (vscode) vscode.postMessage({ type: 'reveal', line });
    else if (!data.link && location.hash !== '#L' + line) history.replaceState(null, '', '#L' + line);
  }

  /** show brings a line into the timeline's view. @param {number} line */
  function show(line) {
    const p = axis === 'order' ? line + 0.5 : pos(line);
    if (p < view.d0 || p > view.d1) {
      const w0 = view.d1 - view.d0;
      setView(p - w0 / 2, p + w0 / 2);
    }
  }

  /** focusLine: what a code lens asks for: the session, or a phase, or a line. @param {number} line */
  function focusLine(line) {
    const i = data.phases.findIndex((p) => p.line === line);
    if (i >= 0) {
      const p = data.phases[i];
      const s = axis === 'order' ? p.line : pos(p.line);
      const e = axis === 'order' ? p.end_line + 1 : (i + 1 < data.phases.length ? pos(data.phases[i + 1].line) : full.d1);
      const m = (e - s) * 0.04;
      setView(s - m, e + m);
      select(p.line, describe({ kind: 'phase', index: i, count: 1 }).text);
      return;
    }
    if (line <= 1 || data.phases.length === 0 && line < (data.calls.line[0] || 2)) {
      view = { ...full };
      selectedLine = 0;
      redraw();
      return;
    }
    select(line, 'line ' + line);
    show(line);
  }

  let drag = /** @type {?{x: number, d0: number, moved: boolean}} */ (null);
  timeline.addEventListener('mousedown', (e) => {
    drag = { x: e.offsetX, d0: view.d0, moved: false };
    timeline.classList.add('dragging');
  });
  window.addEventListener('mouseup', () => {
    timeline.classList.remove('dragging');
    setTimeout(() => { drag = null; }, 0);
  });
  timeline.addEventListener('mousemove', (e) => {
    if (drag && (e.buttons & 1)) {
      const dx = e.offsetX - drag.x;
      if (Math.abs(dx) > 2) drag.moved = true;
      if (drag.moved) {
        const units = dx * (view.d1 - view.d0) / (geometry.width - geometry.plotX);
        const w0 = view.d1 - view.d0;
        const a = Math.max(full.d0, Math.min(drag.d0 - units, full.d1 - w0));
        view = { d0: a, d1: a + w0 };
        tooltip.hidden = true;
        redraw();
        return;
      }
    }
    const h = hit(e.offsetX, e.offsetY);
    if (!h) {
      tooltip.hidden = true;
      return;
    }
    tooltip.textContent = describe(h).text;
    tooltip.hidden = false;
    const left = Math.min(e.offsetX + 14, Math.max(0, timeline.clientWidth - tooltip.offsetWidth - 4));
    tooltip.style.left = left + 'px';
    tooltip.style.top = (e.offsetY + 14) + 'px';
  });
  timeline.addEventListener('mouseleave', () => { tooltip.hidden = true; });
  timeline.addEventListener('click', (e) => {
    if (drag && drag.moved) return;
    const h = hit(e.offsetX, e.offsetY);
    if (!h) return;
    const d = describe(h);
    select(d.line, d.text);
    reveal(d.line);
  });
  timeline.addEventListener('dblclick', () => { view = { ...full }; redraw(); });
  timeline.addEventListener('wheel', (e) => {
    e.preventDefault();
    if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      pan((e.shiftKey ? e.deltaY : e.deltaX) * (view.d1 - view.d0) / (geometry.width - geometry.plotX));
      return;
    }
    zoom(Math.pow(1.0015, e.deltaY), domainAt(e.offsetX));
  }, { passive: false });
  timeline.addEventListener('keydown', (e) => {
    const step = (view.d1 - view.d0) * 0.15;
    if (e.key === '+' || e.key === '=') zoom(0.7);
    else if (e.key === '-' || e.key === '_') zoom(1 / 0.7);
    else if (e.key === '0') { view = { ...full }; redraw(); }
    else if (e.key === 'ArrowLeft') pan(-step);
    else if (e.key === 'ArrowRight') pan(step);
    else return;
    e.preventDefault();
  });
  $('zoom-in').addEventListener('click', () => zoom(0.6));
  $('zoom-out').addEventListener('click', () => zoom(1 / 0.6));
  $('zoom-reset').addEventListener('click', () => { view = { ...full }; redraw(); });

  /** @param {string} mode */
  function setAxis(mode) {
    if (mode === 'time' && !data.timed) mode = 'order';
    // Keep the same lines in view across the switch.
    const lines = axis === mode ? null : [axis === 'order' ? view.d0 : lineAtPos(view.d0), axis === 'order' ? view.d1 : lineAtPos(view.d1) + 1];
    const wasFull = view.d0 === full.d0 && view.d1 === full.d1;
    axis = mode;
    $('axis-time').setAttribute('aria-pressed', String(mode === 'time'));
    $('axis-order').setAttribute('aria-pressed', String(mode === 'order'));
    computePositions();
    if (wasFull || !lines) view = { ...full };
    else setView(axis === 'order' ? lines[0] : pos(lines[0]), axis === 'order' ? lines[1] : pos(lines[1]));
    redraw();
  }
  $('axis-time').addEventListener('click', () => setAxis('time'));
  $('axis-order').addEventListener('click', () => setAxis('order'));
  $('series-switch').addEventListener('click', (e) => {
    const b = /** @type {HTMLElement} */ (e.target).closest('button');
    if (!b || !b.dataset.series) return;
    tokenSeries = b.dataset.series;
    document.querySelectorAll('#series-switch button').forEach((x) => x.setAttribute('aria-pressed', String(x === b)));
    redraw();
  });

  // Line links anywhere in the page: show the line on the timeline, and in
  // the editor when there is one.
  document.addEventListener('click', (e) => {
    const a = /** @type {HTMLElement} */ (e.target).closest('a[data-line]');
    if (!a) return;
    const line = Number(/** @type {HTMLElement} */ (a).dataset.line);
    const tr = a.closest('tr');
    select(line, tr ? (tr.firstChild ? String(tr.firstChild.textContent) : '') : 'line ' + line);
    show(line);
    if (vscode) {
      e.preventDefault();
      vscode.postMessage({ type: 'reveal', line });
    }
  });

  window.addEventListener('message', (e) => {
    const m = e.data;
    if (!m || typeof m !== 'object') return;
    if (m.type === 'focus' && typeof m.line === 'number') focusLine(m.line);
    if (m.type === 'data' && m.data) load(m.data, true);
  });

  if (typeof ResizeObserver === 'function') new ResizeObserver(() => redraw()).observe(timeline);
  else window.addEventListener('resize', redraw);
  if (window.matchMedia) window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { readColors(); redraw(); });

  // ---- loading

  /** @param {Data} d @param {boolean} keepView */
  function load(d, keepView) {
    if (!d || d.version !== DATA_VERSION) {
      const err = $('error');
      err.textContent = 'This page cannot show data of version ' + (d && d.version) + ' (it shows version ' + DATA_VERSION + '): the page and the rlog-ls that made the data differ.';
      err.hidden = false;
      return;
    }
    const old = view, oldAxis = axis;
    data = d;
    readColors();
    $('title').textContent = d.file || d.id || 'Session';
    $('subtitle').textContent = (d.id ? 'session ' + d.id + ' · ' : '') + fmtInt(d.lines) + ' lines';
    $('footer').textContent = 'Made by ' + (d.generator || 'rlog-ls') + (d.file ? ' from ' + d.file : '') + '. Everything is in this page; it loads nothing.';
    const notice = $('notice');
    if (!d.timed) {
      notice.textContent = 'This log has ' + (d.start ? 'one timestamp' : 'no timestamps') +
        ', so the timeline shows the log in line order, not in time: a bar spans the lines from a call to its result.' +
        ' Autopilot logs write a ts= only on @start; converted Claude Code sessions have one on every line.';
      notice.hidden = false;
    } else notice.hidden = true;
    $('axis-time').toggleAttribute('disabled', !d.timed);
    $('axis-time').title = d.timed ? 'Place items by their timestamps' : 'The log has no timestamps to place items by';
    axis = keepView ? (d.timed ? oldAxis : 'order') : (d.timed ? 'time' : 'order');
    $('axis-time').setAttribute('aria-pressed', String(axis === 'time'));
    $('axis-order').setAttribute('aria-pressed', String(axis === 'order'));
    computePositions();
    view = keepView && old.d1 <= full.d1 && old.d0 >= full.d0 && oldAxis === axis ? old : { ...full };
    renderSummary();
    renderTables();
    drawTimeline();
    drawTokens();
    const m = /^#L(\d+)$/.exec(location.hash);
    if (m && !keepView) focusLine(Number(m[1]));
    // In VS Code: the extension waits for this to send a place to show.
    if (vscode && !keepView) vscode.postMessage({ type: 'ready' });
    document.body.dataset.ready = '1';
  }

  // For tests and tools: the last draw's numbers, and where a call is drawn.
  w.rlogReport = {
    stats,
    fmtDuration,
    fmtInt,
    view: () => ({ ...view }),
    axis: () => axis,
    /** @param {number} i the call's index: its bar's middle in page coordinates */
    callPoint(i) {
      const row = rows[callRowIndex.get(data.calls.group[i] + ':' + data.calls.lane[i])];
      const r = timeline.getBoundingClientRect();
      const x0 = Math.max(X(callStart[i]), geometry.plotX), x1 = Math.min(X(callEnd[i]), geometry.width);
      return { x: r.left + (x0 + Math.max(x1, x0 + 1)) / 2, y: r.top + row.y + row.h / 2, visible: x1 >= geometry.plotX && x0 <= geometry.width };
    },
  };

  try {
    load(JSON.parse(String($('rlog-data').textContent)), false);
  } catch (err) {
    const e = $('error');
    e.textContent = 'The session data could not be read: ' + String(err);
    e.hidden = false;
    throw err;
  }
})();

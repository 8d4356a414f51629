/// <reference lib="dom" />
// The barrier timeline's renderer: the script of the page that draws a `TimelineModel` on a canvas
// (timeline-html.ts writes the page). The editor's timeline panel and `phaseflip sim --timeline`
// run this same function: the page embeds its source (`Function.prototype.toString`), so it must
// stay self-contained — no imports, nothing from module scope, only what a browser has.
//
// Drawing is virtualised: only the visible time window and rows are drawn, and where a window holds
// more events than pixels, one event per pixel column is found by bisection, so 10⁵ events pan and
// zoom at frame rate. Colours come from the page's CSS variables (VS Code's `--vscode-*`, with
// fallbacks in the standalone file), read at every draw so a theme change shows at once.
import type { TimelineModel } from './timeline';

/** What the page can ask of its host (the editor); absent in the standalone file. */
export interface TimelineHost {
  /** Travel to simulated time `cycle` (the debugger's step back / forward). */
  travel?(cycle: number): void;
  /** Show a source line (zero-based) in the editor. */
  reveal?(at: { line: number; file?: string }): void;
}

/** What the page exposes as `window.phaseflipTimeline` (tests click through it). */
export interface TimelineViewHandle {
  update(model: TimelineModel): void;
  /** The model shown now. */
  model(): TimelineModel;
  /** The x (CSS pixels, relative to the canvas) of a cycle in the current window. */
  xOf(cycle: number): number;
  /** The y of a row's middle (`TimelineBarrierRow.key` or `warp:` + `TimelineWarpRow.key`), or -1 when scrolled away. */
  yOf(row: string): number;
  /** The visible window in cycles. */
  window(): { start: number; end: number };
  setWindow(start: number, end: number): void;
  /** The tooltip's text for the point (canvas CSS pixels), what hovering there shows. */
  tooltipAt(x: number, y: number): string;
}

export function timelineView(initial: TimelineModel, host: TimelineHost): TimelineViewHandle {
  const GUTTER = 190;
  const AXIS = 26;
  const BARRIER_ROW = 30;
  const WARP_ROW = 20;
  const canvas = document.getElementById('timeline') as HTMLCanvasElement;
  const tip = document.getElementById('tooltip') as HTMLDivElement;
  const status = document.getElementById('status') as HTMLDivElement;
  const ctx = canvas.getContext('2d')!;
  let model = initial;
  let t0 = 0;
  let t1 = Math.max(1, model.end);
  let scrollY = 0;
  let dirty = false;
  let hover: { x: number; y: number } | undefined;
  let drag: { x: number; start: number; end: number; moved: boolean } | undefined;

  type Row = { key: string; kind: 'barrier' | 'warp' | 'heading'; label: string; y: number; h: number; index: number };
  let rows: Row[] = [];
  const layout = (): void => {
    rows = [];
    let y = AXIS;
    model.barriers.forEach((b, i) => {
      rows.push({ key: b.key, kind: 'barrier', label: b.label + (b.block > 0 || model.barriers.some((x) => x.block > 0) ? ` (block ${b.block})` : '') + (b.count !== undefined ? ` · count ${b.count}` : ''), y, h: BARRIER_ROW, index: i });
      y += BARRIER_ROW;
    });
    if (model.warps.length) {
      rows.push({ key: 'heading', kind: 'heading', label: 'blocked warps', y, h: 16, index: -1 });
      y += 16;
    }
    model.warps.forEach((w, i) => {
      rows.push({ key: `warp:${w.key}`, kind: 'warp', label: w.label, y, h: WARP_ROW, index: i });
      y += WARP_ROW;
    });
  };

  const css = (name: string, fallback: string): string => getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
  const colours = () => ({
    bg: css('--vscode-editor-background', '#1e1e1e'),
    fg: css('--vscode-editor-foreground', '#d4d4d4'),
    muted: css('--vscode-descriptionForeground', '#9d9d9d'),
    grid: css('--vscode-editorRuler-foreground', 'rgba(128,128,128,0.25)'),
    even: css('--vscode-charts-blue', '#3794ff'),
    odd: css('--vscode-charts-purple', '#b180d7'),
    tick: css('--vscode-charts-yellow', '#cca700'),
    tx: css('--vscode-charts-green', '#89d185'),
    wait: css('--vscode-charts-orange', '#d18616'),
    error: css('--vscode-errorForeground', '#f48771'),
    cursor: css('--vscode-editorCursor-foreground', '#aeafad'),
    font: css('--vscode-font-family', 'system-ui, sans-serif'),
  });

  const width = () => canvas.clientWidth;
  const height = () => canvas.clientHeight;
  const scale = () => (width() - GUTTER) / Math.max(1e-9, t1 - t0);
  const xOf = (t: number) => GUTTER + (t - t0) * scale();
  const timeAt = (x: number) => t0 + (x - GUTTER) / scale();

  /** First index whose `key(item)` is ≥ t (the list is sorted by it). */
  const bisect = <T>(list: readonly T[], t: number, key: (item: T) => number): number => {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (key(list[mid]) < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  /** Calls `fn` for the items in [a, b] — all of them, or one per pixel column when they outnumber the pixels. */
  const visible = <T>(list: readonly T[], a: number, b: number, key: (item: T) => number, fn: (item: T) => void): void => {
    const from = bisect(list, a, key);
    const to = bisect(list, b + 1e-9, key);
    // One item per two pixels is as much as the eye tells apart.
    const px = Math.max(1, (width() - GUTTER) / 2);
    if (to - from <= 2 * px) {
      for (let i = from; i < to; i++) fn(list[i]);
      return;
    }
    let i = from;
    for (let c = 0; c < px && i < to; c++) {
      const end = a + ((c + 1) * (b - a)) / px;
      fn(list[i]);
      i = Math.max(i + 1, bisect(list, end, key));
    }
  };

  /** Calls `fn` for the intervals (sorted, not overlapping) that meet [t0, t1]; of several ending within two pixels, the first. */
  const visibleSpans = <T extends { start: number; end: number }>(list: readonly T[], fn: (item: T) => void): void => {
    let i = bisect(list, t0, (s) => s.end);
    while (i < list.length && list[i].start <= t1) {
      const s = list[i];
      const x = xOf(s.end);
      fn(s);
      // Skip what ends within the next two pixels.
      const next = bisect(list, timeAt(Math.floor(x) + 2), (q) => q.end);
      i = Math.max(i + 1, next);
    }
  };

  const lineText = (at?: { line: number; file?: string }): string => {
    if (!at) return '';
    const where = `${at.file ? `${at.file.split(/[\\/]/).pop()}:` : 'line '}${at.line + 1}`;
    const text = model.lines?.[`${at.file ?? ''}:${at.line}`];
    return text ? `${where}: ${text}` : where;
  };

  const draw = (): void => {
    dirty = false;
    const dpr = window.devicePixelRatio || 1;
    const w = width();
    const h = height();
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const c = colours();
    ctx.fillStyle = c.bg;
    ctx.fillRect(0, 0, w, h);
    ctx.font = `11px ${c.font}`;
    ctx.textBaseline = 'middle';
    const future = model.cursor;
    // Time axis.
    const step = niceStep((t1 - t0) / Math.max(1, (w - GUTTER) / 90));
    ctx.strokeStyle = c.grid;
    ctx.fillStyle = c.muted;
    for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
      const x = xOf(t);
      ctx.beginPath();
      ctx.moveTo(x, AXIS - 6);
      ctx.lineTo(x, h);
      ctx.stroke();
      ctx.fillText(`${Math.round(t)}`, x + 3, AXIS / 2);
    }
    ctx.fillText('cycle', 6, AXIS / 2);
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, AXIS, w, h - AXIS);
    ctx.clip();
    for (const row of rows) {
      const y = row.y - scrollY;
      if (y + row.h < AXIS || y > h) continue;
      ctx.save();
      ctx.beginPath();
      ctx.rect(GUTTER, y, w - GUTTER, row.h);
      ctx.clip();
      if (row.kind === 'barrier') drawBarrier(model.barriers[row.index], y, row.h, c);
      else if (row.kind === 'warp') drawWarp(model.warps[row.index], y, row.h, c);
      ctx.restore();
      ctx.fillStyle = row.kind === 'heading' ? c.muted : c.fg;
      ctx.fillText(row.label.length > 30 ? `${row.label.slice(0, 29)}…` : row.label, 6, y + row.h / 2);
      ctx.strokeStyle = c.grid;
      ctx.beginPath();
      ctx.moveTo(0, y + row.h - 0.5);
      ctx.lineTo(w, y + row.h - 0.5);
      ctx.stroke();
    }
    ctx.restore();
    // The recorded future (after the cursor) is veiled; the cursor is a line across every row.
    if (future !== undefined && future < t1) {
      const x = Math.max(GUTTER, xOf(future));
      ctx.fillStyle = c.bg;
      ctx.globalAlpha = 0.45;
      ctx.fillRect(x, AXIS, w - x, h - AXIS);
      ctx.globalAlpha = 1;
    }
    for (const m of model.markers) {
      if (m.time < t0 || m.time > t1) continue;
      const x = xOf(m.time);
      ctx.strokeStyle = c.error;
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.moveTo(x, AXIS);
      ctx.lineTo(x, h);
      ctx.stroke();
      ctx.lineWidth = 1;
      ctx.fillStyle = c.error;
      ctx.beginPath();
      ctx.moveTo(x - 6, AXIS);
      ctx.lineTo(x + 6, AXIS);
      ctx.lineTo(x, AXIS + 9);
      ctx.fill();
      ctx.fillText(m.kind, x + 8, AXIS + 6);
      for (const key of m.rows) {
        const row = rows.find((r) => r.key === key || r.key === `warp:${key}`);
        if (row) ctx.strokeRect(x - 4, row.y - scrollY + 2, 8, row.h - 4);
      }
    }
    if (future !== undefined && future >= t0 && future <= t1) {
      const x = xOf(future);
      ctx.strokeStyle = c.cursor;
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.moveTo(x, 0);
      ctx.lineTo(x, h);
      ctx.stroke();
      ctx.lineWidth = 1;
      ctx.fillStyle = c.cursor;
      ctx.fillText('now', x + 4, 8);
    }
    status.textContent = `cycles ${Math.round(t0)}–${Math.round(t1)} of ${model.end} · ${model.events} events · ${model.barriers.length} barriers · ${model.warps.length} warps${model.cursor !== undefined ? ` · now at cycle ${model.cursor}` : ''} · wheel: scroll, Ctrl+wheel: zoom, drag: pan, 0: fit${host.travel ? ' · click: travel there' : ''}`;
    drawTooltip();
  };

  const drawBarrier = (b: TimelineModel['barriers'][number], y: number, h: number, c: ReturnType<typeof colours>): void => {
    const band = y + 4;
    const bandH = h - 16;
    // Phases: two paths (even, odd parity) of rectangles, then the labels that fit.
    const even = new Path2D();
    const odd = new Path2D();
    const names: { x: number; text: string }[] = [];
    visibleSpans(b.phases, (p) => {
      const x0 = Math.max(GUTTER, xOf(p.start));
      const x1 = Math.min(width(), xOf(p.end));
      (p.parity ? odd : even).rect(x0, band, Math.max(1, x1 - x0), bandH);
      if (x1 - x0 > 110) names.push({ x: x0 + 4, text: `phase ${p.phase} · parity ${p.parity}` });
    });
    ctx.globalAlpha = 0.35;
    ctx.fillStyle = c.even;
    ctx.fill(even);
    ctx.fillStyle = c.odd;
    ctx.fill(odd);
    ctx.globalAlpha = 1;
    ctx.fillStyle = c.fg;
    for (const n of names) ctx.fillText(n.text, n.x, band + bandH / 2);
    // Flips: a bar at the phase boundary.
    ctx.fillStyle = c.fg;
    ctx.beginPath();
    visible(b.flips, t0, t1, (f) => f.time, (f) => ctx.rect(xOf(f.time) - 1, band, 2, bandH));
    ctx.fill();
    // Arrivals: ticks under the band (one path), labelled with who arrived while there is room.
    const labels: { x: number; text: string }[] = [];
    let lastLabel = -Infinity;
    ctx.strokeStyle = c.tick;
    ctx.beginPath();
    visible(b.arrivals, t0, t1, (a) => a.time, (a) => {
      const x = xOf(a.time);
      ctx.moveTo(x, band + bandH - 4);
      ctx.lineTo(x, y + h - 2);
      if (x - lastLabel > 44) {
        labels.push({ x, text: a.who });
        lastLabel = x;
      }
    });
    ctx.stroke();
    ctx.fillStyle = c.tick;
    for (const l of labels) ctx.fillText(l.text, l.x + 2, y + h - 6);
    ctx.fillStyle = c.tx;
    ctx.beginPath();
    visible(b.tx, t0, t1, (t) => t.time, (t) => {
      const x = xOf(t.time);
      if (t.kind === 'expect-tx') {
        ctx.moveTo(x, band);
        ctx.lineTo(x + 4, band - 4);
        ctx.lineTo(x - 4, band - 4);
      } else {
        ctx.moveTo(x, band - 4);
        ctx.lineTo(x + 4, band);
        ctx.lineTo(x - 4, band);
      }
      ctx.closePath();
    });
    ctx.fill();
  };

  const drawWarp = (wr: TimelineModel['warps'][number], y: number, h: number, c: ReturnType<typeof colours>): void => {
    visibleSpans(wr.waits, (s) => {
      const x0 = Math.max(GUTTER, xOf(s.start));
      const x1 = Math.min(width(), xOf(s.end));
      ctx.fillStyle = s.unfinished ? c.error : c.wait;
      ctx.globalAlpha = 0.6;
      ctx.fillRect(x0, y + 3, Math.max(1, x1 - x0), h - 6);
      ctx.globalAlpha = 1;
      if (x1 - x0 > 50) {
        ctx.fillStyle = c.fg;
        ctx.fillText(s.what, x0 + 3, y + h / 2);
      }
    });
  };

  /** The tooltip for a point: the nearest tick, flip or marker within a few pixels, else the phase or wait under it. */
  const tooltipAt = (x: number, y: number): string => {
    if (x < GUTTER) return '';
    const t = timeAt(x);
    const near = 5 / scale();
    for (const m of model.markers) if (Math.abs(m.time - t) <= near && y < AXIS + 12) return `${m.kind} at cycle ${m.time}\n${m.message}${m.at ? `\n${lineText(m.at)}` : ''}`;
    const row = rows.find((r) => y >= r.y - scrollY && y < r.y - scrollY + r.h);
    if (!row) return y < AXIS ? `cycle ${Math.round(t)}` : '';
    const nearest = <T extends { time: number }>(list: readonly T[]): T | undefined => {
      const i = bisect(list, t - near, (e) => e.time);
      let best: T | undefined;
      for (let k = i; k < list.length && list[k].time <= t + near; k++) if (!best || Math.abs(list[k].time - t) < Math.abs(best.time - t)) best = list[k];
      return best;
    };
    for (const m of model.markers) if (Math.abs(m.time - t) <= near && m.rows.some((k) => k === row.key || `warp:${k}` === row.key)) return `${m.kind} at cycle ${m.time}\n${m.message}${m.at ? `\n${lineText(m.at)}` : ''}`;
    if (row.kind === 'barrier') {
      const b = model.barriers[row.index];
      const a = nearest(b.arrivals);
      if (a) return `${b.label}: arrival at cycle ${a.time} by ${a.by}\ncount ${a.count}${a.tx ? ` · expect_tx ${a.tx} bytes` : ''} · towards phase ${a.phase}\n${lineText(a.at)}`;
      const tx = nearest(b.tx);
      if (tx) return `${b.label}: ${tx.kind === 'expect-tx' ? 'expect_tx' : 'complete_tx'} ${tx.bytes} bytes at cycle ${tx.time} by ${tx.by}\n${lineText(tx.at)}`;
      const f = nearest(b.flips);
      if (f) return `${b.label}: phase ${f.completed} → ${f.completed + 1} at cycle ${f.time}${f.lastArriver ? `\nlast arrival by ${f.lastArriver}` : ''}${f.at ? `\n${lineText(f.at)}` : ''}`;
      const p = b.phases[Math.max(0, bisect(b.phases, t, (q) => q.end))];
      if (p && p.start <= t) return `${b.label}: phase ${p.phase} (parity ${p.parity}) from cycle ${p.start}${p.open ? ', still open' : ` to ${p.end}`}`;
      return b.label;
    }
    if (row.kind === 'warp') {
      const wr = model.warps[row.index];
      const s = wr.waits[bisect(wr.waits, t, (q) => q.end)];
      if (s && s.start <= t) return `${wr.label}: ${s.lanes} lane${s.lanes === 1 ? '' : 's'} blocked on ${s.what} from cycle ${s.start}${s.unfinished ? ', never woke' : ` to ${s.end}`}${s.at ? `\n${lineText(s.at)}` : ''}`;
      return wr.label;
    }
    return '';
  };

  const drawTooltip = (): void => {
    const text = hover ? tooltipAt(hover.x, hover.y) : '';
    tip.style.display = text ? 'block' : 'none';
    if (!text || !hover) return;
    tip.textContent = text;
    const left = Math.min(hover.x + 14, width() - tip.offsetWidth - 4);
    tip.style.left = `${Math.max(0, left)}px`;
    tip.style.top = `${hover.y + 16 + tip.offsetHeight > height() ? hover.y - tip.offsetHeight - 6 : hover.y + 16}px`;
  };

  const niceStep = (raw: number): number => {
    const p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-9))));
    for (const m of [1, 2, 5, 10]) if (m * p >= raw) return Math.max(1, m * p);
    return Math.max(1, 10 * p);
  };

  const request = () => {
    if (dirty) return;
    dirty = true;
    requestAnimationFrame(draw);
  };
  const setWindow = (a: number, b: number): void => {
    const span = Math.max(2, b - a);
    const maxEnd = Math.max(model.end, 1);
    t0 = Math.max(-span * 0.05, Math.min(a, maxEnd));
    t1 = t0 + span;
    request();
  };
  const zoom = (factor: number, at: number): void => {
    const a = at - (at - t0) * factor;
    setWindow(a, a + (t1 - t0) * factor);
  };
  const maxScroll = () => Math.max(0, (rows.length ? rows[rows.length - 1].y + rows[rows.length - 1].h : 0) - height());

  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    if (e.ctrlKey || e.metaKey) zoom(Math.exp(e.deltaY * 0.002), timeAt(e.offsetX));
    else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      const d = ((e.shiftKey ? e.deltaY : e.deltaX) / scale()) * 0.5;
      setWindow(t0 + d, t1 + d);
    } else {
      scrollY = Math.max(0, Math.min(maxScroll(), scrollY + e.deltaY));
      request();
    }
  }, { passive: false });
  canvas.addEventListener('mousedown', (e) => {
    drag = { x: e.offsetX, start: t0, end: t1, moved: false };
  });
  canvas.addEventListener('mousemove', (e) => {
    hover = { x: e.offsetX, y: e.offsetY };
    if (drag && Math.abs(e.offsetX - drag.x) > 3) {
      drag.moved = true;
      const d = (drag.x - e.offsetX) / scale();
      setWindow(drag.start + d, drag.end + d);
    } else request();
  });
  canvas.addEventListener('mouseleave', () => {
    hover = undefined;
    drag = undefined;
    request();
  });
  canvas.addEventListener('mouseup', (e) => {
    const click = drag && !drag.moved;
    drag = undefined;
    if (!click || e.offsetX < GUTTER) return;
    const t = Math.max(0, Math.min(model.end, Math.round(timeAt(e.offsetX))));
    if (host.travel) {
      host.travel(t);
      status.textContent = `travelling to cycle ${t}…`;
    }
  });
  canvas.addEventListener('dblclick', (e) => {
    const row = rows.find((r) => e.offsetY >= r.y - scrollY && e.offsetY < r.y - scrollY + r.h);
    if (!row || !host.reveal) return;
    const t = timeAt(e.offsetX);
    const near = 5 / scale();
    const list = row.kind === 'barrier' ? model.barriers[row.index].arrivals : [];
    const hit = list.find((a) => Math.abs(a.time - t) <= near);
    if (hit?.at) host.reveal(hit.at);
  });
  window.addEventListener('keydown', (e) => {
    const mid = (t0 + t1) / 2;
    if (e.key === '+' || e.key === '=') zoom(0.5, mid);
    else if (e.key === '-') zoom(2, mid);
    else if (e.key === '0') setWindow(0, Math.max(1, model.end) * 1.02);
    else if (e.key === 'ArrowLeft') setWindow(t0 - (t1 - t0) * 0.2, t1 - (t1 - t0) * 0.2);
    else if (e.key === 'ArrowRight') setWindow(t0 + (t1 - t0) * 0.2, t1 + (t1 - t0) * 0.2);
  });
  window.addEventListener('resize', request);
  // VS Code switches themes by changing the body's class and style: redraw with the new colours.
  new MutationObserver(request).observe(document.body, { attributes: true, attributeFilter: ['class', 'style'] });
  for (const b of Array.from(document.querySelectorAll<HTMLButtonElement>('button[data-zoom]'))) {
    b.addEventListener('click', () => {
      const z = b.dataset.zoom;
      if (z === 'fit') setWindow(0, Math.max(1, model.end) * 1.02);
      else zoom(z === 'in' ? 0.5 : 2, (t0 + t1) / 2);
    });
  }

  layout();
  setWindow(0, Math.max(1, model.end) * 1.02);
  const handle: TimelineViewHandle = {
    update(next) {
      const fitted = t0 <= 0 && t1 >= model.end;
      model = next;
      layout();
      scrollY = Math.min(scrollY, maxScroll());
      if (fitted) setWindow(0, Math.max(1, model.end) * 1.02);
      else request();
    },
    model: () => model,
    xOf,
    yOf(key) {
      const row = rows.find((r) => r.key === key);
      if (!row) return -1;
      const y = row.y - scrollY + row.h / 2;
      return y < AXIS || y > height() ? -1 : y;
    },
    window: () => ({ start: t0, end: t1 }),
    setWindow,
    tooltipAt,
  };
  (window as unknown as { phaseflipTimeline: TimelineViewHandle }).phaseflipTimeline = handle;
  return handle;
}

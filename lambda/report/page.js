// The report's charts (docs/report.md): one uPlot chart per network and unit from the JSON block, rule
// thresholds as dashed lines, rule alerts and status changes as vertical lines, the last values in the legend.
// Runs in the browser; uPlot is inlined before it. No request of any kind, text only through textContent.
(() => {
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const root = document.documentElement;
  const cssVar = (name) => getComputedStyle(root).getPropertyValue(name).trim() || '#888';
  const utcDate = (ms) => uPlot.tzDate(new Date(ms), 'Etc/UTC');
  const timeText = uPlot.fmtDate('{YYYY}-{MM}-{DD} {HH}:{mm}:{ss}');
  const SUFFIXES = ['', 'k', 'M', 'G', 'T', 'P'];

  /** 12345678 -> 12.3M: axis labels that stay short on a phone. */
  function si(value) {
    if (value === null || value === undefined || !Number.isFinite(value)) return '';
    let v = Math.abs(value);
    let i = 0;
    while (v >= 1000 && i < SUFFIXES.length - 1) {
      v /= 1000;
      i++;
    }
    const digits = v >= 100 || Number.isInteger(v) ? 0 : v >= 10 ? 1 : 2;
    return `${value < 0 ? '-' : ''}${Number(v.toFixed(digits))}${SUFFIXES[i]}`;
  }

  const clock = uPlot.fmtDate('{HH}:{mm}');
  const clockSeconds = uPlot.fmtDate('{HH}:{mm}:{ss}');
  const clockMillis = uPlot.fmtDate('{HH}:{mm}:{ss}.{fff}');
  const day = uPlot.fmtDate('{YYYY}-{MM}-{DD}');
  const monthDay = uPlot.fmtDate('{MM}-{DD}');

  /** Time axis labels in UTC, 24-hour: the date under the first label and wherever the day changes. */
  function timeLabels(_u, splits, _axis, _space, increment) {
    let lastDay = '';
    return splits.map((ms) => {
      const date = utcDate(ms);
      const today = day(date);
      const time =
        increment >= 86_400_000
          ? monthDay(date)
          : increment < 1000
            ? clockMillis(date)
            : increment < 60_000
              ? clockSeconds(date)
              : clock(date);
      const label = today !== lastDay && increment < 86_400_000 ? `${time}\n${today}` : time;
      lastDay = today;
      return label;
    });
  }

  /** Vertical lines across the plot: rule alerts solid, status changes dotted. */
  function markerPlugin(marks, changes) {
    return {
      hooks: {
        draw: [
          (u) => {
            const ctx = u.ctx;
            const { top, height } = u.bbox;
            const line = (at, colour, dash) => {
              const x = Math.round(u.valToPos(at, 'x', true));
              if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
              ctx.save();
              ctx.strokeStyle = colour;
              ctx.lineWidth = 2 * devicePixelRatio;
              ctx.setLineDash(dash);
              ctx.beginPath();
              ctx.moveTo(x, top);
              ctx.lineTo(x, top + height);
              ctx.stroke();
              ctx.restore();
            };
            for (const change of changes)
              line(change.at, cssVar('--muted'), [3 * devicePixelRatio, 4 * devicePixelRatio]);
            for (const mark of marks) {
              line(mark.at, mark.event === 'network.rule_resolved' ? cssVar('--good') : cssVar('--bad'), []);
            }
          },
        ],
      },
    };
  }

  /** Horizontal dashed lines across the plot: the rules' thresholds, labelled at their left end. */
  function thresholdPlugin(thresholds) {
    return {
      hooks: {
        draw: [
          (u) => {
            const ctx = u.ctx;
            const { left, width } = u.bbox;
            for (const t of thresholds) {
              const y = Math.round(u.valToPos(t.value, 'y', true));
              ctx.save();
              ctx.strokeStyle = cssVar('--bad');
              ctx.lineWidth = 1.5 * devicePixelRatio;
              ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
              ctx.beginPath();
              ctx.moveTo(left, y);
              ctx.lineTo(left + width, y);
              ctx.stroke();
              ctx.setLineDash([]);
              ctx.fillStyle = cssVar('--bad');
              ctx.font = `${11 * devicePixelRatio}px system-ui, sans-serif`;
              ctx.textBaseline = 'bottom';
              ctx.textAlign = 'left';
              ctx.fillText(
                `${t.rule} ${t.op} ${si(t.value)}`,
                left + 4 * devicePixelRatio,
                y - 2 * devicePixelRatio,
              );
              ctx.restore();
            }
          },
        ],
      },
    };
  }

  let charts = [];

  function chartWidth(el) {
    return Math.max(260, Math.floor(el.clientWidth));
  }

  function chartHeight() {
    return window.innerWidth < 600 ? 170 : 220;
  }

  const withUnit = (v, unit) => (unit === '' ? si(v) : `${si(v)} ${unit}`);

  function build() {
    for (const chart of charts) chart.destroy();
    charts = [];
    const fg = cssVar('--fg');
    const grid = cssVar('--line');
    data.networks.forEach((net, index) => {
      if (net.x.length === 0) return;
      net.panels.forEach((panel, p) => {
        const el = document.getElementById(`chart-${index}-${p}`);
        if (el === null) return;
        const lastX = net.x[net.x.length - 1];
        const opts = {
          width: chartWidth(el),
          height: chartHeight(),
          ms: 1,
          tzDate: utcDate,
          cursor: { sync: { key: 'shieldwatch' } },
          scales: {
            x: { time: true },
            y: { range: () => panel.range },
          },
          series: [
            {
              label: 'time (UTC)',
              // Not hovering: the legend gives the last values, at the last time.
              value: (_u, v) => timeText(utcDate(v === null ? lastX : v)),
            },
            ...panel.series.map((s, k) => ({
              label: net.fields[s],
              stroke: cssVar(`--c${s % 8}`),
              width: 1.5,
              spanGaps: false,
              value: (_u, v, _si, idx) =>
                idx === null || idx === undefined
                  ? panel.last[k] === null
                    ? '-'
                    : withUnit(panel.last[k], panel.unit)
                  : v === null
                    ? '-'
                    : withUnit(v, panel.unit),
            })),
          ],
          axes: [
            {
              stroke: fg,
              grid: { stroke: grid, width: 1 },
              ticks: { stroke: grid, width: 1 },
              values: timeLabels,
            },
            {
              scale: 'y',
              side: 3,
              stroke: fg,
              grid: { show: true, stroke: grid, width: 1 },
              ticks: { stroke: grid, width: 1 },
              values: (_u, splits) => splits.map(si),
              size: 48,
              label: panel.unit === '' ? 'value' : panel.unit,
              labelSize: 18,
              labelFont: `600 12px system-ui, sans-serif`,
            },
          ],
          hooks: {
            ready: [(u) => u.setScale('x', { min: data.from, max: data.to })],
          },
          plugins: [markerPlugin(net.marks, data.changes), thresholdPlugin(panel.thresholds)],
        };
        el.textContent = '';
        const chart = new uPlot(opts, [net.x, ...panel.series.map((s) => net.ys[s])], el);
        charts.push(chart);
        el.dataset.points = String(net.x.length);
      });
    });
    document.body.dataset.charts = String(charts.length);
    // Milliseconds from the start of the page's navigation to the charts painted: the open time tests measure.
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        document.body.dataset.drawnMs = String(Math.round(performance.now()));
      }),
    );
  }

  let pending = false;
  window.addEventListener('resize', () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      for (const chart of charts) {
        chart.setSize({ width: chartWidth(chart.root.parentElement), height: chartHeight() });
      }
    });
  });
  window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', build);
  build();
})();

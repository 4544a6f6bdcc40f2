import { useEffect, useState } from 'preact/hooks';
import { call, listPath } from './api.js';
import { ErrorMessage } from './error-message.js';
import { chartBars } from './node-text.js';
import { websitePath } from './router.js';
import type { WebsitePageProps } from './website-layout.js';

/** GET /v1/websites/:id/analytics (src/control/analytics). */
interface Analytics {
  from: string;
  to: string;
  days: Array<{
    date: string;
    node_reads: number;
    reads_by_agent: Record<string, number>;
    items_ingested: number;
    published_versions: number;
  }>;
  top_files: Array<{ file: string; reads: number }>;
}

/** The agents the API tells apart, in the order the chart stacks them, with the names people know. */
const AGENTS: Array<[string, string]> = [
  ['gptbot', 'GPTBot (OpenAI)'],
  ['claudebot', 'ClaudeBot (Anthropic)'],
  ['perplexitybot', 'PerplexityBot'],
  ['google_extended', 'Google-Extended'],
  ['ccbot', 'CCBot (Common Crawl)'],
  ['bingbot', 'Bingbot'],
  ['googlebot', 'Googlebot'],
  ['other', 'Other (browsers, scripts)'],
];
const AGENT_KEYS = AGENTS.map(([key]) => key);

const RANGES = [
  ['7', 'Last 7 days'],
  ['30', 'Last 30 days'],
  ['90', 'Last 90 days'],
] as const;

/** The UTC day `days` - 1 before today, YYYY-MM-DD. */
function dayFrom(days: number): string {
  return new Date(Date.now() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
}

/** Node reads per day as a chart split by AI crawler (with the same numbers as a table), and the most read files. */
export function WebsiteAnalyticsPage({ website }: WebsitePageProps) {
  const [range, setRange] = useState('30');
  const [data, setData] = useState<Analytics>();
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    setError(undefined);
    // The API answers at most about 90 days per call; a longer range is not offered.
    call<Analytics>(
      'GET',
      listPath(`/v1/websites/${encodeURIComponent(website.id)}/analytics`, { from: dayFrom(Number(range)) }),
    ).then(setData, setError);
  }, [website.id, range]);

  const total = data?.days.reduce((sum, day) => sum + day.node_reads, 0) ?? 0;
  return (
    <>
      <h1 tabIndex={-1}>Analytics</h1>
      <label class="switcher">
        Period
        <select value={range} onChange={(e) => setRange(e.currentTarget.value)}>
          {RANGES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <ErrorMessage error={error} />
      {!data && !error && <p aria-busy="true">Loading…</p>}
      {data && (
        <>
          <h2>Node reads per day</h2>
          <p>
            {total} read(s) of the node's files from {data.from} to {data.to} (UTC).
          </p>
          {total === 0 ? (
            <p class="empty">
              No reads yet. Reads are counted when AI crawlers and others fetch the published files: publish first under{' '}
              <a href={websitePath(website.id, 'node')}>Node</a> and point crawlers at its llms.txt.
            </p>
          ) : (
            <ReadsChart data={data} />
          )}
          <h2>Most read files</h2>
          {data.top_files.length === 0 ? (
            <p class="empty">No file was read in this period.</p>
          ) : (
            <table>
              <caption class="visually-hidden">The most read node files</caption>
              <thead>
                <tr>
                  <th scope="col">File</th>
                  <th scope="col">Reads</th>
                </tr>
              </thead>
              <tbody>
                {data.top_files.map((file) => (
                  <tr key={file.file}>
                    <td>{file.file}</td>
                    <td>{file.reads}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </>
  );
}

const WIDTH = 400;
const HEIGHT = 160;
const AXIS = 32;

/** A stacked bar per day drawn as SVG from the numbers (no chart library); the table below says the same in words. */
function ReadsChart({ data }: { data: Analytics }) {
  const { bars, barWidth, max } = chartBars(data.days, AGENT_KEYS, WIDTH - AXIS, HEIGHT);
  const shown = AGENTS.filter(([key]) => data.days.some((day) => (day.reads_by_agent[key] ?? 0) > 0));
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT + 24}`}
        role="img"
        aria-labelledby="reads-chart-title"
        preserveAspectRatio="none"
      >
        <title id="reads-chart-title">
          Node reads per day from {data.from} to {data.to}, stacked by agent; at most {max} a day on the scale. The
          table after the chart lists the numbers.
        </title>
        <line class="axis" x1={AXIS} y1={HEIGHT} x2={WIDTH} y2={HEIGHT} />
        <text class="tick" x={AXIS - 4} y={12} text-anchor="end">
          {max}
        </text>
        <text class="tick" x={AXIS - 4} y={HEIGHT} text-anchor="end">
          0
        </text>
        {bars.map((bar) => (
          <g key={bar.date} transform={`translate(${AXIS} 0)`}>
            {bar.segments.map((segment) => (
              <rect
                key={segment.agent}
                class={`agent agent-${segment.agent}`}
                x={bar.x}
                y={segment.y}
                width={barWidth}
                height={segment.height}
              >
                <title>
                  {bar.date}: {segment.reads} by {segment.agent}
                </title>
              </rect>
            ))}
          </g>
        ))}
        <text class="tick" x={AXIS} y={HEIGHT + 18}>
          {data.from}
        </text>
        <text class="tick" x={WIDTH} y={HEIGHT + 18} text-anchor="end">
          {data.to}
        </text>
      </svg>
      <figcaption>
        <ul class="legend" aria-label="Agents">
          {shown.map(([key, label]) => (
            <li key={key}>
              <svg class="swatch" viewBox="0 0 10 10" aria-hidden="true">
                <rect class={`agent agent-${key}`} width="10" height="10" />
              </svg>
              {label}
            </li>
          ))}
        </ul>
      </figcaption>
      <details>
        <summary>The numbers as a table</summary>
        <div class="scroll">
          <table>
            <caption>Node reads per day by agent</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">All</th>
                {shown.map(([key, label]) => (
                  <th key={key} scope="col">
                    {label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {data.days
                .filter((day) => day.node_reads > 0)
                .map((day) => (
                  <tr key={day.date}>
                    <th scope="row">{day.date}</th>
                    <td>{day.node_reads}</td>
                    {shown.map(([key]) => (
                      <td key={key}>{day.reads_by_agent[key] ?? 0}</td>
                    ))}
                  </tr>
                ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

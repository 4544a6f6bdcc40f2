/**
 * Pure helpers of the node, jobs, knowledge and analytics pages (no DOM: test/console unit-tests them).
 */

/** One piece of a search snippet: plain text, or a matched word the API wrapped in <mark>. */
export interface SnippetPart {
  text: string;
  mark: boolean;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'", '#x27': "'" };

/** The text of HTML-escaped snippet text: the five escapes the API writes, and numeric ones. */
export function unescapeHtml(text: string): string {
  return text.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]+);/gi, (whole, name: string) => {
    const known = ENTITIES[name.toLowerCase()];
    if (known !== undefined) return known;
    const code =
      name.startsWith('#x') || name.startsWith('#X')
        ? parseInt(name.slice(2), 16)
        : name.startsWith('#')
          ? Number(name.slice(1))
          : NaN;
    return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/**
 * The snippet the search API answers (HTML-escaped text, each matched term in <mark>...</mark>) as
 * parts the page renders as text and <mark> elements: nothing of it is ever parsed as HTML, so a
 * tag the API did not write stays visible text.
 */
export function snippetParts(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  const push = (text: string, mark: boolean) => {
    if (!text) return;
    const last = parts[parts.length - 1];
    if (last && last.mark === mark) last.text += text;
    else parts.push({ text, mark });
  };
  const pattern = /<mark>([\s\S]*?)<\/mark>/g;
  let at = 0;
  for (let match = pattern.exec(snippet); match; match = pattern.exec(snippet)) {
    push(unescapeHtml(snippet.slice(at, match.index)), false);
    push(unescapeHtml(match[1]!), true);
    at = match.index + match[0].length;
  }
  push(unescapeHtml(snippet.slice(at)), false);
  return parts;
}

/** One Server-Sent Event: its name (`message` when none was given) and its data lines joined. */
export interface StreamEvent {
  event: string;
  data: string;
}

/**
 * A text/event-stream reader as the HTML standard reads one (lines end in LF, CRLF or CR, `:` is
 * a comment, a blank line dispatches), fed decoded text as it arrives, split anywhere.
 */
export class EventStreamReader {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private pendingCR = false;

  push(text: string): StreamEvent[] {
    if (this.pendingCR && text.startsWith('\n')) text = text.slice(1);
    this.pendingCR = false;
    this.buffer += text;
    const events: StreamEvent[] = [];
    for (;;) {
      const end = this.buffer.search(/[\r\n]/);
      if (end < 0) break;
      let next = end + 1;
      if (this.buffer[end] === '\r') {
        if (next === this.buffer.length) this.pendingCR = true;
        else if (this.buffer[next] === '\n') next++;
      }
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(next);
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  private line(line: string): StreamEvent | undefined {
    if (line === '') {
      const event = this.data.length > 0 ? { event: this.event || 'message', data: this.data.join('\n') } : undefined;
      this.event = '';
      this.data = [];
      return event;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    return undefined;
  }
}

/** The words a publish's progress event shows: the stage in plain words and how far it is. */
export function progressText(event: { stage: string; done: number; total: number; pass?: string }): string {
  const stage = STAGES[event.stage] ?? event.stage;
  const pass = event.stage === 'compile' && event.pass ? ` (${event.pass})` : '';
  return `${stage}${pass}: ${event.done} of ${event.total}`;
}

const STAGES: Record<string, string> = {
  compile: 'Compiling',
  check: 'Checking',
  upload: 'Uploading',
  patch: 'Patching',
  verify: 'Verifying',
  latest: 'Updating latest',
  flip: 'Switching to the new version',
};

/** A bar of the reads chart: its day, where it sits and how tall each agent's part is, in chart units. */
export interface ChartBar {
  date: string;
  x: number;
  total: number;
  segments: Array<{ agent: string; y: number; height: number; reads: number }>;
}

/**
 * Stacked bars of reads per day, split by agent, in a `width` x `height` box (y grows down, as in
 * SVG). The tallest day fills the height; a round axis maximum keeps the scale readable.
 */
export function chartBars(
  days: Array<{ date: string; reads_by_agent: Record<string, number> }>,
  agents: readonly string[],
  width: number,
  height: number,
): { bars: ChartBar[]; barWidth: number; max: number } {
  const totals = days.map((day) => agents.reduce((sum, agent) => sum + (day.reads_by_agent[agent] ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const slot = days.length > 0 ? width / days.length : width;
  const barWidth = Math.max(1, slot * 0.8);
  const bars = days.map((day, index) => {
    let top = height;
    const segments = [];
    for (const agent of agents) {
      const reads = day.reads_by_agent[agent] ?? 0;
      if (reads === 0) continue;
      const h = (reads / max) * height;
      top -= h;
      segments.push({ agent, y: top, height: h, reads });
    }
    return { date: day.date, x: index * slot + (slot - barWidth) / 2, total: totals[index]!, segments };
  });
  return { bars, barWidth, max };
}

/** The smallest of 1, 2 or 5 times a power of ten at or above `value` (1 for an empty chart). */
export function niceMax(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** One Server-Sent Event: its name (`message` when none was given) and its data. */
export interface ServerSentEvent {
  event: string;
  data: string;
}

/**
 * A parser of a text/event-stream body as the HTML standard reads one: lines end in LF, CRLF
 * or CR (even split across chunks), `:` starts a comment, `data:` lines are joined with LF, a
 * blank line dispatches the event; `id` and `retry` are ignored (a POST is never reconnected).
 */
export class ServerSentEventParser {
  private readonly decoder = new TextDecoder('utf-8');
  private buffer = '';
  private started = false;
  private afterCR = false;
  private event = '';
  private data: string[] = [];

  /** The events completed by `chunk`. */
  push(chunk: Uint8Array | string): ServerSentEvent[] {
    let text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (text.length === 0) return [];
    // The LF of a CRLF whose CR ended the previous chunk.
    if (this.afterCR && text.startsWith('\n')) text = text.slice(1);
    this.afterCR = false;
    this.buffer += text;
    const events: ServerSentEvent[] = [];
    for (;;) {
      const end = this.buffer.search(/[\r\n]/);
      if (end < 0) break;
      const line = this.buffer.slice(0, end);
      let next = end + 1;
      if (this.buffer[end] === '\r') {
        if (next === this.buffer.length) this.afterCR = true;
        else if (this.buffer[next] === '\n') next++;
      }
      this.buffer = this.buffer.slice(next);
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  /** The stream ended: an event without its blank line is dropped, as the standard says. */
  end(): ServerSentEvent[] {
    const events = this.push(this.decoder.decode());
    this.buffer = '';
    this.data = [];
    this.event = '';
    return events;
  }

  private line(line: string): ServerSentEvent | undefined {
    if (line === '') {
      if (this.data.length === 0) {
        this.event = '';
        return undefined;
      }
      const event = { event: this.event || 'message', data: this.data.join('\n') };
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

/** Every event of a whole text/event-stream body (tests, and answers read at once). */
export function parseServerSentEvents(body: string): ServerSentEvent[] {
  const parser = new ServerSentEventParser();
  return [...parser.push(body), ...parser.end()];
}

import { describe, expect, it } from 'vitest';
import { parseServerSentEvents, ServerSentEventParser } from '../../../src/sdk/api/event-stream.js';

// The text/event-stream reader of the typed client (the streamed publish), against the standard's parsing rules.
describe('ServerSentEventParser', () => {
  it('reads events, names, joined data lines and comments; an unfinished last event is dropped', () => {
    expect(
      parseServerSentEvents(
        '\uFEFF: keep-alive\n\nevent: progress\ndata: {"done":1}\n\ndata: a\ndata:b\n\nevent: result\nid: 7\ndata: {}\n\nevent: cut\ndata: x',
      ),
    ).toEqual([
      { event: 'progress', data: '{"done":1}' },
      { event: 'message', data: 'a\nb' },
      { event: 'result', data: '{}' },
    ]);
  });

  it('takes LF, CRLF and CR line ends, also split across chunks, and UTF-8 split inside a character', () => {
    const parser = new ServerSentEventParser();
    const bytes = new TextEncoder().encode('event: a\r\ndata: é\r\n\r\nevent: b\rdata: 2\r\r');
    const events = [];
    // One byte at a time, an empty chunk after each: every line end and both bytes of é fall across chunks.
    for (const byte of bytes) events.push(...parser.push(new Uint8Array([byte])), ...parser.push(''));
    events.push(...parser.end());
    expect(events).toEqual([
      { event: 'a', data: 'é' },
      { event: 'b', data: '2' },
    ]);
  });
});

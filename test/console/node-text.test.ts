import { describe, expect, it } from 'vitest';
import {
  chartBars,
  EventStreamReader,
  niceMax,
  progressText,
  snippetParts,
  unescapeHtml,
} from '../../src/console/node-text.js';

describe('snippetParts (search snippets as text and marks, never HTML)', () => {
  it('splits the marked words from the text around them', () => {
    expect(snippetParts('Jane is <mark>editor</mark> in <mark>chief</mark>.')).toEqual([
      { text: 'Jane is ', mark: false },
      { text: 'editor', mark: true },
      { text: ' in ', mark: false },
      { text: 'chief', mark: true },
      { text: '.', mark: false },
    ]);
  });

  it('unescapes the text and keeps a tag the API escaped as visible text', () => {
    expect(snippetParts('&lt;script&gt;x&lt;/script&gt; &amp; <mark>Q&amp;A</mark>')).toEqual([
      { text: '<script>x</script> & ', mark: false },
      { text: 'Q&A', mark: true },
    ]);
  });

  it('joins neighbouring parts of the same kind and drops empty ones', () => {
    expect(snippetParts('<mark>a</mark><mark>b</mark>')).toEqual([{ text: 'ab', mark: true }]);
    expect(snippetParts('')).toEqual([]);
  });

  it('an unclosed mark stays text', () => {
    expect(snippetParts('a <mark>b')).toEqual([{ text: 'a <mark>b', mark: false }]);
  });
});

describe('unescapeHtml', () => {
  it('reads the named and numeric escapes and leaves unknown ones', () => {
    expect(unescapeHtml('&quot;&#39;&#x27;&#233;&nbsp;&lt;')).toBe(`"''é&nbsp;<`);
  });
});

describe('EventStreamReader', () => {
  it('reads events split anywhere across chunks, with comments and CRLF', () => {
    const reader = new EventStreamReader();
    const text =
      ': keep-alive\r\n\r\nevent: progress\r\ndata: {"stage":"compile"}\r\n\r\nevent: result\ndata: {"ok":true}\n\n';
    const events = [];
    for (const char of text) events.push(...reader.push(char));
    expect(events).toEqual([
      { event: 'progress', data: '{"stage":"compile"}' },
      { event: 'result', data: '{"ok":true}' },
    ]);
  });

  it('joins data lines and names an unnamed event message', () => {
    const reader = new EventStreamReader();
    expect(reader.push('data: a\ndata: b\n\n')).toEqual([{ event: 'message', data: 'a\nb' }]);
    expect(reader.push('event: x\n\n')).toEqual([]);
  });
});

describe('progressText', () => {
  it('names the stage and how far it is', () => {
    expect(progressText({ stage: 'compile', done: 2, total: 9, pass: 'facts' })).toBe('Compiling (facts): 2 of 9');
    expect(progressText({ stage: 'upload', done: 3, total: 4 })).toBe('Uploading: 3 of 4');
  });
});

describe('chartBars', () => {
  it('stacks the agents of each day from the bottom, the scale rounded up', () => {
    const { bars, max, barWidth } = chartBars(
      [
        { date: '2026-11-01', reads_by_agent: { gptbot: 3, other: 1 } },
        { date: '2026-11-02', reads_by_agent: { gptbot: 0, other: 0 } },
      ],
      ['gptbot', 'other'],
      100,
      50,
    );
    expect(max).toBe(5);
    expect(barWidth).toBe(40);
    expect(bars[0]).toEqual({
      date: '2026-11-01',
      x: 5,
      total: 4,
      segments: [
        { agent: 'gptbot', y: 20, height: 30, reads: 3 },
        { agent: 'other', y: 10, height: 10, reads: 1 },
      ],
    });
    expect(bars[1]!.segments).toEqual([]);
  });

  it('niceMax is 1, 2 or 5 times a power of ten', () => {
    expect([0, 1, 3, 7, 10, 11, 99, 101].map(niceMax)).toEqual([1, 1, 5, 10, 10, 20, 100, 200]);
  });
});

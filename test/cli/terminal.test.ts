import { describe, expect, it } from 'vitest';
import { emptySummary, formatPushProgressLine, formatPushSummary } from '../../src/cli/push/progress.js';
import { barWidth, formatBar, wantsProgressBar } from '../../src/cli/terminal.js';

describe('wantsProgressBar', () => {
  it('draws a bar only on a terminal at least 20 columns wide, and never under --json', () => {
    expect(wantsProgressBar(false, { isTTY: true, columns: 80 })).toBe(true);
    expect(wantsProgressBar(false, { isTTY: true, columns: 20 })).toBe(true);
    // A zero-width pty drew one character per line.
    expect(wantsProgressBar(false, { isTTY: true, columns: 0 })).toBe(false);
    expect(wantsProgressBar(false, { isTTY: true, columns: 19 })).toBe(false);
    expect(wantsProgressBar(false, { isTTY: true })).toBe(false);
    expect(wantsProgressBar(false, { isTTY: false, columns: 80 })).toBe(false);
    expect(wantsProgressBar(true, { isTTY: true, columns: 80 })).toBe(false);
  });
});

describe('formatBar', () => {
  it('is empty at 0 of 0 (it started as a full bar)', () => {
    expect(formatBar(0, 0, 10)).toBe('░'.repeat(10));
  });

  it('fills in proportion, full only when done equals total', () => {
    expect(formatBar(5, 10, 10)).toBe('█'.repeat(5) + '░'.repeat(5));
    expect(formatBar(1999, 2000, 10)).toBe('█'.repeat(9) + '░');
    expect(formatBar(2000, 2000, 10)).toBe('█'.repeat(10));
    expect(formatBar(3000, 2000, 10)).toBe('█'.repeat(10));
  });

  it('fits the terminal: between 10 and 30 cells', () => {
    expect(barWidth(200)).toBe(30);
    expect(barWidth(20)).toBe(10);
    expect(barWidth(undefined)).toBe(30);
  });
});

describe('the push lines', () => {
  it('a progress line counts what the daemon acknowledged, of what was read', () => {
    expect(formatPushProgressLine(500, 2000, { ...emptySummary(), accepted: 498, skipped: 2 })).toBe(
      'pushed 500 of 2000: accepted 498, skipped 2, errored 0',
    );
  });

  it('the summary says how many were not sent and why', () => {
    const s = {
      ...emptySummary(),
      total: 2000,
      received: 1500,
      accepted: 1500,
      failedRequests: 1,
      notSent: 500,
      notSentReason: '[network.error] connect ECONNREFUSED 127.0.0.1:8787',
    };
    expect(formatPushSummary(s)).toBe(
      'pushed 1500 of 2000; 500 not sent: [network.error] connect ECONNREFUSED 127.0.0.1:8787\n' +
        'accepted 1500, skipped 0, errored 0, failed requests 1',
    );
    expect(formatPushSummary({ ...emptySummary(), total: 4, received: 4, skipped: 4 })).toBe(
      'pushed 4 of 4\naccepted 0, skipped 4, errored 0',
    );
  });
});

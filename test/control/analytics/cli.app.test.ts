import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadCounter } from '../../../src/control/analytics/read-counter.js';
import { readWebsiteAnalytics } from '../../../src/control/analytics/read-analytics.js';
import { rollUpAnalytics } from '../../../src/control/analytics/rollup.js';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { dataDirLayout } from '../../../src/platform/storage/data-dir.js';
import { runNodectlInProcess } from '../../helpers/cli-in-process.js';
import { makeTempDir } from '../../helpers/paths.js';
import { seedDataDir } from '../../helpers/seed.js';

/** `nodectl analytics --website`: the analytics route's numbers as a table with a chart of reads per day. */

const DAY1 = Date.UTC(2026, 10, 20, 9, 0, 0);
const DAY2 = Date.UTC(2026, 10, 21, 15, 0, 0);
let temp: { dir: string; cleanup: () => void };
let websiteId: string;

beforeAll(async () => {
  temp = makeTempDir('nodectl-analytics-cli-');
  ({ websiteId } = await seedDataDir(temp.dir));
  // Real reads through the read counter, then the real hourly-to-daily rollup.
  const db = openControlDb(dataDirLayout(temp.dir));
  let now = DAY1;
  const reads = createReadCounter(db, { now: () => now, flushMs: 3_600_000 });
  for (let i = 0; i < 4; i++) reads.count(websiteId, 'gptbot', 'llms.txt');
  reads.count(websiteId, 'googlebot', 'manifest.json');
  reads.flush();
  now = DAY2;
  for (let i = 0; i < 10; i++) reads.count(websiteId, 'claudebot', 'facts.en.jsonl');
  reads.close();
  rollUpAnalytics(db, Date.UTC(2026, 10, 22, 1, 0, 0));
  db.close();
}, 60_000);
afterAll(() => temp?.cleanup());

describe('nodectl analytics', () => {
  it('prints one line a day with reads, AI reads and a bar scaled to the busiest day, then the most read files', async () => {
    const run = await runNodectlInProcess(
      ['analytics', '--website', websiteId, '--from', '2026-11-19', '--to', '2026-11-21'],
      {
        dataDir: temp.dir,
      },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    const day = (date: string) => lines.find((l) => l.startsWith(date)) ?? '';
    expect(day('2026-11-19')).toMatch(/^2026-11-19\s+0\s+0\s+0\s+0$/);
    expect(day('2026-11-20')).toMatch(/^2026-11-20\s+5\s+4\s+0\s+0\s+█{15}$/);
    expect(day('2026-11-21')).toMatch(/^2026-11-21\s+10\s+10\s+0\s+0\s+█{30}$/);
    expect(run.stdout).toMatch(/facts\.en\.jsonl\s+10\n.*llms\.txt\s+4\n.*manifest\.json\s+1/s);
  });

  it('--json gives exactly what GET /v1/websites/:id/analytics answers', async () => {
    const run = await runNodectlInProcess(
      ['--json', 'analytics', '--website', websiteId, '--from', '2026-11-19', '--to', '2026-11-21'],
      { dataDir: temp.dir },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    const db = openControlDb(dataDirLayout(temp.dir));
    try {
      expect(JSON.parse(run.stdout)).toEqual(readWebsiteAnalytics(db, websiteId, '2026-11-19', '2026-11-21'));
    } finally {
      db.close();
    }
  });

  it('a bad date or a range that runs backwards exits 2 naming the flag; an unknown website exits 1', async () => {
    const bad = await runNodectlInProcess(['analytics', '--website', websiteId, '--from', '2026-02-30'], {
      dataDir: temp.dir,
    });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--from: must be a real calendar date');
    const backwards = await runNodectlInProcess(
      ['analytics', '--website', websiteId, '--from', '2026-11-21', '--to', '2026-11-19'],
      { dataDir: temp.dir },
    );
    expect(backwards.exitCode).toBe(2);
    expect(backwards.stderr).toContain('--from: must not be after to');
    const unknown = await runNodectlInProcess(['analytics', '--website', 'web_nope'], { dataDir: temp.dir });
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain('No website web_nope');
  });
});

#!/usr/bin/env node
// Validation of pushed items (src/ingest/endpoints/validate-item.ts), on the 10,000 pages of bench/e2e.mjs
// as the daemon has them (parsed JSON): checkItem (the compiled schema settles a valid item)
// against the schema's safeParse alone (what checkItem ran before), alternating --rounds times
// (default 7) after a warm-up round; fastest and median ms of each, and their ratio.
// Usage: npm run build && node bench/validate-item.mjs [--rounds R]
import { IngestItemSchema } from '../dist/platform/contract/ingest-item.js';
import { checkItem } from '../dist/ingest/endpoints/validate-item.js';
import { kettlePage } from './lib/kettle-pages.mjs';
import { upperMedian } from './lib/stats.mjs';

const ROUNDS = process.argv.includes('--rounds') ? Number(process.argv[process.argv.indexOf('--rounds') + 1]) : 7;
const DOMAIN = 'e2e.example';
const HOSTS = new Set([DOMAIN]);
const items = Array.from({ length: 10_000 }, (_, i) =>
  JSON.parse(JSON.stringify({ ...kettlePage(i, DOMAIN), checksum: 'sha256:' + i.toString(16).padStart(64, '0') })),
);

const variants = {
  checkItem: () => items.every((item) => checkItem(item, HOSTS).ok),
  safeParse: () => items.every((item) => IngestItemSchema.safeParse(item).success),
};
const runs = { checkItem: [], safeParse: [] };
for (let round = 0; round <= ROUNDS; round++) {
  for (const [name, run] of Object.entries(variants)) {
    const t = performance.now();
    if (!run()) throw new Error(`${name} refused a valid item`);
    if (round > 0) runs[name].push(performance.now() - t);
  }
}
const r = (x) => Math.round(x * 10) / 10;
console.log(
  JSON.stringify(
    {
      items: items.length,
      rounds: ROUNDS,
      fastest_ms: { checkItem: r(Math.min(...runs.checkItem)), safeParse: r(Math.min(...runs.safeParse)) },
      median_ms: { checkItem: r(upperMedian(runs.checkItem)), safeParse: r(upperMedian(runs.safeParse)) },
      check_item_vs_safe_parse: +(upperMedian(runs.checkItem) / upperMedian(runs.safeParse)).toFixed(2),
    },
    null,
    2,
  ),
);

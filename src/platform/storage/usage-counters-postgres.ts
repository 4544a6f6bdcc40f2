import type { PostgresStore } from './postgres.js';
import type { Db } from './sqlite.js';
import { addToCounter, readCounter } from './usage-counters.js';

/**
 * The usage counters (usage-counters.ts) behind one asynchronous interface, so that a store shared
 * by several daemons can hold them: each add is one atomic statement, and every daemon reads the
 * same totals. Not yet what the daemon counts with (docs/decisions.md: the quota checks read them
 * inside control.sqlite transactions, so they move with the organizations).
 */
export interface UsageCounters {
  /** Adds `amount` to one counter of one period; returns its value after. */
  add(organizationId: string, metric: string, period: string, amount: number): Promise<number>;
  /** One counter's value in one period (0 when nothing was counted). */
  read(organizationId: string, metric: string, period: string): Promise<number>;
}

/** The counters in control.sqlite (table usage_counters): only an existing organization's count is kept. */
export function createSqliteUsageCounters(db: Db): UsageCounters {
  return {
    async add(organizationId, metric, period, amount) {
      addToCounter(db, organizationId, metric, period, amount);
      return readCounter(db, organizationId, metric, period);
    },
    read: async (organizationId, metric, period) => readCounter(db, organizationId, metric, period),
  };
}

/** The counters in the PostgreSQL control store (table usage_counters, migration 0004). */
export function createPostgresUsageCounters(store: PostgresStore): UsageCounters {
  return {
    async add(organizationId, metric, period, amount) {
      const { rows } = await store.query<{ value: string }>(
        `INSERT INTO usage_counters (organization_id, metric, period, value) VALUES ($1, $2, $3, $4)
         ON CONFLICT (organization_id, metric, period) DO UPDATE SET value = usage_counters.value + EXCLUDED.value
         RETURNING value`,
        [organizationId, metric, period, amount],
      );
      return Number(rows[0]!.value);
    },
    async read(organizationId, metric, period) {
      const { rows } = await store.query<{ value: string }>(
        'SELECT value FROM usage_counters WHERE organization_id = $1 AND metric = $2 AND period = $3',
        [organizationId, metric, period],
      );
      return rows[0] === undefined ? 0 : Number(rows[0].value);
    },
  };
}

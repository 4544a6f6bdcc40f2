import type { Db } from '../../platform/storage/sqlite.js';
import { listDomainVerifications } from '../verification/domain-store.js';
import { tierOf } from '../verification/methods.js';
import { countsAsVerified, trustScore } from '../records/website-info.js';
import type { WebsiteRow } from './website-store.js';

/**
 * A website as every website route answers it: its fields, its own domain's verification in
 * short (GET .../verification has the whole record) and its aliases with their state.
 */
export function presentWebsite(db: Db, website: WebsiteRow) {
  const [own, ...aliases] = listDomainVerifications(db, website.id);
  const tier = tierOf(own?.method ?? null);
  const state = own?.state ?? 'pending';
  return {
    ...website,
    verification: {
      state,
      method: own?.method ?? null,
      trustTier: tier !== null && countsAsVerified(state) ? tier : 'unverified',
      trustScore: trustScore(tier, state),
    },
    aliases: aliases.map((a) => ({ domain: a.domain, state: a.state, verified: countsAsVerified(a.state) })),
  };
}

export type WebsiteView = ReturnType<typeof presentWebsite>;

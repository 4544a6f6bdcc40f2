import type { Db } from '../../platform/storage/sqlite.js';
import { resolveApiKey } from '../records/api-keys.js';
import type { ApiKeyPrincipal } from './principal.js';

/** The API-key resolver over control.sqlite: a live key's id, organization and role. */
export function apiKeyPrincipalResolver(db: Db): (key: string) => ApiKeyPrincipal | undefined {
  return (key) => {
    const record = resolveApiKey(db, key);
    return record
      ? { kind: 'api_key', keyId: record.id, organizationId: record.organizationId, role: record.role }
      : undefined;
  };
}

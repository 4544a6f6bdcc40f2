import { aliasKey, domainMapKey, MUTABLE_CACHE } from '../layout.js';
import type { PublicAlias, PublishTarget, SiteAddress } from './types.js';

const MUTABLE_JSON = { contentType: 'application/json', cacheControl: MUTABLE_CACHE };

/**
 * The address is resolved when it is read, by a server that follows the pointer (the daemon on
 * fs): the target only keeps `domains/<domain>.json`, which names the domain's site. A takedown
 * writes it too, so the daemon answers 410 for a domain that was never published (without the
 * map it would not know the domain: 404).
 */
export function domainMapAlias(target: Pick<PublishTarget, 'put'>, site: SiteAddress): PublicAlias {
  const writeMap = () =>
    target.put(
      domainMapKey(site.domain),
      JSON.stringify({ domain: site.domain, website_id: site.websiteId, site_hash: site.siteHash }) + '\n',
      MUTABLE_JSON,
    );
  return { mirrorPrefix: undefined, announce: writeMap, withdraw: writeMap };
}

/**
 * The address is a mirror of latest/ under `<domain>/` that a CDN serves as it is (S3). Its
 * manifest.json is written after the mirrored files; a takedown deletes it before them.
 */
export function mirrorAlias(target: Pick<PublishTarget, 'put' | 'delete'>, site: SiteAddress): PublicAlias {
  const manifestKey = aliasKey(site.domain, 'manifest.json');
  return {
    mirrorPrefix: aliasKey(site.domain, ''),
    announce: (manifestBody) => target.put(manifestKey, manifestBody, MUTABLE_JSON),
    withdraw: () => target.delete(manifestKey),
  };
}

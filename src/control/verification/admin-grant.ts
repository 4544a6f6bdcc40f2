import type { AppServices } from '../../platform/app/index.js';
import { AppError } from '../../platform/errors/index.js';
import { grantManualVerification } from './grant-manual.js';
import { verificationDeps } from './deps.js';
import { createOwnershipProbes } from './ownership-probes.js';
import { presentDomainVerification, type DomainVerificationView } from './view.js';

/**
 * `nodectl admin website verify --manual` (docs/verification.md "What to put where"): the operator
 * at the server's shell grants the manual tier to a website's domain or one of its aliases; the
 * graph's source trust follows at once, as after a check over HTTP.
 */
export function grantManualFromShell(
  services: Pick<AppServices, 'config' | 'controlDb' | 'logger' | 'nodes' | 'now'>,
  input: { websiteId: string; domain?: string; note: string },
): DomainVerificationView {
  const website = services.controlDb
    .prepare('SELECT domain FROM websites WHERE id = ?')
    .pluck()
    .get(input.websiteId) as string | undefined;
  if (website === undefined)
    throw new AppError('website.not_found', `No website ${input.websiteId}: see \`nodectl admin website list\`.`);
  const record = grantManualVerification(verificationDeps(services), {
    websiteId: input.websiteId,
    domain: input.domain ?? website,
    actor: 'operator',
    note: input.note,
  });
  return presentDomainVerification(record, createOwnershipProbes(services.config.settings).originOf);
}

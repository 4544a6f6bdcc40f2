import { createServices } from '../../platform/app/services.js';
import type { ResolvedConfig } from '../../platform/config/config.js';
import { AppError } from '../../platform/errors/app-error.js';
import { grantManualVerification } from './grant-manual.js';
import { verificationDeps } from './graph-trust.js';
import { createOwnershipProbes } from './ownership-probes.js';
import { presentDomainVerification, type DomainVerificationView } from './view.js';

/**
 * `nodectl admin website verify --manual` (docs/verification.md "What to put where"): the operator
 * at the server's shell grants the manual tier to a website's domain or one of its aliases; the
 * graph's source trust follows at once, as after a check over HTTP.
 */
export function grantManualFromShell(
  config: ResolvedConfig,
  input: { websiteId: string; domain?: string; note: string },
): DomainVerificationView {
  const services = createServices(config);
  try {
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
    return presentDomainVerification(record, createOwnershipProbes(config.settings).originOf);
  } finally {
    services.close();
  }
}

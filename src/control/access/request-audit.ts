import type { FastifyRequest } from 'fastify';
import type { AppServices } from '../../platform/app/services.js';
import type { Principal } from './principal.js';
import { appendAudit, type AuditActor, type AuditEntryInput } from '../records/audit.js';

/** The audit actor of a request's principal: the user or the API key (docs/organizations.md "Audit"). */
export function actorOf(principal: Principal): AuditActor {
  switch (principal.kind) {
    case 'user':
      return { kind: 'user', id: principal.userId };
    case 'api_key':
      return { kind: 'api_key', id: principal.keyId };
    case 'anonymous':
      throw new Error('an anonymous request has no audit actor: only authenticated routes write the audit log');
  }
}

/**
 * Appends one audit row for what a management request did: the actor is its principal and the
 * request id ties the row to the request's log line. Call it inside the change's transaction when
 * there is one, so a rolled-back change leaves no row.
 */
export function auditRequest(
  services: Pick<AppServices, 'controlDb' | 'now'>,
  request: FastifyRequest,
  entry: Omit<AuditEntryInput, 'actor' | 'requestId'>,
): void {
  appendAudit(
    services.controlDb,
    { ...entry, actor: actorOf(request.principal), requestId: request.id },
    services.now(),
  );
}

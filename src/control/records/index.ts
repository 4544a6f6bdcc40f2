/** The public face of src/control/records: what the rest of src/ may import from it. */
export {
  API_KEY_ROLES,
  createApiKey,
  getApiKey,
  listApiKeys,
  listApiKeysPage,
  resolveApiKey,
  revokeApiKey,
} from './api-keys.js';
export type { ApiKeyRecord } from './api-keys.js';
export { appendAudit, listAudit } from './audit.js';
export type { AuditActor, AuditEntryInput } from './audit.js';
export { maintenanceExpireJob } from './expire-job.js';
export { acceptPendingInvitations, listPendingInvitations, saveInvitation, withdrawInvitation } from './invitations.js';
export type { InvitationRecord, PendingInvitationRecord } from './invitations.js';
export { loadFieldMappings, loadWebsiteInfo } from './load-website.js';
export { addMember, changeMemberRole, ensureMemberRole, listMembers, memberRole, removeMember } from './member-rows.js';
export type { MemberRecord } from './member-rows.js';
export {
  createOrganization,
  createOrganizationOwnedBy,
  getOrganization,
  listOrganizations,
  listOrganizationsOfUser,
  renameOrganization,
  setOrganizationPlan,
} from './organizations.js';
export {
  MIN_PASSWORD_LENGTH,
  PASSWORD_HASH_COST,
  hashPassword,
  verifyPassword,
  type ScryptCost,
} from './password-hash.js';
export { newId, nowIso } from './record-ids.js';
export { DomainSchema, EmailSchema, PlanSchema, ROLES, roleAtLeast } from './record-types.js';
export type { OrganizationRecord, Role, WebsiteRecord } from './record-types.js';
export {
  TRANSFER_STATES,
  expireTransfers,
  findTransferByTokenHash,
  getTransfer,
  insertTransfer,
  moveTransfer,
  openTransfer,
} from './transfer-rows.js';
export type { TransferRecord } from './transfer-rows.js';
export { createUser, findUserByEmail, getUser, listUsers } from './users.js';
export {
  VERIFICATION_METHODS,
  VERIFICATION_METHOD_ALIASES,
  VERIFICATION_METHOD_INPUTS,
  VERIFICATION_METHOD_NAMES,
  VERIFICATION_STATES,
  canonicalMethodName,
  countsAsVerified,
  tierOfMethod,
  trustScore,
} from './website-info.js';
export type { VerificationMethod, VerificationMethodName, VerificationState, WebsiteInfo } from './website-info.js';
export { createWebsite, getWebsite, listWebsites } from './websites.js';

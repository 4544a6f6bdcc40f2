/**
 * The answers of the organization routes the members, API keys, plan and audit pages read
 * (src/control/organizations/schemas.ts, src/control/plans/schemas.ts), and the pure functions
 * that put them in words. No DOM here: test/console/organizations.test.ts runs these in Node.
 */

/** Member roles, lowest first: a role includes every role below it (docs/organizations.md "Roles"). */
export const ROLES = ['viewer', 'editor', 'organization_admin', 'organization_owner'] as const;
export type Role = (typeof ROLES)[number];
/** An API key is never organization_owner. */
export const API_KEY_ROLES = ['viewer', 'editor', 'organization_admin'] as const;
/** The service's own staff act in every organization above every role. */
const PLATFORM_ROLES = ['admin', 'super_admin'];

const ROLE_LABELS: Record<string, string> = {
  viewer: 'Viewer',
  editor: 'Editor',
  organization_admin: 'Admin',
  organization_owner: 'Owner',
  admin: 'Platform admin',
  super_admin: 'Platform super admin',
};

/** A role in words ("organization_admin" reads "Admin"). */
export function roleLabel(role: string): string {
  return ROLE_LABELS[role] ?? role.replace(/_/g, ' ');
}

/** Whether the caller's role (a member role or a platform role) is at least `minimum`. */
export function roleAtLeast(caller: string | undefined, minimum: Role): boolean {
  if (!caller) return false;
  if (PLATFORM_ROLES.includes(caller)) return true;
  const rank = (ROLES as readonly string[]).indexOf(caller);
  return rank >= 0 && rank >= ROLES.indexOf(minimum);
}

/** The roles the caller may grant: none above its own (the API answers 403 auth.forbidden past that). */
export function grantableRoles<R extends string>(caller: string | undefined, roles: readonly R[]): R[] {
  return roles.filter((role) => roleAtLeast(caller, role as Role));
}

export interface Member {
  userId: string;
  email: string;
  role: Role;
  createdAt: string;
}

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  createdAt: string;
  expiresAt: string;
}

/** GET .../invitations (organization_admin): the invitations neither accepted nor expired. */
export interface PendingInvitation extends Invitation {
  invitedBy: string | null;
  invitedByEmail: string | null;
}

/** POST .../members: 201 {member} for an existing user, 202 {invitation, mailSent} for an unknown address. */
export type AddMemberAnswer = { member: Member } | { invitation: Invitation; mailSent: boolean };

export interface ApiKey {
  id: string;
  name: string;
  role: (typeof API_KEY_ROLES)[number];
  prefix: string;
  createdBy: string | null;
  createdAt: string;
  revokedAt: string | null;
}

/** The 201 of POST .../api-keys: the only answer that holds the key. */
export interface CreatedApiKey extends ApiKey {
  key: string;
}

export interface Transfer {
  id: string;
  email: string;
  state: string;
  expiresAt: string;
}

export interface AuditEntry {
  id: string;
  actor: { kind: 'user' | 'api_key' | 'system' | 'operator'; id: string | null };
  action: string;
  target: string | null;
  requestId: string | null;
  details: Record<string, string | number | boolean | null>;
  createdAt: string;
}

export interface Quota {
  limit: number;
  used: number;
}

export interface Entitlements {
  organization_id: string;
  plan: string;
  capabilities: string[];
  limits: Record<string, Quota>;
}

export interface Usage {
  organization_id: string;
  period: string;
  usage: Record<string, number>;
}

const QUOTA_LABELS: Record<string, { label: string; when: string }> = {
  websites: { label: 'Websites', when: 'at any time' },
  members: { label: 'Members', when: 'pending invitations hold a seat' },
  items: { label: 'Items accepted', when: 'this calendar month (UTC)' },
  publishes_per_day: { label: 'Versions published', when: 'today (UTC)' },
};

const USAGE_LABELS: Record<string, string> = {
  items_ingested: 'Items accepted by ingest',
  published_versions: 'Versions published',
  node_reads: 'Node file reads',
  api_requests: 'API requests',
};

const CAPABILITY_LABELS: Record<string, string> = {
  'cap.core': 'The node and its knowledge (core)',
  'cap.advanced': 'trust.json and openapi.json in the node (advanced)',
  'cap.mcp': 'The MCP server (nodectl mcp)',
  'cap.webhooks': 'Webhook deliveries',
  'cap.embeddings': 'The embeddings manifest',
};

export const quotaLabel = (quota: string) => QUOTA_LABELS[quota] ?? { label: quota.replace(/_/g, ' '), when: '' };
export const usageLabel = (metric: string) => USAGE_LABELS[metric] ?? metric.replace(/_/g, ' ');
export const capabilityLabel = (capability: string) => CAPABILITY_LABELS[capability] ?? capability;

/** Where a quota stands: "near" from 80 % of the limit, "full" when nothing more fits. */
export function quotaState(quota: Quota): 'ok' | 'near' | 'full' {
  if (quota.used >= quota.limit) return 'full';
  return quota.used >= quota.limit * 0.8 ? 'near' : 'ok';
}

/** What to do about a quota that is near or at its limit. */
const WAY_OUT: Record<string, string> = {
  websites: 'delete a website',
  members: 'remove a member or withdraw a pending invitation',
  items: 'send more next month',
  publishes_per_day: 'publish again after midnight UTC',
};

/** The quotas near or at their limit, each in one sentence with what to do. */
export function quotaWarnings(limits: Record<string, Quota>): string[] {
  return Object.entries(limits).flatMap(([name, quota]) => {
    const state = quotaState(quota);
    if (state === 'ok') return [];
    const how = WAY_OUT[name] ?? 'wait for the count to fall';
    const said = state === 'full' ? 'limit reached' : 'near the limit';
    return [
      `${quotaLabel(name).label}: ${count(quota.used)} of ${count(quota.limit)}, ${said}. To make room, ${how}, or ask the operator for a larger plan.`,
    ];
  });
}

/** A count as people read it (1,000,000). */
export const count = (value: number) => value.toLocaleString('en-US');

/** Names the audit log's ids stand for, as far as the page knows them. */
export interface KnownNames {
  users: Map<string, string>;
  keys: Map<string, string>;
  organizationId: string;
  organizationName?: string;
}

const ACTIONS: Record<string, string> = {
  'organization.created': 'created the organization',
  'organization.updated': 'renamed the organization',
  'organization.plan_changed': 'changed the plan',
  'organization.erase_requested': 'asked to erase the organization',
  'organization.transferred': 'transferred the organization',
  'member.added': 'added a member',
  'member.invited': 'invited an address',
  'member.joined': 'joined',
  'member.role_changed': "changed a member's role",
  'member.removed': 'removed a member',
  'member.invitation_withdrawn': 'withdrew an invitation',
  'api_key.created': 'created an API key',
  'api_key.revoked': 'revoked an API key',
  'transfer.requested': 'started a transfer of the organization',
  'transfer.cancelled': 'cancelled the transfer',
  'transfer.accepted': 'accepted the transfer',
  'transfer.failed': 'saw the transfer fail',
  'node.published': 'published a version of the node',
  'node.rolled_back': 'rolled the node back',
  'node.taken_down': 'took the node down',
};

function actorWords(actor: AuditEntry['actor'], names: KnownNames): string {
  switch (actor.kind) {
    case 'system':
      return 'The service';
    case 'operator':
      return 'The operator (at the shell)';
    case 'api_key':
      return `API key ${(actor.id && names.keys.get(actor.id)) || actor.id || ''}`.trim();
    default:
      return (actor.id && names.users.get(actor.id)) || actor.id || 'A user';
  }
}

function targetWords(entry: AuditEntry, names: KnownNames): string {
  const target = entry.target;
  if (!target) return '';
  if (target === names.organizationId) return names.organizationName ?? target;
  if (entry.action.startsWith('api_key.')) {
    const name = names.keys.get(target) ?? (typeof entry.details.name === 'string' ? entry.details.name : undefined);
    return name ? `${name} (${target})` : target;
  }
  const email = names.users.get(target) ?? (typeof entry.details.email === 'string' ? entry.details.email : undefined);
  return email ?? target;
}

/** What the details add, in words: roles before and after, a new name or plan. */
function detailWords(details: AuditEntry['details']): string {
  const parts: string[] = [];
  const text = (key: string) =>
    details[key] === undefined || details[key] === null ? undefined : String(details[key]);
  const role = text('role');
  const before = text('role_before');
  if (before && role) parts.push(`from ${roleLabel(before)} to ${roleLabel(role)}`);
  else if (before) parts.push(`was ${roleLabel(before)}`);
  else if (role) parts.push(`as ${roleLabel(role)}`);
  const nameBefore = text('name_before');
  if (nameBefore && text('name')) parts.push(`from “${nameBefore}” to “${text('name')}”`);
  const planBefore = text('plan_before');
  if (planBefore && text('plan')) parts.push(`from ${planBefore} to ${text('plan')}`);
  return parts.join(', ');
}

/**
 * Adds the addresses the log itself names (member.added records the address of the user it
 * added), so a member removed since still reads as an address rather than an id.
 */
export function withLoggedNames(names: KnownNames, entries: readonly AuditEntry[]): KnownNames {
  const users = new Map(names.users);
  for (const entry of entries)
    if (entry.target && typeof entry.details.email === 'string' && !users.has(entry.target))
      users.set(entry.target, entry.details.email);
  return { ...names, users };
}

/** One audit entry in words: who did what to what, and what the details add. */
export function describeAudit(entry: AuditEntry, names: KnownNames) {
  return {
    actor: actorWords(entry.actor, names),
    action: ACTIONS[entry.action] ?? entry.action.replace(/[._]/g, ' '),
    target: targetWords(entry, names),
    detail: detailWords(entry.details),
  };
}

/** A timestamp in the reader's own time zone, to the minute. */
export function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** The path of an organization's route. */
export function organizationApi(organizationId: string, rest = ''): string {
  return `/v1/organizations/${encodeURIComponent(organizationId)}${rest}`;
}

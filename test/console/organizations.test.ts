import { describe, expect, it } from 'vitest';
import {
  API_KEY_ROLES,
  type AuditEntry,
  describeAudit,
  grantableRoles,
  quotaState,
  quotaWarnings,
  ROLES,
  roleAtLeast,
  roleLabel,
  withLoggedNames,
} from '../../src/console/api-organizations.js';

/** The organization pages' words and rules (docs/organizations.md "Roles"), without a browser. */
describe('roles in the console', () => {
  it('puts roles in words', () => {
    expect(ROLES.map(roleLabel)).toEqual(['Viewer', 'Editor', 'Admin', 'Owner']);
    expect(roleLabel('super_admin')).toBe('Platform super admin');
  });

  it('ranks roles as the API does: a role includes those below it, platform roles stand above all', () => {
    expect(roleAtLeast('organization_admin', 'editor')).toBe(true);
    expect(roleAtLeast('editor', 'organization_admin')).toBe(false);
    expect(roleAtLeast('viewer', 'viewer')).toBe(true);
    expect(roleAtLeast('admin', 'organization_owner')).toBe(true);
    expect(roleAtLeast(undefined, 'viewer')).toBe(false);
    expect(roleAtLeast('someone', 'viewer')).toBe(false);
  });

  it('offers only the roles the caller may grant', () => {
    expect(grantableRoles('organization_admin', ROLES)).toEqual(['viewer', 'editor', 'organization_admin']);
    expect(grantableRoles('organization_owner', ROLES)).toEqual(ROLES);
    expect(grantableRoles('editor', API_KEY_ROLES)).toEqual(['viewer', 'editor']);
    expect(grantableRoles(undefined, ROLES)).toEqual([]);
  });
});

describe('quotaState', () => {
  it('is near from 80 % of the limit and full when nothing more fits', () => {
    expect(quotaState({ limit: 10, used: 7 })).toBe('ok');
    expect(quotaState({ limit: 10, used: 8 })).toBe('near');
    expect(quotaState({ limit: 10, used: 10 })).toBe('full');
    expect(quotaState({ limit: 1, used: 0 })).toBe('ok');
  });
});

describe('quotaWarnings', () => {
  it('names each quota near or at its limit with what to do, and nothing for the others', () => {
    const warnings = quotaWarnings({
      websites: { limit: 1, used: 1 },
      members: { limit: 10, used: 8 },
      items: { limit: 1000, used: 10 },
    });
    expect(warnings).toEqual([
      'Websites: 1 of 1, limit reached. To make room, delete a website, or ask the operator for a larger plan.',
      'Members: 8 of 10, near the limit. To make room, remove a member or withdraw a pending invitation, or ask the operator for a larger plan.',
    ]);
  });
});

describe('describeAudit', () => {
  const names = {
    users: new Map([['usr_1', 'owner@example.com']]),
    keys: new Map([['key_1', 'CI deploy']]),
    organizationId: 'org_1',
    organizationName: 'Field Notes',
  };
  const entry = (over: Partial<AuditEntry>): AuditEntry => ({
    id: 'aud_1',
    actor: { kind: 'user', id: 'usr_1' },
    action: 'member.role_changed',
    target: 'usr_2',
    requestId: 'req_1',
    details: {},
    createdAt: '2026-11-28T10:00:00.000Z',
    ...over,
  });

  it('names the actor and target from what the page knows, and the roles before and after', () => {
    expect(describeAudit(entry({ details: { role_before: 'viewer', role: 'editor' } }), names)).toEqual({
      actor: 'owner@example.com',
      action: "changed a member's role",
      target: 'usr_2',
      detail: 'from Viewer to Editor',
    });
  });

  it('words keys, the organization, the operator and unknown actions', () => {
    expect(describeAudit(entry({ action: 'api_key.revoked', target: 'key_1' }), names).target).toBe(
      'CI deploy (key_1)',
    );
    expect(
      describeAudit(entry({ action: 'member.invited', target: 'new@example.com', details: { role: 'viewer' } }), names),
    ).toMatchObject({ action: 'invited an address', target: 'new@example.com', detail: 'as Viewer' });
    expect(
      describeAudit(
        entry({
          action: 'member.invitation_withdrawn',
          target: 'new@example.com',
          details: { invitation_id: 'inv_1', role: 'viewer' },
        }),
        names,
      ),
    ).toMatchObject({ action: 'withdrew an invitation', target: 'new@example.com', detail: 'as Viewer' });
    const plan = describeAudit(
      entry({
        actor: { kind: 'operator', id: null },
        action: 'organization.plan_changed',
        target: 'org_1',
        details: { plan_before: 'free', plan: 'pro' },
      }),
      names,
    );
    expect(plan).toEqual({
      actor: 'The operator (at the shell)',
      action: 'changed the plan',
      target: 'Field Notes',
      detail: 'from free to pro',
    });
    expect(
      describeAudit(entry({ actor: { kind: 'api_key', id: 'key_1' }, action: 'website.made_up' }), names),
    ).toMatchObject({ actor: 'API key CI deploy', action: 'website made up' });
  });

  it('reads a removed member as the address the log recorded when it was added', () => {
    const added = entry({
      action: 'member.added',
      target: 'usr_9',
      details: { email: 'gone@example.com', role: 'editor' },
    });
    const removed = entry({ action: 'member.removed', target: 'usr_9', details: { role_before: 'editor' } });
    const known = withLoggedNames(names, [removed, added]);
    expect(describeAudit(removed, known)).toMatchObject({ target: 'gone@example.com', detail: 'was Editor' });
    expect(names.users.has('usr_9')).toBe(false);
  });
});

import { AppError } from '../../platform/errors/app-error.js';
import type { Role } from '../records/record-types.js';
import { readAuthUser, toAccountUser, type AccountUser } from './account-users.js';
import type { AccountsContext } from './context.js';

export interface AccountProfile {
  user: AccountUser;
  /** Every organization the user is a member of, by name. */
  organizations: Array<{ id: string; name: string; slug: string; role: Role }>;
}

/** GET /v1/auth/me: the caller and their memberships. */
export function readAccountProfile(ctx: AccountsContext, caller: { userId: string }): AccountProfile {
  const user = readAuthUser(ctx.db, caller.userId);
  // As 2FA setup answers: the session's user is gone (its access token verified before the deletion).
  if (!user) throw new AppError('user.not_found', 'The account of this session no longer exists.');
  const organizations = ctx.db
    .prepare(
      'SELECT o.id, o.name, o.slug, m.role FROM members m JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = ? ORDER BY o.name, o.id',
    )
    .all(user.id) as AccountProfile['organizations'];
  return { user: toAccountUser(ctx.db, user), organizations };
}

import { z } from 'zod';
import type { Db } from '../../platform/storage/index.js';
import { AppError, fieldProblemsFromZod } from '../../platform/errors/index.js';
import { hashPassword, MIN_PASSWORD_LENGTH } from './password-hash.js';
import { newId, nowIso } from './record-ids.js';
import { EmailSchema, type UserRecord } from './record-types.js';

export const CreateUserSchema = z.strictObject({
  email: EmailSchema,
  password: z.string().min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`).max(1024),
});

/**
 * A new user with a scrypt hash of its password. `hash` is for tests that seed many users: they
 * pass one that hashes each password once per process (a scrypt costs about 0.1 s of a core).
 */
export async function createUser(
  db: Db,
  input: z.input<typeof CreateUserSchema>,
  now = Date.now(),
  hash: (password: string) => Promise<string> = hashPassword,
): Promise<UserRecord> {
  const parsed = CreateUserSchema.safeParse(input);
  if (!parsed.success)
    throw new AppError('validation.failed', 'The user is not valid; see details.fields.', {
      details: { fields: fieldProblemsFromZod(parsed.error.issues) },
    });
  const { email, password } = parsed.data;
  const passwordHash = await hash(password);
  const id = newId('usr');
  const createdAt = nowIso(now);
  try {
    db.prepare('INSERT INTO users (id, email, password_hash, created_at) VALUES (?, ?, ?, ?)').run(
      id,
      email,
      passwordHash,
      createdAt,
    );
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
      throw new AppError('validation.failed', `A user with email ${email} already exists.`, {
        details: { fields: [{ path: 'email', message: 'already registered' }] },
      });
    }
    throw error;
  }
  return { id, email, createdAt };
}

export function findUserByEmail(db: Db, email: string): UserRecord | undefined {
  const row = db
    .prepare('SELECT id, email, created_at AS createdAt FROM users WHERE email = ?')
    .get(email.toLowerCase()) as UserRecord | undefined;
  return row;
}

export function listUsers(db: Db): UserRecord[] {
  return db
    .prepare('SELECT id, email, created_at AS createdAt FROM users ORDER BY created_at, id')
    .all() as UserRecord[];
}

/** A user by id, with whether the address is verified (invitations join only a proven address). */
export function getUser(db: Db, id: string): (UserRecord & { emailVerified: boolean }) | undefined {
  const row = db
    .prepare('SELECT id, email, created_at AS createdAt, email_verified_at AS verifiedAt FROM users WHERE id = ?')
    .get(id) as (UserRecord & { verifiedAt: string | null }) | undefined;
  return row && { id: row.id, email: row.email, createdAt: row.createdAt, emailVerified: row.verifiedAt !== null };
}

import { z } from 'zod';
import type { RoutePlugin } from '../app/route-plugin.js';
import { AppError, fieldProblemsFromZod } from '../errors/app-error.js';
import { sendData } from '../http/envelope.js';
import { enforceRateLimit } from '../http/rate-limit.js';
import { EmailSchema } from '../tenancy/records.js';

const WaitlistSchema = z.strictObject({
  email: EmailSchema,
  source: z.string().max(200).optional(),
  consent: z.literal(true, { message: 'must be true: we only keep addresses whose owner agreed' }),
});

/** Waitlist limit per client address (docs/contract.md#rate-limits). */
const WAITLIST_PER_MINUTE = 5;

/** POST /v1/waitlist: 202 for every valid submit, a duplicate included (no enumeration). */
export const waitlistRoutes: RoutePlugin = async (app, { services }) => {
  app.post('/v1/waitlist', async (request, reply) => {
    enforceRateLimit(services.controlDb, `waitlist:${request.ip}`, WAITLIST_PER_MINUTE, 60_000, services.now());
    const parsed = WaitlistSchema.safeParse(request.body);
    if (!parsed.success) throw new AppError('validation.failed', 'The waitlist entry is not valid; see details.fields.', { details: { fields: fieldProblemsFromZod(parsed.error.issues) } });
    const at = new Date(services.now()).toISOString();
    services.controlDb.prepare('INSERT INTO waitlist (email, source, consent_at, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (email) DO NOTHING').run(parsed.data.email, parsed.data.source ?? null, at, at);
    return sendData(request, reply, { status: 'accepted' }, 202);
  });
};

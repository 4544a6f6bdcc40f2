import { z } from 'zod';
import type { RoutePlugin } from '../app/route-plugin.js';
import { AppError, fieldProblemsFromZod } from '../errors/app-error.js';
import { sendData } from '../http/envelope.js';
import { consumeRateLimit } from '../http/rate-limit.js';
import { EmailSchema } from '../tenancy/records.js';

const WaitlistSchema = z.strictObject({
  email: EmailSchema,
  source: z.string().max(200).optional(),
  consent: z.literal(true, { message: 'must be true: we only keep addresses whose owner agreed' }),
});

/** POST /v1/waitlist: 202 for every valid submit, a duplicate included (no enumeration). */
export const waitlistRoutes: RoutePlugin = async (app, { services }) => {
  // Per client address (docs/contract.md#rate-limits), stricter than the general limit it replaces here.
  const rule = { name: 'waitlist', limit: services.config.settings.waitlistRateLimitPerMinute, windowMs: 60_000 };
  app.post('/v1/waitlist', async (request, reply) => {
    await consumeRateLimit(services.rateLimits, rule, request.ip, services.now(), reply);
    const parsed = WaitlistSchema.safeParse(request.body);
    if (!parsed.success) throw new AppError('validation.failed', 'The waitlist entry is not valid; see details.fields.', { details: { fields: fieldProblemsFromZod(parsed.error.issues) } });
    const at = new Date(services.now()).toISOString();
    services.controlDb.prepare('INSERT INTO waitlist (email, source, consent_at, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (email) DO NOTHING').run(parsed.data.email, parsed.data.source ?? null, at, at);
    return sendData(request, reply, { status: 'accepted' }, 202);
  });
};

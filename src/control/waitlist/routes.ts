import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RoutePlugin } from '../../platform/app/route-plugin.js';
import { sendData } from '../../platform/http/envelope.js';
import { consumeRateLimit } from '../../platform/http/rate-limit.js';
import { dataEnvelope } from '../../platform/http/route-docs.js';
import { WaitlistAcceptedSchema, WaitlistEntrySchema } from './schemas.js';

/** POST /v1/waitlist: 202 for every valid submit, a duplicate included (no enumeration). */
export const waitlistRoutes: RoutePlugin = async (app, { services }) => {
  // Per client address (docs/contract.md#rate-limits), stricter than the general limit it replaces here.
  const rule = { name: 'waitlist', limit: services.config.settings.waitlistRateLimitPerMinute, windowMs: 60_000 };
  app.withTypeProvider<ZodTypeProvider>().post(
    '/v1/waitlist',
    {
      // Counted before the body is validated, so invalid submits spend the budget too.
      preValidation: async (request, reply) =>
        void (await consumeRateLimit(services.rateLimits, rule, request.ip, services.now(), reply)),
      schema: {
        summary: 'Join the waitlist (needs consent); the same answer for a new and a known address',
        tags: ['waitlist'],
        body: WaitlistEntrySchema,
        response: {
          202: dataEnvelope(WaitlistAcceptedSchema).describe(
            'Accepted (also when the address was already on the list)',
          ),
        },
      },
    },
    async (request, reply) => {
      const at = new Date(services.now()).toISOString();
      services.controlDb
        .prepare(
          'INSERT INTO waitlist (email, source, consent_at, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (email) DO NOTHING',
        )
        .run(request.body.email, request.body.source ?? null, at, at);
      return sendData(request, reply, { status: 'accepted' }, 202);
    },
  );
};

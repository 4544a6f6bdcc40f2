import { z } from 'zod';
import { EmailSchema } from '../records/record-types.js';

/** POST /v1/waitlist: an address whose owner agreed to be kept (strict: unknown fields are refused). */
export const WaitlistEntrySchema = z.strictObject({
  email: EmailSchema.describe('The address to tell when nodectl opens; kept lowercased'),
  source: z
    .string()
    .max(200, 'must be at most 200 characters')
    .optional()
    .describe('Where the visitor signed up (a page, a campaign)'),
  consent: z
    .literal(true, { message: 'must be true: we only keep addresses whose owner agreed' })
    .describe('The owner agreed to be contacted; must be true'),
});

/** The answer to every valid submit, a duplicate included, so addresses cannot be enumerated. */
export const WaitlistAcceptedSchema = z.object({ status: z.literal('accepted') });

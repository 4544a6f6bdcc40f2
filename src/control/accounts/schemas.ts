import { z } from 'zod';
import { AppError, fieldProblemsFromZod } from '../../platform/errors/index.js';
import { MIN_PASSWORD_LENGTH, EmailSchema, ROLES } from '../records/index.js';

/**
 * The input of every account function, one schema each: the route layer validates request bodies
 * with them and the OpenAPI generator describes them. Unknown fields are refused (strict).
 */

/** A new password. Only its length is checked: at least 10 characters (docs/contract.md#sessions). */
export const NewPasswordSchema = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(1024, 'must be at most 1024 characters');
/** A password being checked: any length, so a short one is simply wrong, not a different error. */
const PresentedPasswordSchema = z.string().min(1, 'must not be empty').max(1024, 'must be at most 1024 characters');
/** A token from a mail or a refresh token (opaque, 43 characters). */
const OpaqueTokenSchema = z.string().trim().min(1, 'must not be empty').max(512, 'is too long to be a token');
export const TotpCodeSchema = z
  .string()
  .trim()
  .regex(/^\d{6}$/, 'must be the 6-digit code your authenticator app shows');
export const RecoveryCodeSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(64, 'is too long to be a recovery code');

const secondFactorFields = { totp: TotpCodeSchema.optional(), recoveryCode: RecoveryCodeSchema.optional() };
const notBoth = (v: { totp?: string | undefined; recoveryCode?: string | undefined }) =>
  !(v.totp !== undefined && v.recoveryCode !== undefined);
const NOT_BOTH = { message: 'give totp or recoveryCode, not both', path: ['recoveryCode'] };

export const RegisterSchema = z.strictObject({
  email: EmailSchema,
  password: NewPasswordSchema,
  orgName: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
});

export const VerifyEmailSchema = z.strictObject({ token: OpaqueTokenSchema });

export const LoginSchema = z
  .strictObject({ email: EmailSchema, password: PresentedPasswordSchema, ...secondFactorFields })
  .refine(notBoth, NOT_BOTH);

export const GoogleSignInSchema = z
  .strictObject({
    idToken: z.string().trim().min(1, 'must not be empty').max(16_384, 'is too long to be an ID token'),
    ...secondFactorFields,
  })
  .refine(notBoth, NOT_BOTH);

export const RefreshSchema = z.strictObject({ refreshToken: OpaqueTokenSchema });

export const ChangePasswordSchema = z
  .strictObject({ currentPassword: PresentedPasswordSchema, newPassword: NewPasswordSchema })
  .refine((v) => v.currentPassword !== v.newPassword, {
    message: 'must differ from the current password',
    path: ['newPassword'],
  });

export const ForgotPasswordSchema = z.strictObject({ email: EmailSchema });

export const ResetPasswordSchema = z.strictObject({ token: OpaqueTokenSchema, password: NewPasswordSchema });

/** POST /v1/auth/2fa/activate: the first code of the authenticator app just set up. */
export const ActivateTotpSchema = z.strictObject({ code: TotpCodeSchema });

/** Turning 2FA off or replacing the recovery codes needs a current second factor, not only a session. */
export const SecondFactorSchema = z
  .strictObject(secondFactorFields)
  .refine(notBoth, NOT_BOTH)
  .refine((v) => v.totp !== undefined || v.recoveryCode !== undefined, {
    message: 'give the current totp code or a recoveryCode',
    path: ['totp'],
  });

/** POST /v1/auth/refresh: the svc_refresh cookie or `{refreshToken}`; a cookie-only call sends no body (or `{}`). */
export const RefreshRequestSchema = RefreshSchema.partial()
  .optional()
  .describe('Optional: leave the body out (or send {}) when the svc_refresh cookie carries the refresh token');

/*
 * Answers of the /v1/auth routes (the `data` of the envelope), as the account functions build
 * them: they document the routes in the OpenAPI document and give the typed client its types.
 */

/** The user of a session answer and of GET /v1/auth/me (account-users.ts toAccountUser). */
export const AccountUserSchema = z.object({
  id: z.string().describe('The user id (usr_...)'),
  email: z.string().describe('The sign-in email address, lowercased'),
  emailVerified: z
    .boolean()
    .describe('Whether the address was proven (the mailed token, a password reset or a Google-verified email)'),
  mfaEnabled: z.boolean().describe('Whether sign-in needs a TOTP or recovery code'),
  createdAt: z.string().describe('When the account was made (ISO-8601)'),
});

/** A login, Google sign-in or refresh answer (sessions.ts SessionGrant); the route also sets the svc_refresh cookie. */
export const SessionGrantSchema = z.object({
  accessToken: z.string().describe('The JWT to send as Authorization: Bearer; verify it with /.well-known/jwks.json'),
  tokenType: z.literal('Bearer'),
  expiresIn: z.number().int().describe('Seconds until the access token expires'),
  refreshToken: z
    .string()
    .describe('Single use: POST /v1/auth/refresh with it for a new grant (also set as the svc_refresh cookie)'),
  user: AccountUserSchema,
});

/** POST /v1/auth/verify-email. */
export const EmailVerifiedSchema = z.object({
  userId: z.string(),
  email: z.string(),
  emailVerified: z.literal(true),
});

/** GET /v1/auth/me (profile.ts AccountProfile). */
export const AccountProfileSchema = z.object({
  user: AccountUserSchema,
  organizations: z
    .array(
      z.object({
        id: z.string().describe('The organization id (org_...)'),
        name: z.string(),
        slug: z.string(),
        role: z.enum(ROLES).describe("The user's role in it"),
      }),
    )
    .describe('Every organization the user is a member of, by name'),
});

/** GET /v1/auth/2fa (totp.ts TwoFactorStatus). */
export const TwoFactorStatusSchema = z.object({
  enabled: z.boolean().describe('Two-factor sign-in is on'),
  pending: z.boolean().describe('Setup was started and waits for its first code (POST /v1/auth/2fa/activate)'),
  recoveryCodesRemaining: z.number().int().describe('Unused recovery codes (0 while 2FA is off)'),
});

/** POST /v1/auth/2fa/setup. */
export const TotpSetupSchema = z.object({
  secret: z.string().describe('The TOTP secret, base32, for typing into an authenticator app'),
  otpauthUri: z.string().describe('The otpauth:// URI of the secret, for a QR code'),
});

/** POST /v1/auth/2fa/activate and /recovery-codes: shown once. */
export const RecoveryCodesSchema = z.object({
  recoveryCodes: z
    .array(z.string())
    .describe('10 single-use recovery codes, each replacing a TOTP code once; every earlier code stops working'),
});

/** POST /v1/auth/password/forgot: the same answer whether or not the address has an account. */
export const AcceptedSchema = z.object({ status: z.literal('accepted') });

export const RegisteredSchema = z.object({
  userId: z
    .string()
    .describe("A user id (usr_...): the new account's, or, for an address that has an account, one that names nobody"),
  emailVerificationSent: z
    .boolean()
    .describe('Whether a mail was queued to the address (always true: a verification mail, or a notice)'),
});

export type RegisterInput = z.input<typeof RegisterSchema>;
export type LoginInput = z.input<typeof LoginSchema>;
export type GoogleSignInInput = z.input<typeof GoogleSignInSchema>;
export type ChangePasswordInput = z.input<typeof ChangePasswordSchema>;
export type SecondFactorInput = z.input<typeof SecondFactorSchema>;

/** Parses an account function's input or fails with 422 validation.failed naming each field. */
export function parseAccountInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success)
    throw new AppError('validation.failed', `The ${what} request is not valid; see details.fields.`, {
      details: { fields: fieldProblemsFromZod(parsed.error.issues) },
    });
  return parsed.data;
}

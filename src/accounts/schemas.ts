import { z } from 'zod';
import { AppError, fieldProblemsFromZod } from '../errors/app-error.js';
import { MIN_PASSWORD_LENGTH } from '../tenancy/passwords.js';
import { EmailSchema } from '../tenancy/records.js';

/**
 * The input of every account function, one schema each: the route layer validates request bodies
 * with them and the OpenAPI generator describes them. Unknown fields are refused (strict).
 */

/** A new password. Only its length is checked: at least 10 characters (docs/contract.md#sessions). */
export const NewPasswordSchema = z.string().min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`).max(1024, 'must be at most 1024 characters');
/** A password being checked: any length, so a short one is simply wrong, not a different error. */
const PresentedPasswordSchema = z.string().min(1, 'must not be empty').max(1024, 'must be at most 1024 characters');
/** A token from a mail or a refresh token (opaque, 43 characters). */
const OpaqueTokenSchema = z.string().trim().min(1, 'must not be empty').max(512, 'is too long to be a token');
export const TotpCodeSchema = z.string().trim().regex(/^\d{6}$/, 'must be the 6-digit code your authenticator app shows');
export const RecoveryCodeSchema = z.string().trim().min(1, 'must not be empty').max(64, 'is too long to be a recovery code');

const secondFactorFields = { totp: TotpCodeSchema.optional(), recoveryCode: RecoveryCodeSchema.optional() };
const notBoth = (v: { totp?: string | undefined; recoveryCode?: string | undefined }) => !(v.totp !== undefined && v.recoveryCode !== undefined);
const NOT_BOTH = { message: 'give totp or recoveryCode, not both', path: ['recoveryCode'] };

export const RegisterSchema = z.strictObject({
  email: EmailSchema,
  password: NewPasswordSchema,
  orgName: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
});

export const VerifyEmailSchema = z.strictObject({ token: OpaqueTokenSchema });

export const LoginSchema = z.strictObject({ email: EmailSchema, password: PresentedPasswordSchema, ...secondFactorFields }).refine(notBoth, NOT_BOTH);

export const GoogleSignInSchema = z.strictObject({ idToken: z.string().trim().min(1, 'must not be empty').max(16_384, 'is too long to be an ID token'), ...secondFactorFields }).refine(notBoth, NOT_BOTH);

export const RefreshSchema = z.strictObject({ refreshToken: OpaqueTokenSchema });

export const ChangePasswordSchema = z
  .strictObject({ currentPassword: PresentedPasswordSchema, newPassword: NewPasswordSchema })
  .refine((v) => v.currentPassword !== v.newPassword, { message: 'must differ from the current password', path: ['newPassword'] });

export const ForgotPasswordSchema = z.strictObject({ email: EmailSchema });

export const ResetPasswordSchema = z.strictObject({ token: OpaqueTokenSchema, password: NewPasswordSchema });

/** POST /v1/auth/2fa/activate: the first code of the authenticator app just set up. */
export const ActivateTotpSchema = z.strictObject({ code: TotpCodeSchema });

/** Turning 2FA off or replacing the recovery codes needs a current second factor, not only a session. */
export const SecondFactorSchema = z
  .strictObject(secondFactorFields)
  .refine(notBoth, NOT_BOTH)
  .refine((v) => v.totp !== undefined || v.recoveryCode !== undefined, { message: 'give the current totp code or a recoveryCode', path: ['totp'] });

export type RegisterInput = z.input<typeof RegisterSchema>;
export type LoginInput = z.input<typeof LoginSchema>;
export type GoogleSignInInput = z.input<typeof GoogleSignInSchema>;
export type ChangePasswordInput = z.input<typeof ChangePasswordSchema>;
export type SecondFactorInput = z.input<typeof SecondFactorSchema>;

/** Parses an account function's input or fails with 422 validation.failed naming each field. */
export function parseAccountInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new AppError('validation.failed', `The ${what} request is not valid; see details.fields.`, { details: { fields: fieldProblemsFromZod(parsed.error.issues) } });
  return parsed.data;
}

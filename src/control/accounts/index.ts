/**
 * Accounts (docs/auth.md): users' sign-in, sessions, access tokens, 2FA and account mail, pure of
 * HTTP. The route layer builds one AccountsContext per process (createAccountsContext) and calls
 * these with the caller's input; each validates it with the schemas of ./schemas.js.
 */
export { createAccountsContext, type AccountsContext, type CreateAccountsContextOptions } from './context.js';
export {
  ACCESS_TOKEN_LIFETIME_SECONDS,
  readJwks,
  signAccessToken,
  verifyAccessToken,
  type VerifiedAccessToken,
} from './access-tokens.js';
export { refreshSession, logout, logoutAll, startSession, type SessionGrant, type SignInResult } from './sessions.js';
export { login } from './login.js';
export { googleSignIn } from './google-sign-in.js';
export { register } from './register.js';
export { verifyEmail } from './email-verification.js';
export { changePassword, forgotPassword, resetPassword } from './passwords.js';
export { readAccountProfile, type AccountProfile } from './profile.js';
export {
  readTwoFactorStatus,
  beginTotpSetup,
  activateTotp,
  disableTotp,
  regenerateRecoveryCodes,
  type TwoFactorStatus,
} from './totp.js';
export {
  issueMailToken,
  consumeMailToken,
  MAIL_TOKEN_KINDS,
  MAIL_TOKEN_LIFETIME_MS,
  type MailTokenKind,
  type MailTokenSubject,
} from './mail-tokens.js';
export { renderMail, type MailTemplate } from '../mail/index.js';
export { type MailTransport, type MailMessage, createMailTransport } from '../mail/index.js';
export { rotateSigningKey, SigningKeyRing, signingKeysDir, type SigningKeyInfo } from './signing-keys.js';
export { pruneAccountRecords } from './prune.js';
export * from './schemas.js';
export { accountsContextOf } from './http-context.js';
export { hashOpaqueToken, looksLikeOpaqueToken } from './opaque-tokens.js';
export { accountsPruneJob } from './prune-job.js';
export { accountMailJob } from './mail-job.js';
export { accountRoutes, jwksRoutes } from './routes.js';
export { userPrincipalResolver } from './user-principal.js';

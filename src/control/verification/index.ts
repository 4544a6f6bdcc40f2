/** The public face of src/control/verification: what the rest of src/ may import from it. */
export { grantManualFromShell } from './admin-grant.js';
export { verificationCheckJob } from './check-job.js';
export { verificationDeps } from './deps.js';
export { listDomainVerifications } from './domain-store.js';
export { tierOf } from './methods.js';
export { acceptPluginProof } from './plugin-proof.js';
export { verificationRoutes } from './routes.js';
export { TrustTierSchema, VerificationMethodNameSchema, VerificationStateSchema } from './schemas.js';

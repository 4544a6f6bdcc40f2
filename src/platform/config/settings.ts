import { z } from 'zod';
import { isAddressOrRange } from '../net/index.js';

/**
 * Every setting nodectl reads, declared once: its type, default, environment variable and
 * whether it is a secret (masked by `nodectl config`, redacted from logs).
 */
export interface SettingSpec<T extends z.ZodType = z.ZodType> {
  readonly schema: T;
  readonly default: z.infer<T> | undefined;
  readonly env: string;
  readonly secret?: boolean;
  readonly description: string;
}

const port = z.coerce.number().int().min(0).max(65535);
const bool = z.union([z.boolean(), z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1')]);
const positiveInt = z.coerce.number().int().positive();
/** A connection timeout: never 0 (that would let a silent client hold a connection forever), at most 1 h. */
const timeoutMs = positiveInt.max(3_600_000, 'must be at most 3600000 (1 h)');
/** A list: an array in the config file, comma-separated in the environment. */
const stringList = z
  .union([z.array(z.string()), z.string().transform((v) => v.split(','))])
  .pipe(z.array(z.string().trim().min(1)).min(1, 'must name at least one value'));

function setting<T extends z.ZodType>(spec: SettingSpec<T>): SettingSpec<T> {
  return spec;
}

export const SETTINGS = {
  dataDir: setting({
    schema: z.string().min(1),
    default: './.nodectl',
    env: 'NODECTL_DATA_DIR',
    description: 'Folder holding control.sqlite, graphs/, nodes/, mail/ and keys/.',
  }),
  host: setting({
    schema: z.string().min(1),
    default: '127.0.0.1',
    env: 'NODECTL_HOST',
    description: 'Address `nodectl serve` listens on.',
  }),
  port: setting({
    schema: port,
    default: 8787,
    env: 'NODECTL_PORT',
    description: 'Port `nodectl serve` listens on (0 picks a free one).',
  }),
  logLevel: setting({
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    env: 'NODECTL_LOG_LEVEL',
    description: 'JSON log level of the daemon.',
  }),
  publicBaseUrl: setting({
    schema: z.url().optional(),
    default: undefined,
    env: 'NODECTL_PUBLIC_BASE_URL',
    description: 'Public origin of the API; defaults to http://<host>:<port>.',
  }),
  nodeBaseUrl: setting({
    schema: z.url().optional(),
    default: undefined,
    env: 'NODECTL_NODE_BASE_URL',
    description: 'Public address of published node files; defaults to <public base url>/nodes.',
  }),
  publishTarget: setting({
    schema: z.enum(['fs', 's3']),
    default: 'fs',
    env: 'NODECTL_PUBLISH_TARGET',
    description: 'Where `publish` writes nodes: the local store or an S3 bucket.',
  }),
  s3Bucket: setting({
    schema: z.string().min(3).optional(),
    default: undefined,
    env: 'NODECTL_S3_BUCKET',
    description: 'S3 bucket for the s3 publish target.',
  }),
  s3Prefix: setting({
    schema: z.string().default(''),
    default: '',
    env: 'NODECTL_S3_PREFIX',
    description: 'Key prefix inside the bucket.',
  }),
  s3Endpoint: setting({
    schema: z.url().optional(),
    default: undefined,
    env: 'NODECTL_S3_ENDPOINT',
    description: 'S3 endpoint for MinIO, R2 or another S3-compatible store.',
  }),
  s3Region: setting({
    schema: z.string().min(1),
    default: 'us-east-1',
    env: 'NODECTL_S3_REGION',
    description: 'S3 region.',
  }),
  s3ForcePathStyle: setting({
    schema: bool,
    default: false,
    env: 'NODECTL_S3_FORCE_PATH_STYLE',
    description: 'Use path-style S3 addressing (MinIO and local servers need it).',
  }),
  s3AccessKeyId: setting({
    schema: z.string().min(1).optional(),
    default: undefined,
    env: 'NODECTL_S3_ACCESS_KEY_ID',
    secret: true,
    description: 'S3 access key id (else the AWS default chain).',
  }),
  s3SecretAccessKey: setting({
    schema: z.string().min(1).optional(),
    default: undefined,
    env: 'NODECTL_S3_SECRET_ACCESS_KEY',
    secret: true,
    description: 'S3 secret access key.',
  }),
  publishMaxDrop: setting({
    schema: z.coerce.number().min(0).max(1),
    default: 0.5,
    env: 'NODECTL_PUBLISH_MAX_DROP',
    description: 'Largest share of records a publish may drop against the live version.',
  }),
  // Job lanes (src/platform/job-runtime/define-job.ts): each runs its jobs
  // with its own concurrency, so a slow lane never delays another.
  jobLaneIngestConcurrency: setting({
    schema: positiveInt.max(64),
    default: 8,
    env: 'NODECTL_JOB_LANE_INGEST_CONCURRENCY',
    description:
      'Ingest-lane jobs (content.ingest) the daemon runs at once; batches of one website that wait for the writer at once share a transaction.',
  }),
  jobLanePublishConcurrency: setting({
    schema: positiveInt.max(64),
    default: 1,
    env: 'NODECTL_JOB_LANE_PUBLISH_CONCURRENCY',
    description: 'Publish-lane jobs (node.republish) the daemon runs at once.',
  }),
  jobLaneDeliveryConcurrency: setting({
    schema: positiveInt.max(64),
    default: 4,
    env: 'NODECTL_JOB_LANE_DELIVERY_CONCURRENCY',
    description: 'Delivery-lane jobs (outgoing webhooks and mail) the daemon runs at once.',
  }),
  jobLaneMaintenanceConcurrency: setting({
    schema: positiveInt.max(64),
    default: 1,
    env: 'NODECTL_JOB_LANE_MAINTENANCE_CONCURRENCY',
    description: 'Maintenance-lane jobs (maintenance.*) the daemon runs at once.',
  }),
  jobLaneEmbeddingsConcurrency: setting({
    schema: positiveInt.max(64),
    default: 1,
    env: 'NODECTL_JOB_LANE_EMBEDDINGS_CONCURRENCY',
    description: 'Embeddings-lane jobs (embeddings.compute) the daemon runs at once.',
  }),
  workerConcurrency: setting({
    schema: positiveInt.max(64).optional(),
    default: undefined,
    env: 'NODECTL_WORKER_CONCURRENCY',
    description:
      "Deprecated (before job lanes): the ingest lane's concurrency when jobLaneIngestConcurrency is not set.",
  }),
  extractionWarmUpPages: setting({
    schema: z.coerce.number().int().min(0).max(100_000),
    default: 3000,
    env: 'NODECTL_EXTRACTION_WARM_UP_PAGES',
    description:
      'Made-up pages the extraction workers run through when the daemon starts, so that its first ingest runs at full speed (about 2 s of one core; 0: none, and the graph writer thread then starts at the first ingest).',
  }),
  jobPollMs: setting({
    schema: positiveInt,
    default: 250,
    env: 'NODECTL_JOB_POLL_MS',
    description: 'How often an idle worker looks for due jobs, in ms.',
  }),
  jobLeaseSeconds: setting({
    schema: positiveInt,
    default: 60,
    env: 'NODECTL_JOB_LEASE_SECONDS',
    description: 'How long a claimed job is leased before another worker may take it.',
  }),
  jobMaxAttempts: setting({
    schema: positiveInt.max(100),
    default: 5,
    env: 'NODECTL_JOB_MAX_ATTEMPTS',
    description: 'Attempts before a job is dead-lettered.',
  }),
  jobRetentionDays: setting({
    schema: positiveInt.max(3650),
    default: 7,
    env: 'NODECTL_JOB_RETENTION_DAYS',
    description: 'Days succeeded and dead jobs are kept before the maintenance.jobs.prune job deletes them.',
  }),
  shutdownTimeoutMs: setting({
    schema: positiveInt,
    default: 10000,
    env: 'NODECTL_SHUTDOWN_TIMEOUT_MS',
    description: 'How long shutdown waits for in-flight requests and jobs.',
  }),
  minFreeDiskMb: setting({
    schema: z.coerce.number().int().min(0).max(1_048_576),
    default: 256,
    env: 'NODECTL_MIN_FREE_DISK_MB',
    description:
      "MiB that must stay free on the data directory's disk: below it ingest and publish answer 503 service.storage_unavailable, so acknowledged content can still be processed and the live node stays whole (0: no floor).",
  }),
  headersTimeoutMs: setting({
    schema: timeoutMs,
    default: 10_000,
    env: 'NODECTL_HEADERS_TIMEOUT_MS',
    description:
      'How long a client may take to send the request line and headers, in ms; then 408 request.timeout and the connection closes.',
  }),
  bodyTimeoutMs: setting({
    schema: timeoutMs,
    default: 30_000,
    env: 'NODECTL_BODY_TIMEOUT_MS',
    description:
      'How long a client may take to send a body once its headers arrived, in ms, on every route but /v1/ingest/*; then 408 request.timeout.',
  }),
  ingestBodyTimeoutMs: setting({
    schema: timeoutMs,
    default: 120_000,
    env: 'NODECTL_INGEST_BODY_TIMEOUT_MS',
    description: 'The same for /v1/ingest/* (bodies up to 16 MiB), in ms.',
  }),
  keepAliveTimeoutMs: setting({
    schema: timeoutMs,
    default: 72_000,
    env: 'NODECTL_KEEP_ALIVE_TIMEOUT_MS',
    description:
      'How long an idle keep-alive connection stays open, in ms (keep it above a load balancer idle timeout, often 60 s).',
  }),
  // Shared state of several daemons (issue 41, docs/scaling.md).
  controlStore: setting({
    schema: z
      .string()
      .trim()
      .min(1)
      .refine(
        (v) => (/^postgres(ql)?:\/\//i.test(v) ? URL.canParse(v) : !v.includes('://')),
        "must be a postgres:// or postgresql:// URL (e.g. postgres://nodectl:secret@db.internal:5432/nodectl), or the data directory's control.sqlite",
      )
      .optional(),
    default: undefined,
    env: 'NODECTL_CONTROL_STORE',
    description:
      'Where the control tables live (accounts, organizations, websites, connectors, keys, jobs, usage, nonces, idempotency keys, rate-limit windows, ...): <dataDir>/control.sqlite (default), or a postgres:// URL that several daemons share (docs/scaling.md). The password in the URL is masked in `nodectl config` and logs.',
  }),
  advertiseUrl: setting({
    schema: z.url().optional(),
    default: undefined,
    env: 'NODECTL_ADVERTISE_URL',
    description:
      'With a PostgreSQL control store: the address at which the other daemons reach this one, to forward it the requests of the websites whose graph it writes (docs/scaling.md); defaults to http://<host>:<port> (a host of 0.0.0.0 or :: answers with 127.0.0.1).',
  }),
  websiteLeaseSeconds: setting({
    schema: positiveInt.max(3600),
    default: 30,
    env: 'NODECTL_WEBSITE_LEASE_SECONDS',
    description:
      "With a PostgreSQL control store: how long a daemon's hold on a website's graph lasts unless renewed; a dead daemon's websites move to another after it (docs/scaling.md).",
  }),
  // Accounts and sessions (docs/auth.md).
  accessTokenAlgorithm: setting({
    schema: z.enum(['EdDSA', 'RS256']),
    default: 'EdDSA',
    env: 'NODECTL_ACCESS_TOKEN_ALGORITHM',
    description: 'Signature algorithm of access tokens (Ed25519 or RSA 2048); verification accepts only this one.',
  }),
  authIssuer: setting({
    schema: z.url().optional(),
    default: undefined,
    env: 'NODECTL_AUTH_ISSUER',
    description: 'iss claim of access tokens; defaults to the public base url.',
  }),
  authAudience: setting({
    schema: z.string().min(1),
    default: 'nodectl',
    env: 'NODECTL_AUTH_AUDIENCE',
    description: 'aud claim of access tokens.',
  }),
  sessionLifetimeDays: setting({
    schema: positiveInt.max(365),
    default: 30,
    env: 'NODECTL_SESSION_LIFETIME_DAYS',
    description: 'Days a session (its refresh token chain) lasts from sign-in; then the user signs in again.',
  }),
  appBaseUrl: setting({
    schema: z.url().optional(),
    default: undefined,
    env: 'NODECTL_APP_BASE_URL',
    description:
      'Address mailed links point to, below its path (<url>/verify-email?token=...): set it to <public url>/console for the built-in console; without it mails carry the bare token.',
  }),
  mailTransport: setting({
    schema: z.enum(['file', 'smtp']),
    default: 'file',
    env: 'NODECTL_MAIL_TRANSPORT',
    description: 'How mail leaves: .eml files under <data-dir>/mail/, or SMTP.',
  }),
  mailFrom: setting({
    schema: z.string().min(3).regex(/@/, 'must hold an address, e.g. "nodectl <no-reply@example.com>"'),
    default: 'nodectl <no-reply@localhost>',
    env: 'NODECTL_MAIL_FROM',
    description: 'From: of every mail.',
  }),
  smtpHost: setting({
    schema: z.string().min(1).optional(),
    default: undefined,
    env: 'NODECTL_SMTP_HOST',
    description: 'SMTP server (mailTransport smtp).',
  }),
  smtpPort: setting({
    schema: port,
    default: 587,
    env: 'NODECTL_SMTP_PORT',
    description: 'SMTP port: 587 (STARTTLS) or 465 (smtpSecure).',
  }),
  smtpSecure: setting({
    schema: bool,
    default: false,
    env: 'NODECTL_SMTP_SECURE',
    description: 'TLS from the first byte (port 465); otherwise STARTTLS when the server offers it.',
  }),
  smtpUser: setting({
    schema: z.string().min(1).optional(),
    default: undefined,
    env: 'NODECTL_SMTP_USER',
    description: 'SMTP user name (with smtpPass).',
  }),
  smtpPass: setting({
    schema: z.string().min(1).optional(),
    default: undefined,
    env: 'NODECTL_SMTP_PASS',
    secret: true,
    description: 'SMTP password.',
  }),
  googleClientId: setting({
    schema: z.string().min(1).optional(),
    default: undefined,
    env: 'NODECTL_GOOGLE_CLIENT_ID',
    description: 'OAuth client id Google ID tokens must name as audience; Google sign-in is off without it.',
  }),
  googleJwksUrl: setting({
    schema: z.url(),
    default: 'https://www.googleapis.com/oauth2/v3/certs',
    env: 'NODECTL_GOOGLE_JWKS_URL',
    description: 'JWKS that signs Google ID tokens.',
  }),
  googleIssuers: setting({
    schema: stringList,
    default: ['https://accounts.google.com', 'accounts.google.com'],
    env: 'NODECTL_GOOGLE_ISSUERS',
    description: 'Accepted iss values of Google ID tokens (comma-separated in the environment).',
  }),
  authRateLimitPerMinute: setting({
    schema: positiveInt.max(100_000),
    default: 10,
    env: 'NODECTL_AUTH_RATE_LIMIT_PER_MINUTE',
    description:
      'Login, register and forgot-password requests per minute for one email (docs/contract.md#rate-limits).',
  }),
  authAddressRateLimitPerMinute: setting({
    schema: positiveInt.max(1_000_000),
    default: 100,
    env: 'NODECTL_AUTH_ADDRESS_RATE_LIMIT_PER_MINUTE',
    description:
      'Login, register, forgot-password and Google sign-in requests per minute from one client address: higher than the per-email limit, so one address cannot lock every account.',
  }),
  trustProxy: setting({
    schema: stringList
      .pipe(z.array(z.string().refine(isAddressOrRange, 'must be an IP address or a CIDR range such as 10.0.0.0/8')))
      .optional(),
    default: undefined,
    env: 'NODECTL_TRUST_PROXY',
    description:
      'Addresses or CIDR ranges of reverse proxies whose X-Forwarded-For names the client (comma-separated in the environment); the rate limits count per that client. Default none: the socket address.',
  }),
  // Rate limits (docs/contract.md#rate-limits): fixed one-minute windows; 429 quota.rate_limited past them.
  rateLimitPerMinute: setting({
    schema: positiveInt.max(1_000_000),
    default: 1200,
    env: 'NODECTL_RATE_LIMIT_PER_MINUTE',
    description:
      'Requests per minute of one principal (API key or user; the client address when anonymous) on every route without a limit of its own.',
  }),
  ingestRateLimitPerMinute: setting({
    schema: positiveInt.max(1_000_000),
    default: 600,
    env: 'NODECTL_INGEST_RATE_LIMIT_PER_MINUTE',
    description: 'Requests per minute of one connector on /v1/ingest/*.',
  }),
  ingestAuthFailuresPerMinute: setting({
    schema: positiveInt.max(1_000_000),
    default: 60,
    env: 'NODECTL_INGEST_AUTH_FAILURES_PER_MINUTE',
    description:
      'Failed ingest authentications (401) per minute from one client address; past them its ingest requests are refused before any check.',
  }),
  nodeRateLimitPerMinute: setting({
    schema: positiveInt.max(10_000_000),
    default: 6000,
    env: 'NODECTL_NODE_RATE_LIMIT_PER_MINUTE',
    description:
      'Reads of published node files (/nodes/*) per minute from one client address, apart from the API limit.',
  }),
  searchQueuePerCaller: setting({
    schema: positiveInt.max(1000),
    default: 4,
    env: 'NODECTL_SEARCH_QUEUE_PER_CALLER',
    description:
      'Knowledge searches one caller (API key or user) may have waiting or running at once; past them a search is 429. Searches run one at a time, each yielding to other requests.',
  }),
  waitlistRateLimitPerMinute: setting({
    schema: positiveInt.max(1_000_000),
    default: 5,
    env: 'NODECTL_WAITLIST_RATE_LIMIT_PER_MINUTE',
    description: 'POST /v1/waitlist requests per minute from one client address.',
  }),
  // Embeddings (docs/knowledge.md "Settings"): off until embeddingsUrl names an OpenAI-compatible
  // /v1/embeddings endpoint; then chunks get vectors and knowledge search gains vector and hybrid modes.
  embeddingsUrl: setting({
    schema: z
      .url()
      .refine((v) => /^https?:\/\//.test(v), 'must be an http(s) URL, e.g. http://127.0.0.1:11434/v1/embeddings')
      .optional(),
    default: undefined,
    env: 'NODECTL_EMBEDDINGS_URL',
    description:
      'OpenAI-compatible embeddings endpoint (the full URL, e.g. https://api.openai.com/v1/embeddings); unset: embeddings off, keyword search only.',
  }),
  embeddingsModel: setting({
    schema: z.string().trim().min(1).max(200),
    default: 'text-embedding-3-small',
    env: 'NODECTL_EMBEDDINGS_MODEL',
    description: 'Model name sent to the embeddings endpoint; changing it re-embeds every chunk.',
  }),
  embeddingsDimensions: setting({
    schema: positiveInt
      .min(8)
      .max(4096)
      .refine((v) => v % 8 === 0, 'must be a multiple of 8 (vectors are also kept as sign bits)'),
    default: 1536,
    env: 'NODECTL_EMBEDDINGS_DIMENSIONS',
    description:
      'Dimensions of the vectors (sent as `dimensions`; an answer of another length fails the batch); changing it re-embeds every chunk.',
  }),
  embeddingsBatchSize: setting({
    schema: positiveInt.max(2048),
    default: 64,
    env: 'NODECTL_EMBEDDINGS_BATCH_SIZE',
    description: 'Chunks sent to the embeddings endpoint in one request.',
  }),
  embeddingsTimeoutMs: setting({
    schema: timeoutMs,
    default: 30_000,
    env: 'NODECTL_EMBEDDINGS_TIMEOUT_MS',
    description: 'How long one embeddings request may take before it counts as a provider error, in ms.',
  }),
  embeddingsApiKey: setting({
    schema: z.string().min(1).optional(),
    default: undefined,
    env: 'NODECTL_EMBEDDINGS_API_KEY',
    secret: true,
    description: 'Bearer token for the embeddings endpoint (none sent when unset, e.g. for a local Ollama).',
  }),
  // Ownership verification and guarded fetches (docs/websites.md).
  dnsServers: setting({
    schema: stringList.optional(),
    default: undefined,
    env: 'NODECTL_DNS_SERVERS',
    description:
      'DNS servers (ip or ip:port, comma-separated in the environment) for dns_txt checks and guarded fetches; default the system resolver.',
  }),
  dnsTimeoutMs: setting({
    schema: positiveInt.max(30_000),
    default: 2000,
    env: 'NODECTL_DNS_TIMEOUT_MS',
    description: 'How long one DNS query waits before it is sent again (twice), in ms.',
  }),
  fetchAllowPrivateAddresses: setting({
    schema: bool,
    default: false,
    env: 'NODECTL_FETCH_ALLOW_PRIVATE_ADDRESSES',
    description:
      'Let ownership fetches reach loopback, private, link-local, CGNAT and IPv6 unique-local addresses (self-hosted LANs, tests); cloud metadata addresses stay refused.',
  }),
  fetchAllowedAddresses: setting({
    schema: stringList
      .pipe(z.array(z.string().refine(isAddressOrRange, 'must be an IP address or a CIDR range such as 10.20.0.0/16')))
      .optional(),
    default: undefined,
    env: 'NODECTL_FETCH_ALLOWED_ADDRESSES',
    description:
      'Addresses or CIDR ranges ownership fetches may reach whatever their kind (comma-separated in the environment); narrower than fetchAllowPrivateAddresses.',
  }),
  verificationBaseUrl: setting({
    schema: z
      .string()
      .regex(
        /^https?:\/\/[^/?#]*\{domain\}[^/?#]*$/,
        'must be http(s)://, then a host with {domain} in it, no path, e.g. https://{domain} or http://{domain}:8080',
      ),
    default: 'https://{domain}',
    env: 'NODECTL_VERIFICATION_BASE_URL',
    description: 'Origin the meta_tag and well_known_file checks fetch, {domain} standing for the domain checked.',
  }),
  allowUnverifiedConnectors: setting({
    schema: bool,
    default: false,
    env: 'NODECTL_ALLOW_UNVERIFIED_CONNECTORS',
    description:
      'Let POST /v1/websites/:id/connectors issue a token for a website whose ownership is not verified (refused with 409 website.not_verified otherwise).',
  }),
} as const;

export type SettingName = keyof typeof SETTINGS;
export type Settings = { readonly [K in SettingName]: z.infer<(typeof SETTINGS)[K]['schema']> };

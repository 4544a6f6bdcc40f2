import { z } from 'zod';
import { SourceTypeSchema } from '../../platform/contract/ingest-item.js';
import { CONNECTOR_STATUSES, CreateConnectorSchema } from './connectors.js';

/**
 * The connector routes' request and answer schemas (docs/websites.md "Connectors"): the route
 * layer validates with them and the OpenAPI document is generated from them.
 */

export const ConnectorIdParamsSchema = z.object({ cid: z.string().describe('The connector id (conn_...)') });

/** POST /v1/websites/:id/connectors: the website is the one in the path. */
export const CreateConnectorBodySchema = z.strictObject({
  name: CreateConnectorSchema.shape.name.describe('A name for people; default the connector type'),
  connectorType: CreateConnectorSchema.shape.connectorType.describe('What sends the content, e.g. wordpress or files'),
  sourceTypes: CreateConnectorSchema.shape.sourceTypes.describe('The item types the connector may send (its scope)'),
});

/** rotate, suspend, resume and delete take no body; one sent by mistake (even `{"now": true}`) is refused, not ignored. */
export const NoBodySchema = z.strictObject({}).optional();

/** A connector as every route answers it: never the secret, never its hash (src/control/connectors/connectors.ts). */
export const ConnectorSchema = z.object({
  id: z.string().describe('conn_ followed by a ULID'),
  name: z.string(),
  connectorType: z.string(),
  scope: z
    .object({ websiteId: z.string(), sourceTypes: z.array(SourceTypeSchema).describe('Sorted, without repeats') })
    .describe('What the connector may send, and for which website'),
  tokenVersion: z.number().int().min(1).describe('Goes up at each rotation; a token of an older version is refused'),
  status: z
    .enum(CONNECTOR_STATUSES)
    .describe('active; suspended (its requests are refused until resumed); revoked (deleted, for good)'),
  connectorState: z.string().nullable().describe('What the connector said it was doing in its last heartbeat'),
  lastHeartbeatAt: z.iso.datetime().nullable(),
  stale: z.boolean().describe('No heartbeat for 15 minutes (cleared by the next one)'),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

/** The create and rotate answer: the connector and its token, shown this once. */
export const ConnectorWithTokenSchema = ConnectorSchema.extend({
  token: z
    .string()
    .describe('<connector id>.<secret>: the credential the connector signs with; shown only in this answer'),
});

export type CreateConnectorBody = z.input<typeof CreateConnectorBodySchema>;
export type Connector = z.output<typeof ConnectorSchema>;

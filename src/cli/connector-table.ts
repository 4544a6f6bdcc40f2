import { formatTable } from './output.js';

/** What a connector listing shows, the same read from the data directory or over the API. */
export interface ConnectorListRow {
  id: string;
  scope: { websiteId: string; sourceTypes: readonly string[] };
  connectorType: string;
  status: string;
  tokenVersion: number;
  lastHeartbeatAt?: string | null;
}

/** The table `nodectl admin connector list` and `nodectl connectors list` both print. */
export function formatConnectorTable(rows: readonly ConnectorListRow[]): string {
  return formatTable(
    ['ID', 'WEBSITE', 'TYPE', 'SOURCE TYPES', 'STATUS', 'VERSION', 'LAST HEARTBEAT'],
    rows.map((r) => [
      r.id,
      r.scope.websiteId,
      r.connectorType,
      r.scope.sourceTypes.join(','),
      r.status,
      r.tokenVersion,
      r.lastHeartbeatAt,
    ]),
  );
}

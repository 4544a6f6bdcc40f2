import { NotBuiltYet } from './placeholder.js';
import type { WebsitePageProps } from './website-layout.js';

export function WebsiteConnectorsPage(_props: WebsitePageProps) {
  return <NotBuiltYet title="Connectors" />;
}

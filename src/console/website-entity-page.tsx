import { NotBuiltYet } from './placeholder.js';
import type { WebsitePageProps } from './website-layout.js';

export function WebsiteEntityPage(_props: WebsitePageProps & { entityId: string }) {
  return <NotBuiltYet title="Entity" />;
}

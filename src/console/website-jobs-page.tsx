import { NotBuiltYet } from './placeholder.js';
import type { WebsitePageProps } from './website-layout.js';

export function WebsiteJobsPage(_props: WebsitePageProps) {
  return <NotBuiltYet title="Ingest and jobs" />;
}

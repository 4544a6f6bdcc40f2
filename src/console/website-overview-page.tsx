import { NotBuiltYet } from './placeholder.js';
import type { WebsitePageProps } from './website-layout.js';

export function WebsiteOverviewPage(_props: WebsitePageProps) {
  return <NotBuiltYet title="Website" />;
}

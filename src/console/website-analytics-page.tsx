import { NotBuiltYet } from './placeholder.js';
import type { WebsitePageProps } from './website-layout.js';

export function WebsiteAnalyticsPage(_props: WebsitePageProps) {
  return <NotBuiltYet title="Analytics" />;
}

import { NotBuiltYet } from './placeholder.js';
import type { WebsitePageProps } from './website-layout.js';

export function WebsiteNodePage(_props: WebsitePageProps) {
  return <NotBuiltYet title="Node" />;
}

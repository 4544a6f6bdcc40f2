import { NotBuiltYet } from './placeholder.js';
import type { WebsitePageProps } from './website-layout.js';

export function WebsiteKnowledgePage(_props: WebsitePageProps) {
  return <NotBuiltYet title="Knowledge" />;
}

import { NotBuiltYet } from './placeholder.js';
import type { WebsitePageProps } from './website-layout.js';

export function WebsiteWebhooksPage(_props: WebsitePageProps) {
  return <NotBuiltYet title="Webhooks" />;
}

import { NotBuiltYet } from './placeholder.js';
import type { WebsitePageProps } from './website-layout.js';

export function WebsiteVerificationPage(_props: WebsitePageProps) {
  return <NotBuiltYet title="Verification" />;
}

import { NotBuiltYet } from './placeholder.js';

export function AccountPage(_props: Record<string, never>) {
  return <NotBuiltYet title="Your account" />;
}

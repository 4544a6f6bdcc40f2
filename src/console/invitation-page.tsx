import { NotBuiltYet } from './placeholder.js';

export function InvitationPage(_props: { token?: string }) {
  return <NotBuiltYet title="Join an organization" />;
}

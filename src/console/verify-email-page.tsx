import { NotBuiltYet } from './placeholder.js';

export function VerifyEmailPage(_props: { token?: string }) {
  return <NotBuiltYet title="Verify your email address" />;
}

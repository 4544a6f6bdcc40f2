import { NotBuiltYet } from './placeholder.js';

export function ResetPasswordPage(_props: { token?: string }) {
  return <NotBuiltYet title="Choose a new password" />;
}

import { NotBuiltYet } from './placeholder.js';

export function ForgotPasswordPage(_props: { token?: string }) {
  return <NotBuiltYet title="Forgot your password?" />;
}

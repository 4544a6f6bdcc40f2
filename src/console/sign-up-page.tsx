import { NotBuiltYet } from './placeholder.js';

export function SignUpPage(_props: { token?: string }) {
  return <NotBuiltYet title="Create your account" />;
}

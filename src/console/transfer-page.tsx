import { NotBuiltYet } from './placeholder.js';

export function TransferPage(_props: { token?: string }) {
  return <NotBuiltYet title="Accept a transfer" />;
}

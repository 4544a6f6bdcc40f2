/** Access tokens live 15 minutes (docs/contract.md#sessions); a refresh gives a new one. */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 15 * 60;

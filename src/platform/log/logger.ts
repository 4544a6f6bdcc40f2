/**
 * What a module logs through: pino's call shape (a context object, then a message), so the
 * daemon passes Fastify's logger and tests and the CLI pass silentLogger.
 */
export interface Logger {
  info(context: object, message?: string): void;
  warn(context: object, message?: string): void;
  error(context: object, message?: string): void;
  debug(context: object, message?: string): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {}, debug() {} };

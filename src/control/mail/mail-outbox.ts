import type { MailMessage, MailTransport } from './mail-transport.js';

export interface AccountsLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * Every mail of the accounts code leaves through here, so From is set once and a failure is logged
 * the same way: with the mail's kind and the error, never its text (it holds a token).
 */
export class MailOutbox {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly transport: MailTransport,
    private readonly options: { from: string; logger: AccountsLogger },
  ) {}

  get transportKind(): MailTransport['kind'] {
    return this.transport.kind;
  }

  /** Sends and waits; resolves false (logged) when the transport failed. */
  async deliver(kind: string, message: MailMessage): Promise<boolean> {
    try {
      const { messageId } = await this.transport.send({ ...message, from: this.options.from });
      this.options.logger.info({ mail: kind, transport: this.transport.kind, messageId }, 'mail sent');
      return true;
    } catch (error) {
      this.options.logger.warn(
        { mail: kind, transport: this.transport.kind, error: (error as Error).message },
        'mail not sent',
      );
      return false;
    }
  }

  /**
   * Composes and sends in the background, after the caller has answered: neither the answer nor
   * its timing may tell whether a mail went out (forgot-password must not reveal that an account
   * exists), so the lookup and the token write happen inside `compose` too. `compose` returns
   * undefined when there is nothing to send.
   */
  enqueue(kind: string, compose: () => MailMessage | undefined): void {
    const sending = new Promise<void>((resolve) => setImmediate(resolve))
      .then(async () => {
        const message = compose();
        if (message) await this.deliver(kind, message);
      })
      .catch((error: unknown) =>
        this.options.logger.warn({ mail: kind, error: (error as Error).message }, 'mail not composed'),
      )
      .finally(() => this.pending.delete(sending));
    this.pending.add(sending);
  }

  /** Resolves when every enqueued mail was handed on or failed (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  close(): void {
    this.transport.close();
  }
}

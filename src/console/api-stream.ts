import { ApiFailure, authorizationHeader } from './api.js';
import { EventStreamReader } from './node-text.js';

interface ErrorEnvelope {
  error?: { code: string; message: string; details?: Record<string, unknown> };
  meta?: { status?: number };
}

/**
 * A POST whose answer comes as Server-Sent Events (`progress` events, then one `result` or `error`),
 * read with fetch and a stream reader: EventSource cannot send the Authorization header, nor POST.
 * A refusal before the work starts is a plain JSON error answer, thrown as call() throws it.
 */
export async function postWithProgress<T>(
  path: string,
  body: unknown,
  onProgress: (data: unknown) => void,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: 'POST',
      headers: {
        accept: 'text/event-stream, application/json;q=0.5',
        'content-type': 'application/json',
        ...authorizationHeader(),
      },
      body: JSON.stringify(body),
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiFailure(0, 'network', 'The daemon cannot be reached: check that nodectl serve is running.');
  }
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('text/event-stream') || !response.body) {
    let envelope: { ok?: boolean; data?: T } & ErrorEnvelope;
    try {
      envelope = (await response.json()) as typeof envelope;
    } catch {
      throw new ApiFailure(response.status, 'bad_answer', `The daemon answered ${response.status} without JSON.`);
    }
    if (!response.ok || !envelope.ok) throw failureOf(envelope, response.status);
    return envelope.data as T;
  }

  const reader = new EventStreamReader();
  const decoder = new TextDecoder();
  const stream = response.body.getReader();
  for (;;) {
    const { done, value } = await stream.read();
    const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
    for (const event of reader.push(text)) {
      const data = parse(event.data);
      if (event.event === 'progress') onProgress(data);
      else if (event.event === 'result') {
        void stream.cancel().catch(() => undefined);
        return (data as { data: T }).data;
      } else if (event.event === 'error') {
        void stream.cancel().catch(() => undefined);
        const envelope = (data ?? {}) as ErrorEnvelope;
        throw failureOf(envelope, envelope.meta?.status ?? 500);
      }
    }
    if (done) break;
  }
  throw new ApiFailure(
    0,
    'network',
    'The connection closed before the publish answered: read the versions list to see whether it went live.',
  );
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function failureOf(envelope: ErrorEnvelope, status: number): ApiFailure {
  const error = envelope.error ?? { code: 'unknown', message: `The daemon answered ${status}.` };
  return new ApiFailure(status, error.code, error.message, error.details ?? {});
}

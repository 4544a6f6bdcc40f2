import { ApiFailure } from './api.js';

/** The API's own message (and each field it refused), read out by screen readers when it appears. */
export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const fields =
    error instanceof ApiFailure && error.code === 'validation.failed'
      ? Object.entries((error.details.fields ?? {}) as Record<string, unknown>)
      : [];
  return (
    <div class="error" role="alert">
      <p>{message}</p>
      {fields.length > 0 && (
        <ul>
          {fields.map(([field, problem]) => (
            <li key={field}>
              {field}: {Array.isArray(problem) ? problem.join('; ') : String(problem)}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

import { ApiFailure } from './api.js';

interface FieldProblem {
  path: string;
  message: string;
}

/** validation.failed names each refused field (docs/contract.md#envelope): those are the words to show. */
function fieldProblems(error: unknown): FieldProblem[] {
  if (!(error instanceof ApiFailure) || error.code !== 'validation.failed') return [];
  const fields = error.details.fields;
  return Array.isArray(fields)
    ? fields.filter((f): f is FieldProblem => typeof f?.path === 'string' && typeof f?.message === 'string')
    : [];
}

/** The API's own message (for a refused form, each field's), read out by screen readers when it appears. */
export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  const fields = fieldProblems(error);
  return (
    <div class="error" role="alert">
      {fields.length > 0 ? (
        <ul>
          {fields.map((field) => (
            <li key={field.path}>
              {field.path}: {field.message}
            </li>
          ))}
        </ul>
      ) : (
        <p>{error instanceof Error ? error.message : String(error)}</p>
      )}
    </div>
  );
}

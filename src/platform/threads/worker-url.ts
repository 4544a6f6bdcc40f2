import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The URL of a worker thread's module `file`, next to the module at `here` (its import.meta.url)
 * in the build. Running from the sources (vitest runs the .ts files in process, but a worker
 * thread is plain Node 20, which cannot load .ts), it is the build's copy of that file: dist/ in
 * place of the last src/ of the path, which must then be current. `what` names the worker in
 * the error that says so.
 */
export function workerModuleUrl(here: string, file: string, what: string): URL {
  if (!here.endsWith('.ts')) return new URL(`./${file}`, here);
  const at = here.lastIndexOf('/src/');
  const built = new URL(`./${file}`, at < 0 ? here : `${here.slice(0, at)}/dist/${here.slice(at + '/src/'.length)}`);
  if (!existsSync(built))
    throw new Error(`${what} runs from the build, and ${fileURLToPath(built)} is missing: run npm run build`);
  return built;
}

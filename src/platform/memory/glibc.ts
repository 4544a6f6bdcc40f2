/** Whether this process runs on glibc (others have neither its arenas nor malloc_trim); a diagnostic report, a few ms. */
export function runsOnGlibc(): boolean {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return typeof report?.header?.glibcVersionRuntime === 'string';
}

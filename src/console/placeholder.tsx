/** A page whose screen is not built yet: it says so and points to the CLI that does the same work. */
export function NotBuiltYet({ title }: { title: string }) {
  return (
    <>
      <h1 tabIndex={-1}>{title}</h1>
      <p class="empty">This page is not in the console yet: use the nodectl CLI or the /v1 API for it.</p>
    </>
  );
}

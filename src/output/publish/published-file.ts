/** One file of a published version, as a publish, rollback or takedown reports it. */
export interface PublishedFile {
  path: string;
  bytes: number;
  checksum: string;
  immutable: boolean;
  /** uploaded: its bytes were sent; carried: the store already held them (cas/), nothing sent. */
  state: 'uploaded' | 'carried';
}

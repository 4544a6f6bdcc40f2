import type { Command } from 'commander';
import { z } from 'zod';
import { commandContext } from '../context.js';
import { CliError, UsageError } from '../errors.js';

const ArchiveSchema = z
  .string()
  .min(1, 'give the archive file, e.g. nodectl-backup.tar')
  .refine((s) => !s.endsWith('/'), 'must be a file name, not a folder');

function archivePath(value: string): string {
  const parsed = ArchiveSchema.safeParse(value);
  if (!parsed.success) throw new UsageError(`<archive> ${parsed.error.issues[0]?.message ?? 'is not valid'}`);
  return parsed.data;
}

/** A BackupError is the user's to fix (exit 1, its message); anything else stays a crash. */
async function reported<T>(run: () => Promise<T>): Promise<T> {
  const { BackupError } = await import('../../platform/storage/index.js');
  try {
    return await run();
  } catch (error) {
    if (error instanceof BackupError) throw new CliError(error.message);
    throw error;
  }
}

/** `nodectl backup <archive>` and `nodectl restore <archive>`: a self-hosted instance to one tar file and back. */
export function registerBackupCommands(program: Command): void {
  program
    .command('backup <archive>')
    .description(
      'snapshot the data directory, also while a daemon runs on it, into one tar file: control.sqlite and every graph (SQLite online backup), keys/ and config.json; published nodes with --with-nodes (with controlStore on PostgreSQL, back that up with pg_dump: the archive then holds no control.sqlite)',
    )
    .option('--with-nodes', 'also copy the published nodes (nodes/); without it, publish again after a restore')
    .addHelpText(
      'after',
      '\nThe archive holds the signing keys and every secret hash: keep it as you keep keys/ (it is written mode 0600).\nRestore it with `nodectl --data-dir <empty dir> restore <archive>`.',
    )
    .action(async (archive: string, opts: { withNodes?: boolean }, command: Command) => {
      const ctx = commandContext(command);
      const file = archivePath(archive);
      const { backupDataDir } = await import('../../platform/storage/index.js');
      const { isPostgresUrl } = await import('../../platform/config/index.js');
      const controlStore = ctx.config.settings.controlStore;
      const result = await reported(() =>
        backupDataDir({
          dataDir: ctx.config.settings.dataDir,
          archive: file,
          withNodes: Boolean(opts.withNodes),
          controlTablesElsewhere: controlStore !== undefined && isPostgresUrl(controlStore),
        }),
      );
      ctx.out.result(
        result,
        () =>
          `backed up ${ctx.config.settings.dataDir} to ${result.archive}: ${result.websites.length} website graph(s), ${result.files} files, ${result.bytes} bytes`,
      );
    });
  program
    .command('restore <archive>')
    .description(
      'restore a nodectl backup into the data directory, which must be empty or missing; it is left as it was if anything fails',
    )
    .addHelpText(
      'after',
      '\nEach file is checked against the archive manifest and each database with PRAGMA integrity_check before the data directory appears. Then start `nodectl serve` on it.',
    )
    .action(async (archive: string, _opts: unknown, command: Command) => {
      const ctx = commandContext(command);
      const file = archivePath(archive);
      const { restoreDataDir } = await import('../../platform/storage/index.js');
      const result = await reported(async () =>
        restoreDataDir({ archive: file, dataDir: ctx.config.settings.dataDir }),
      );
      ctx.out.result(
        result,
        () =>
          `restored ${result.files} files (${result.websites.length} website graph(s)${result.withNodes ? ', published nodes' : ''}) of the backup of ${result.createdAt} into ${result.dataDir}`,
      );
    });
}

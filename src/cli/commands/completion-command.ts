import type { Command } from 'commander';
import { z } from 'zod';
import { commandContext } from '../context.js';
import { UsageError } from '../errors.js';
import { cliIo } from '../io.js';

const ShellSchema = z.enum(['bash', 'zsh', 'fish'], { error: 'must be bash, zsh or fish' });

/** `nodectl completion bash|zsh|fish`: prints a completion script generated from the command tree. */
export function registerCompletionCommand(program: Command): void {
  program
    .command('completion <shell>')
    .description('print a shell completion script (bash, zsh or fish) for every command and flag')
    .addHelpText(
      'after',
      `
Install:
  bash  echo 'source <(nodectl completion bash)' >> ~/.bashrc
        (or: nodectl completion bash > ~/.local/share/bash-completion/completions/nodectl)
  zsh   echo 'source <(nodectl completion zsh)' >> ~/.zshrc
  fish  nodectl completion fish > ~/.config/fish/completions/nodectl.fish
Then open a new shell. Generate it again after an upgrade of nodectl.`,
    )
    .action(async (shell: string, _opts: unknown, command: Command) => {
      commandContext(command);
      const parsed = ShellSchema.safeParse(shell);
      if (!parsed.success) throw new UsageError(`<shell> ${parsed.error.issues[0]!.message} (got ${shell})`);
      let root = command;
      while (root.parent) root = root.parent;
      const { renderCompletion } = await import('../completion.js');
      cliIo().stdout.write(renderCompletion(root, parsed.data));
    });
}

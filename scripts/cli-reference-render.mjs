// Renders `nodectl <command> --help` for every command and subcommand as markdown.
import { buildProgram } from '../dist/cli/main.js';

function walk(command, path, out) {
  const name = [...path, command.name()].join(' ');
  out.push(`### \`${name}\`\n\n\`\`\`text\n${command.helpInformation().trimEnd()}\n\`\`\``);
  for (const sub of [...command.commands].sort((a, b) => a.name().localeCompare(b.name())))
    walk(sub, [...path, command.name()], out);
}

export async function renderCliReference() {
  const program = buildProgram();
  program.configureHelp({ helpWidth: 100, sortSubcommands: true });
  const out = [];
  walk(program, [], out);
  return out.join('\n\n') + '\n';
}

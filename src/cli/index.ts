/** The public face of src/cli: the program and its runner (bin/nodectl starts main.ts itself). */
export { buildProgram, runCli } from './main.js';

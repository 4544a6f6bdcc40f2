/** The schema of control.sqlite: one file per migration in src/platform/storage/migrations/control/ (see its index). */
export { CONTROL_MIGRATIONS } from './migrations/control/index.js';

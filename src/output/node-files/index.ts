/** The public face of src/output/node-files: what the rest of src/ may import from it. */
export { nodeFileRoutes } from './routes.js';

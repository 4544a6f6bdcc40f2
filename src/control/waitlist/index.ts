/** The public face of src/control/waitlist: what the rest of src/ may import from it. */
export { waitlistRoutes } from './routes.js';

/** The public face of src/control/websites: what the rest of src/ may import from it. */
export { jobRoutes } from './job-routes.js';
export type { JobDetailSchema, JobItemErrorSchema, JobSchema, JobsQuerySchema } from './job-schemas.js';
export { websiteRoutes } from './routes.js';
export { UpdateWebsiteBodySchema, WebsiteIdParamsSchema } from './schemas.js';
export type { CreateWebsiteBodySchema, DeleteWebsiteBodySchema, WebsiteSchema } from './schemas.js';
export { presentJob, presentJobDetail, readWebsiteJob } from './website-jobs.js';

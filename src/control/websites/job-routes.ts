import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RoutePlugin } from '../../platform/app/index.js';
import { authorizedWebsite, type RouteAccess } from '../access/index.js';
import { AppError } from '../../platform/errors/index.js';
import { sendData, pageOf, parseListQuery, dataEnvelope, listEnvelope } from '../../platform/http/index.js';
import {
  JobDetailSchema,
  JobSchema,
  JobsQuerySchema,
  WebsiteJobParamsSchema,
  WebsiteJobsParamsSchema,
} from './job-schemas.js';
import { jobCursorKey, listWebsiteJobs, presentJob, presentJobDetail, readWebsiteJob } from './website-jobs.js';

const VIEWER_READ: RouteAccess = { minRole: 'viewer', access: 'read', resource: { kind: 'website', param: 'id' } };

/**
 * GET /v1/websites/:id/jobs and GET /v1/websites/:id/jobs/:jobId (viewer): the website's jobs
 * (the kinds that act on one website: content.ingest, node.republish, webhook.deliver), newest
 * first, as `nodectl jobs list --website` shows them. A job is read under its website, so the
 * access model's website resource covers it; jobs of no website (maintenance, organization
 * erase and transfer) are not listed here.
 */
export const jobRoutes: RoutePlugin = async (plain, { services }) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/v1/websites/:id/jobs',
    {
      config: { access: VIEWER_READ },
      schema: {
        summary: "List the website's jobs, newest first",
        description: 'Ingest, republish and webhook delivery jobs of the website; filter by state and kind.',
        tags: ['jobs'],
        params: WebsiteJobsParamsSchema,
        querystring: JobsQuerySchema,
        response: { 200: listEnvelope(JobSchema) },
      },
    },
    async (request, reply) => {
      const website = authorizedWebsite(request);
      const page = parseListQuery(request.query);
      const { state, kind } = request.query;
      const rows = listWebsiteJobs(services.jobs, website.id, { state, kind }, page);
      return sendData(request, reply, pageOf(rows, page, jobCursorKey, presentJob));
    },
  );

  app.get(
    '/v1/websites/:id/jobs/:jobId',
    {
      config: { access: VIEWER_READ, errors: ['job.not_found'] },
      schema: {
        summary: 'Read one job of the website',
        description:
          'With the items the job refused (itemErrors: each item id, type, url, a stable code and what to fix; the first 100, itemErrorCount counts them all).',
        tags: ['jobs'],
        params: WebsiteJobParamsSchema,
        response: { 200: dataEnvelope(JobDetailSchema) },
      },
    },
    async (request, reply) => {
      const website = authorizedWebsite(request);
      const job = readWebsiteJob(services.jobs, website.id, request.params.jobId);
      if (!job)
        throw new AppError(
          'job.not_found',
          `Website ${website.id} has no job ${request.params.jobId}; GET /v1/websites/${website.id}/jobs lists them.`,
        );
      return sendData(request, reply, presentJobDetail(job));
    },
  );
};

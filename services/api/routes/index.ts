import type { FastifyInstance } from 'fastify';
import { createChecksSpec, registerChecksRoutes } from './checks.ts';
import { createCompanyChecksSpec, registerCompanyChecksRoutes } from './company-checks.ts';
import { createPhoneChecksSpec, registerPhoneChecksRoutes } from './phone-checks.ts';
import { getCurrentListVersionSpec, registerListVersionRoutes } from './list-versions.ts';
import { registerAddressRoutes, resolveAddressesSpec } from './addresses.ts';
import { registerOpenApiRoute } from './openapi.ts';
import { checkJobSpecs, registerCheckJobRoutes } from './check-jobs.ts';
import { listCheckJobsSpec, registerCheckJobListRoute } from './check-job-list.ts';
import { certificateSpecs, registerCertificateRoutes } from './certificates.ts';
import type { CertificateKeys } from '../../platform/keys/certificate-keys.ts';
import { paymentWebhookSpec, registerPaymentRoutes, type PaymentsContext } from './payments.ts';
import type { CheckJobsContext, RouteContext, RouteSpec } from './route-spec.ts';
import { monitorSpecs, registerMonitorRoutes, type MonitorsContext } from './monitors.ts';
import { peopleSpecs, registerPeopleRoutes, type PeopleContext } from './people.ts';
import { channelSpecs, registerChannelRoutes, type ChannelsContext } from './channels.ts';
import { columnMappingSpecs, registerColumnMappingRoutes, type ColumnMappingsContext } from './column-mappings.ts';

/** Every operation the API publishes, in the order of the OpenAPI document. */
export const routeSpecs: RouteSpec[] = [
  createChecksSpec, createCompanyChecksSpec, createPhoneChecksSpec, listCheckJobsSpec, ...checkJobSpecs, ...monitorSpecs, ...certificateSpecs,
  paymentWebhookSpec,
  getCurrentListVersionSpec, resolveAddressesSpec, ...peopleSpecs, ...channelSpecs, ...columnMappingSpecs,
];

/**
 * The check-job routes exist only when a job store and an intake are wired (`jobs`), the
 * certificate routes only with certificate keys, the payment webhook with the
 * check jobs (404 without its secret).
 */
export function registerRoutes(
  app: FastifyInstance, ctx: RouteContext, jobs?: CheckJobsContext, certificates?: CertificateKeys, payments?: PaymentsContext,
  monitors?: MonitorsContext, people?: PeopleContext, channels?: ChannelsContext, columnMappings?: ColumnMappingsContext,
): void {
  registerChecksRoutes(app, ctx);
  registerCompanyChecksRoutes(app, ctx);
  registerPhoneChecksRoutes(app, ctx);
  if (jobs) {
    registerCheckJobRoutes(app, ctx, jobs);
    registerCheckJobListRoute(app, ctx, jobs);
  }
  if (monitors) registerMonitorRoutes(app, ctx, monitors);
  if (certificates) registerCertificateRoutes(app, ctx, certificates);
  if (payments) registerPaymentRoutes(app, ctx, payments);
  if (people) registerPeopleRoutes(app, ctx, people);
  if (channels) registerChannelRoutes(app, ctx, channels);
  if (columnMappings) registerColumnMappingRoutes(app, ctx, columnMappings);
  registerListVersionRoutes(app, ctx);
  registerAddressRoutes(app, ctx);
  registerOpenApiRoute(app, routeSpecs);
}

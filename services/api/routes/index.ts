import type { FastifyInstance } from 'fastify';
import { createChecksSpec, registerChecksRoutes } from './checks.ts';
import { getCurrentListVersionSpec, registerListVersionRoutes } from './list-versions.ts';
import { registerAddressRoutes, resolveAddressesSpec } from './addresses.ts';
import { registerOpenApiRoute } from './openapi.ts';
import type { RouteContext, RouteSpec } from './route-spec.ts';

/** Every operation the API publishes, in the order of the OpenAPI document. */
export const routeSpecs: RouteSpec[] = [createChecksSpec, getCurrentListVersionSpec, resolveAddressesSpec];

export function registerRoutes(app: FastifyInstance, ctx: RouteContext): void {
  registerChecksRoutes(app, ctx);
  registerListVersionRoutes(app, ctx);
  registerAddressRoutes(app, ctx);
  registerOpenApiRoute(app, routeSpecs);
}

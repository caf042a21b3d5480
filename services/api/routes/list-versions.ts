import type { FastifyInstance } from 'fastify';
import { TEST_LIST_VERSION } from '../../domain/index.ts';
import { toListVersionRef } from '../../registers/lists/active-index.ts';
import { authOf } from '../auth.ts';
import { listNotReady } from '../errors.ts';
import { ListVersionRefSchema } from '../schemas/list-version-ref.ts';
import { registerRoute } from './register.ts';
import type { RouteContext, RouteSpec } from './route-spec.ts';

export const getCurrentListVersionSpec: RouteSpec = {
  method: 'GET',
  url: '/v2/list-versions/current',
  operationId: 'getCurrentListVersion',
  summary: 'The list version that checks currently run against',
  description: 'Test keys always see the fixed test list version.',
  authenticated: true,
  success: { status: 200, description: 'The current list version', schema: ListVersionRefSchema, headers: ['Request-Id'] },
  errors: [401, 402, 500, 503],
};

export function registerListVersionRoutes(app: FastifyInstance, ctx: RouteContext): void {
  registerRoute(app, getCurrentListVersionSpec, [ctx.authenticate], async (request) => {
    if (authOf(request).mode === 'test') return TEST_LIST_VERSION;
    const active = ctx.activeIndex.current();
    if (!active) throw listNotReady();
    return toListVersionRef(active.version);
  });
}

import type { FastifyInstance } from 'fastify';
import { resolveAddressText } from '../../domain/index.ts';
import {
  ResolveAddressesRequestSchema,
  ResolveAddressesResponseSchema,
  type ResolveAddressesRequest,
} from '../schemas/addresses.ts';
import { registerRoute } from './register.ts';
import type { RouteContext, RouteSpec } from './route-spec.ts';

export const resolveAddressesSpec: RouteSpec = {
  method: 'POST',
  url: '/v2/addresses/resolve',
  operationId: 'resolveAddresses',
  summary: 'Parse and resolve free-text Danish addresses (not billed)',
  description:
    'Without an address register loaded the service parses and normalises only: confidence is `unresolved` and ' +
    '`ok` tells whether the text parsed (DECISIONS §13). Same answers for live and test keys.',
  authenticated: true,
  body: ResolveAddressesRequestSchema,
  success: {
    status: 200,
    description: 'One result per address, in input order',
    schema: ResolveAddressesResponseSchema,
    headers: ['Request-Id'],
  },
  errors: [400, 401, 402, 413, 422, 500],
};

export function registerAddressRoutes(app: FastifyInstance, ctx: RouteContext): void {
  registerRoute(app, resolveAddressesSpec, [ctx.authenticate], async (request) => {
    const { addresses } = request.body as ResolveAddressesRequest;
    return { results: addresses.map((text) => resolveAddressText(text)) };
  });
}

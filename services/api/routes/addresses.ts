import type { FastifyInstance } from 'fastify';
import { resolveAddressText, resolveWithRegister } from '../../domain/index.ts';
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
    'With the national address register loaded, each address is resolved the way DAWA\'s datavask does: `exact`, ' +
    '`corrected` (the street was the one closest street of the postal code) or `unresolved`, and a resolved address ' +
    'is answered in the register\'s spelling. Without a register the service parses and normalises only: confidence ' +
    'is `unresolved` and `ok` tells whether the text parsed (docs/decisions.md §13). Same answers for live and test keys.',
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
    const register = ctx.activeIndex.addressRegister?.() ?? null;
    return {
      results: addresses.map((text) => (register === null ? resolveAddressText(text) : resolveWithRegister(register, text).address)),
    };
  });
}

import type { FastifyInstance } from 'fastify';
import {
  checkPerson, decideCompany, findCompany, TEST_LIST_VERSION, TEST_REGISTER_SYNCED_AT, testModeCheck, testModeCompany,
  type CheckResult, type CompanyCheckResult, type PersonInput,
} from '../../domain/index.ts';
import type { CheckOptions, ListVersionRef } from '../../domain/types.ts';
import { toListVersionRef } from '../../registers/lists/active-index.ts';
import { listNotReady, registerNotReady } from '../errors.ts';
import { idempotencyKeyHeader } from '../idempotency.ts';
import {
  CreateCompanyChecksRequestSchema, CreateCompanyChecksResponseSchema,
  type CreateCompanyChecksRequest, type CreateCompanyChecksResponse,
} from '../schemas/companies.ts';
import { limitRate, requireAddon, requireApiAgreement } from './check-hooks.ts';
import { registerSyncCheck } from './sync-check.ts';
import { RATE_LIMIT_HEADERS, type RouteContext, type RouteSpec } from './route-spec.ts';

export const createCompanyChecksSpec: RouteSpec = {
  method: 'POST',
  url: '/v2/company-checks',
  operationId: 'createCompanyChecks',
  summary: 'Check up to 1000 companies against the company register',
  description:
    'A company with advertising protection (reklamebeskyttet) is blocked with company_protected; the owner of a sole ' +
    'proprietorship (ENK, or PMV with one owner) is checked against the list as a person and the company takes that ' +
    'status and reasons; other companies found are allowed; a company not found (or a name shared by several) is manual. ' +
    'Needs the company add-on (403 forbidden). Test keys: CVR 00000000-00000099 are protected, others allowed.',
  authenticated: true,
  requestHeaders: [idempotencyKeyHeader],
  body: CreateCompanyChecksRequestSchema,
  success: {
    status: 200,
    description: 'One result per company, in input order',
    schema: CreateCompanyChecksResponseSchema,
    headers: ['Request-Id', 'Idempotent-Replayed', ...RATE_LIMIT_HEADERS],
  },
  errors: [400, 401, 402, 403, 409, 413, 422, 429, 500, 503],
};

function checkCompanies(ctx: RouteContext, mode: 'live' | 'test', body: CreateCompanyChecksRequest, options: CheckOptions): CreateCompanyChecksResponse {
  if (mode === 'test') {
    // Test keys never read the live register or list (docs/decisions.md §3).
    const checkOwner = (owner: PersonInput) => testModeCheck(owner, options);
    return {
      list_version: TEST_LIST_VERSION,
      results: body.companies.map((input) => decideCompany(input, testModeCompany(input), TEST_REGISTER_SYNCED_AT, checkOwner)),
    };
  }
  const register = ctx.companyRegister?.current();
  if (!register) throw registerNotReady('company_register_not_ready');
  const list = ctx.activeIndex.current();
  let listVersion: ListVersionRef | null = list ? toListVersionRef(list.version) : null;
  const checkOwner = (owner: PersonInput): CheckResult => {
    // Only a sole proprietorship needs the list; without one active the request cannot be answered.
    if (!list) throw listNotReady();
    listVersion = toListVersionRef(list.version);
    return checkPerson(list.index, owner, options);
  };
  const syncedAt = register.version.created_at;
  const results: CompanyCheckResult[] = body.companies.map((input) =>
    decideCompany(input, findCompany(register.index, input), syncedAt, checkOwner));
  return { list_version: listVersion, results };
}

export function registerCompanyChecksRoutes(app: FastifyInstance, ctx: RouteContext): void {
  registerSyncCheck(app, ctx, {
    spec: createCompanyChecksSpec,
    hooks: [ctx.authenticate, requireApiAgreement, requireAddon('company'), limitRate(ctx)],
    usage: 'company_check',
    countOf: (body: CreateCompanyChecksRequest) => body.companies.length,
    check: (body, options, { mode }) => checkCompanies(ctx, mode, body, options),
  });
}

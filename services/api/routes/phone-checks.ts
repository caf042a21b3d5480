import type { FastifyInstance } from 'fastify';
import {
  checkPerson, normalisePhone, phoneCheckResult, TEST_LIST_VERSION, testModeCheck, testModeDirectoryEntry,
  type CheckResult, type DirectoryEntry,
} from '../../domain/index.ts';
import type { CheckOptions } from '../../domain/types.ts';
import { toListVersionRef } from '../../registers/lists/active-index.ts';
import { DirectoryUnavailableError } from '../../registers/phones/directory-port.ts';
import { listNotReady, registerNotReady } from '../errors.ts';
import { idempotencyKeyHeader } from '../idempotency.ts';
import {
  CreatePhoneChecksRequestSchema, CreatePhoneChecksResponseSchema,
  type CreatePhoneChecksRequest, type CreatePhoneChecksResponse,
} from '../schemas/phones.ts';
import { limitRate, requireAddon, requireApiAgreement } from './check-hooks.ts';
import { registerSyncCheck } from './sync-check.ts';
import { RATE_LIMIT_HEADERS, type RouteContext, type RouteSpec } from './route-spec.ts';
import { errorFields } from '../../platform/logger.ts';

export const createPhoneChecksSpec: RouteSpec = {
  method: 'POST',
  url: '/v2/phone-checks',
  operationId: 'createPhoneChecks',
  summary: 'Check up to 500 phone numbers: resolved through a directory, the person found checked against the list',
  description:
    'Numbers are read as E.164 (+45 when no country code). found: the person is checked like a PersonInput and ' +
    'phone_lookup names them; unlisted (secret number): manual, phone_unlisted; not_found (or not a phone number): ' +
    'manual, phone_not_found. Needs the phone add-on (403 forbidden). Test keys: numbers ending 0000 are not found, ' +
    '1111 unlisted, others found with a made-up person.',
  authenticated: true,
  requestHeaders: [idempotencyKeyHeader],
  body: CreatePhoneChecksRequestSchema,
  success: {
    status: 200,
    description: 'One result per phone, in input order',
    schema: CreatePhoneChecksResponseSchema,
    headers: ['Request-Id', 'Idempotent-Replayed', ...RATE_LIMIT_HEADERS],
  },
  errors: [400, 401, 402, 403, 409, 413, 422, 429, 500, 503],
};

async function checkPhones(ctx: RouteContext, mode: 'live' | 'test', body: CreatePhoneChecksRequest, options: CheckOptions): Promise<CreatePhoneChecksResponse> {
  if (mode === 'test') {
    const check = (person: Parameters<typeof testModeCheck>[0]): CheckResult => testModeCheck(person, options);
    return {
      list_version: TEST_LIST_VERSION,
      results: body.phones.map((p) => phoneCheckResult(p.id ?? null, testModeDirectoryEntry(p.phone), options, check)),
    };
  }
  const list = ctx.activeIndex.current();
  if (!list) throw listNotReady();
  if (!ctx.phoneDirectory) throw registerNotReady('phone_directory_not_ready');
  const numbers = body.phones.map((p) => normalisePhone(p.phone));
  let answers: Map<string, DirectoryEntry | null>;
  try {
    answers = await ctx.phoneDirectory.lookup(numbers.filter((n): n is string => n !== null));
  } catch (error) {
    if (!(error instanceof DirectoryUnavailableError)) throw error;
    ctx.logger.warn({ reason: error.reason, ...errorFields(error) }, 'phone_directory.unavailable');
    throw registerNotReady(error.reason === 'not_imported' ? 'phone_directory_not_ready' : 'phone_directory_unavailable');
  }
  const check = (person: Parameters<typeof checkPerson>[1]): CheckResult => checkPerson(list.index, person, options);
  return {
    list_version: toListVersionRef(list.version),
    results: body.phones.map((p, i) => {
      const number = numbers[i];
      return phoneCheckResult(p.id ?? null, number === null ? null : answers.get(number) ?? null, options, check);
    }),
  };
}

export function registerPhoneChecksRoutes(app: FastifyInstance, ctx: RouteContext): void {
  registerSyncCheck(app, ctx, {
    spec: createPhoneChecksSpec,
    hooks: [ctx.authenticate, requireApiAgreement, requireAddon('phone'), limitRate(ctx)],
    usage: 'phone_check',
    countOf: (body: CreatePhoneChecksRequest) => body.phones.length,
    check: (body, options, { mode }) => checkPhones(ctx, mode, body, options),
  });
}

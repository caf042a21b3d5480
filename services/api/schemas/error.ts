import { z } from 'zod';
import { named } from './registry.ts';

export const ErrorCodeSchema = z.enum([
  'invalid_request',
  'unauthorized',
  'payment_required',
  'forbidden',
  'not_found',
  'conflict',
  'gone',
  'rate_limited',
  'list_not_ready',
  'service_unavailable',
  'internal_error',
]);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

export const ValidationIssueSchema = named(
  'ValidationIssue',
  z.strictObject({
    path: z.string().describe('Where in the body, e.g. `people[3].last_name`; empty for the body itself'),
    message: z.string().describe('What is wrong, in the request locale; never echoes the value'),
  }),
);

export const ErrorSchema = named(
  'Error',
  z.strictObject({
    error: z.strictObject({
      code: ErrorCodeSchema,
      message: z.string().describe('Human-readable, in the request locale (Accept-Language da or en; default da)'),
      details: z
        .looseObject({
          issues: z.array(ValidationIssueSchema).optional(),
          reason: z.string().optional(),
        })
        .optional(),
      request_id: z.string().describe('Same as the Request-Id response header'),
    }),
  }),
  'Body of every error response (docs/decisions.md §5).',
);
export type ErrorBody = z.infer<typeof ErrorSchema>;

import type { ApiProblem, CheckJob, Locale } from './contract.ts';

/** A refused call: the API's own error, shown as it is given. */
export class ApiFailure extends Error {
  readonly problem: ApiProblem;
  constructor(problem: ApiProblem) {
    super(problem.message);
    this.problem = problem;
  }
}

export interface JobList {
  data: CheckJob[];
  has_more: boolean;
}

export interface Download {
  blob: Blob;
  filename: string;
}

/**
 * The API as the page uses it. Every call carries the key in the Authorization header (never in
 * a URL) and the page's language in Accept-Language, so errors arrive in that language.
 */
export function createApi(key: () => string | null, locale: () => Locale) {
  async function call(method: string, path: string, init: { json?: unknown; form?: FormData; keyOverride?: string } = {}) {
    const headers: Record<string, string> = { 'Accept-Language': locale() };
    const bearer = init.keyOverride ?? key();
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    let body: BodyInit | undefined;
    if (init.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(init.json);
    } else if (init.form) body = init.form;
    let response: Response;
    try {
      response = await fetch(path, { method, headers, body, cache: 'no-store', credentials: 'omit' });
    } catch {
      throw new ApiFailure({ status: 0, code: 'network', message: '', request_id: null });
    }
    if (response.ok) return response;
    throw new ApiFailure(await problemOf(response));
  }

  const json = async <T>(method: string, path: string, init?: Parameters<typeof call>[2]) =>
    (await (await call(method, path, init)).json()) as T;

  return {
    listJobs: (limit: number, keyOverride?: string) =>
      json<JobList>('GET', `/v2/check-jobs?limit=${limit}`, keyOverride ? { keyOverride } : {}),
    getJob: (id: string) => json<CheckJob>('GET', `/v2/check-jobs/${id}`),
    upload(file: File, columnMapping?: Record<string, unknown>) {
      const form = new FormData();
      if (columnMapping) form.append('column_mapping', JSON.stringify(columnMapping));
      form.append('file', file, file.name);
      return json<CheckJob>('POST', '/v2/check-jobs', { form });
    },
    start: (id: string, columnMapping: Record<string, unknown>) =>
      json<CheckJob>('POST', `/v2/check-jobs/${id}/start`, { json: { column_mapping: columnMapping } }),
    deleteJob: (id: string) => json<CheckJob>('DELETE', `/v2/check-jobs/${id}`),
    verifyCertificate: (token: string) =>
      json<{ valid: boolean; claims: { row_count: number; list_version: { id: string; published_on: string } } }>(
        'GET', `/v2/certificates/${encodeURIComponent(token)}`),
    async resultFile(id: string): Promise<Download> {
      const response = await call('GET', `/v2/check-jobs/${id}/file`);
      const disposition = response.headers.get('Content-Disposition') ?? '';
      const filename = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1] ?? /filename="([^"]+)"/i.exec(disposition)?.[1] ?? 'result';
      return { blob: await response.blob(), filename: decodeURIComponent(filename) };
    },
  };
}

export type Api = ReturnType<typeof createApi>;

async function problemOf(response: Response): Promise<ApiProblem> {
  try {
    const body = (await response.json()) as { error?: Omit<ApiProblem, 'status'> };
    if (body.error) return { status: response.status, ...body.error };
  } catch {
    // not the API's error body (a proxy's page): fall through
  }
  return { status: response.status, code: 'unknown', message: '', request_id: response.headers.get('Request-Id') };
}

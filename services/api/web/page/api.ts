import type { ApiKeyInfo, ApiProblem, AuditItem, CheckJob, CheckResult, ConnectorInfo, DropFolderInfo, EmailSender, Monitor, SavedColumnMapping, Invitation, Locale, PortalUser, Role, SessionInfo, Settings } from './contract.ts';

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
 * The API as the page uses it (docs/people.md "Sessions"): the session cookie goes with every
 * call (HttpOnly: the page never sees it), every call that changes something carries the
 * session's CSRF token, and every call the page's language in Accept-Language, so errors arrive
 * in that language.
 */
export function createApi(csrf: () => string | null, locale: () => Locale) {
  async function call(method: string, path: string, init: { json?: unknown; form?: FormData } = {}) {
    const headers: Record<string, string> = { 'Accept-Language': locale() };
    const token = csrf();
    if (method !== 'GET' && token) headers['X-CSRF-Token'] = token;
    let body: BodyInit | undefined;
    if (init.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(init.json);
    } else if (init.form) body = init.form;
    let response: Response;
    try {
      response = await fetch(path, { method, headers, body, cache: 'no-store', credentials: 'same-origin' });
    } catch {
      throw new ApiFailure({ status: 0, code: 'network', message: '', request_id: null });
    }
    if (response.ok) return response;
    throw new ApiFailure(await problemOf(response));
  }

  const json = async <T>(method: string, path: string, init?: Parameters<typeof call>[2]) =>
    (await (await call(method, path, init)).json()) as T;

  /** A file the API answers, named as its Content-Disposition names it. */
  async function download(path: string): Promise<Download> {
    const response = await call('GET', path);
    const disposition = response.headers.get('Content-Disposition') ?? '';
    const filename = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1] ?? /filename="([^"]+)"/i.exec(disposition)?.[1] ?? 'result';
    return { blob: await response.blob(), filename: decodeURIComponent(filename) };
  }

  return {
    /** Drafts replaced by a preview update or discarded are left out: they were never a check. */
    listJobs: (limit: number, filter: Record<string, string> = {}) =>
      json<JobList>('GET', `/v2/check-jobs?${new URLSearchParams({ limit: String(limit), hide_discarded_drafts: 'true', ...filter })}`),
    session: () => json<SessionInfo>('GET', '/v2/session'),
    signIn: (input: { email: string; password: string; code: string; mode: 'live' | 'test' }) => json<SessionInfo>('POST', '/v2/session', { json: input }),
    signOut: () => json<unknown>('DELETE', '/v2/session'),
    signOutEverywhere: () => json<unknown>('POST', '/v2/session/sign-out-everywhere'),
    invitation: (token: string) => json<Invitation>('GET', `/v2/invitations/${encodeURIComponent(token)}`),
    acceptInvitation: (token: string, input: { password: string; code: string }) =>
      json<PortalUser>('POST', `/v2/invitations/${encodeURIComponent(token)}`, { json: input }),
    recoveryCodes: () => json<{ remaining: number }>('GET', '/v2/session/recovery-codes'),
    newRecoveryCodes: () => json<{ codes?: string[]; remaining: number }>('POST', '/v2/session/recovery-codes'),
    listUsers: () => json<{ data: PortalUser[] }>('GET', '/v2/users'),
    inviteUser: (input: { email: string; role: Role }) => json<PortalUser>('POST', '/v2/users', { json: input }),
    setRole: (id: string, role: Role) => json<PortalUser>('POST', `/v2/users/${id}/role`, { json: { role } }),
    removeUser: (id: string) => json<PortalUser>('DELETE', `/v2/users/${id}`),
    listKeys: () => json<{ data: ApiKeyInfo[] }>('GET', '/v2/api-keys'),
    createKey: (input: { label: string; mode: 'live' | 'test' }) => json<{ key: string; api_key: ApiKeyInfo }>('POST', '/v2/api-keys', { json: input }),
    revokeKey: (id: string) => json<ApiKeyInfo>('DELETE', `/v2/api-keys/${id}`),
    auditLog: (limit: number) => json<{ data: AuditItem[]; has_more: boolean }>('GET', `/v2/audit-log?limit=${limit}`),
    settings: () => json<Settings>('GET', '/v2/settings'),
    saveSettings: (input: Partial<Settings>) => json<Settings>('PUT', '/v2/settings', { json: input }),
    listSenders: () => json<{ data: EmailSender[] }>('GET', '/v2/email-senders'),
    addSender: (input: { address: string; locale: 'da' | 'en' | null }) => json<EmailSender>('POST', '/v2/email-senders', { json: input }),
    removeSender: (address: string) => json<unknown>('DELETE', `/v2/email-senders/${encodeURIComponent(address)}`),
    listDropFolders: () => json<{ data: DropFolderInfo[] }>('GET', '/v2/drop-folders'),
    addDropFolder: (input: {
      host: string; port: number; username: string; path: string; host_public_key: string; password?: string; private_key?: string; locale: 'da' | 'en';
    }) => json<DropFolderInfo>('POST', '/v2/drop-folders', { json: input }),
    addConnector: (input: { url: string; interval_minutes: number; auth_header_name?: string; auth_header_value?: string; locale: 'da' | 'en' }) =>
      json<ConnectorInfo>('POST', '/v2/connectors', { json: input }),
    removeDropFolder: (id: string) => json<unknown>('DELETE', `/v2/drop-folders/${id}`),
    listConnectors: () => json<{ data: ConnectorInfo[] }>('GET', '/v2/connectors'),
    removeConnector: (id: string) => json<unknown>('DELETE', `/v2/connectors/${id}`),
    listMappings: (jobId?: string) =>
      json<{ data: SavedColumnMapping[] }>('GET', `/v2/column-mappings${jobId ? `?job_id=${encodeURIComponent(jobId)}` : ''}`),
    saveMapping: (input: { name: string; job_id: string; column_mapping: Record<string, unknown>; channels?: string[] }) =>
      json<SavedColumnMapping>('POST', '/v2/column-mappings', { json: input }),
    removeMapping: (id: string) => json<unknown>('DELETE', `/v2/column-mappings/${id}`),
    getJob: (id: string) => json<CheckJob>('GET', `/v2/check-jobs/${id}`),
    upload(file: File, columnMapping?: Record<string, unknown>) {
      const form = new FormData();
      if (columnMapping) form.append('column_mapping', JSON.stringify(columnMapping));
      form.append('file', file, file.name);
      return json<CheckJob>('POST', '/v2/check-jobs', { form });
    },
    start: (id: string, columnMapping: Record<string, unknown>, confirmWarnings = false) =>
      json<CheckJob>('POST', `/v2/check-jobs/${id}/start`, { json: { column_mapping: columnMapping, ...(confirmWarnings ? { confirm_warnings: true } : {}) } }),
    /** The same draft checked again with another mapping: new columns, preview and warnings; nothing starts. */
    preview: (id: string, columnMapping: Record<string, unknown>) =>
      json<CheckJob>('POST', `/v2/check-jobs/${id}/preview`, { json: { column_mapping: columnMapping } }),
    listMonitors: () => json<{ monitors: Monitor[]; next_cursor: string | null }>('GET', '/v2/monitors?limit=1000'),
    getMonitor: (id: string) => json<Monitor>('GET', `/v2/monitors/${id}`),
    /** A monitor from a file, read with the mapping the person chose on its draft. */
    createMonitor(file: File, columnMapping: Record<string, unknown>, name: string) {
      const form = new FormData();
      if (name) form.append('external_ref', name);
      form.append('column_mapping', JSON.stringify(columnMapping));
      form.append('file', file, file.name);
      return json<Monitor>('POST', '/v2/monitors', { form });
    },
    deleteMonitor: (id: string) => call('DELETE', `/v2/monitors/${id}`).then(() => undefined),
    /** A re-check's change report: the results with a change, as the API pages them. */
    changedResults: (jobId: string, cursor: string | null) =>
      json<{ results: CheckResult[]; next_cursor: string | null }>('GET', `/v2/check-jobs/${jobId}/results?change=any&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
    deleteJob: (id: string) => json<CheckJob>('DELETE', `/v2/check-jobs/${id}`),
    verifyCertificate: (token: string) =>
      json<{ valid: boolean; claims: { row_count: number; list_version: { id: string; published_on: string } } }>(
        'GET', `/v2/certificates/${encodeURIComponent(token)}`),
    /** The result file; `rows: 'blocked'` or `'allowed'` gives only those rows (docs/files.md "Which rows"). */
    resultFile: (id: string, query: Record<string, string> = {}) => {
      const search = new URLSearchParams(query).toString();
      return download(`/v2/check-jobs/${id}/file${search ? `?${search}` : ''}`);
    },
    /** The certificate as a PDF in the page's language (docs/privacy-and-proof.md "Certificates"). */
    certificatePdf: (id: string) => download(`/v2/check-jobs/${id}/certificate.pdf`),
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

import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { CheckJobOptionsSchema, ColumnMappingSchema } from '../api/schemas/check-job.ts';
import type { SecretBox } from '../ingest/inbound/secrets.ts';
import type { AccountStore } from '../platform/store/accounts-port.ts';
import type { Connector, ConnectorStatus, ConnectorStore, ConnectorTarget } from '../platform/store/connectors-port.ts';
import type { MonitorStore } from '../platform/store/monitors-port.ts';
import { CallbackUrlError, checkCallbackUrl } from '../platform/outbound-http/index.ts';
import { jsonFlag, optional, required, type Flags } from './flags.ts';
import { AdminInputError, AdminNotFoundError, existingOrganisation } from './organisations.ts';

/**
 * Admin commands for connectors (docs/decisions.md §16, docs/connectors.md). Decision: connectors are
 * managed here, like SFTP drop folders, not over the public API: adding one stores a credential
 * of the customer's system, which an operator sets up with the customer. The URL must pass the
 * callback address rules now (and again before every pull); the auth header is read from a file
 * (never a command-line argument: shell history), sealed with INBOUND_SECRET_KEY and never printed.
 */
export interface ConnectorAdminDeps {
  accounts: AccountStore;
  connectors: ConnectorStore;
  secrets: () => SecretBox;
  /** CALLBACK_ALLOW_HOSTS: hosts exempt from the address check (test servers on loopback). */
  allowHosts: readonly string[];
  /** CONNECTOR_MIN_INTERVAL_SECONDS. */
  minIntervalSeconds: number;
  /** To check that a `--monitor` target is a live monitor of the organisation. */
  monitors?: Pick<MonitorStore, 'getMonitor'>;
}


export { CONNECTORS_USAGE } from './connectors-usage.ts';

export async function runConnectorCommand(
  deps: ConnectorAdminDeps, command: string, args: string[], flags: Flags, now: Date,
): Promise<string[] | null> {
  const json = flags.json === true;
  switch (command) {
    case 'connectors add': {
      const orgId = required(flags, 'org');
      await existingOrganisation(deps.accounts, orgId);
      const url = await checkedUrl(required(flags, 'url'), deps.allowHosts);
      const every = Number(required(flags, 'every'));
      if (!Number.isInteger(every) || every < deps.minIntervalSeconds || every > 366 * 86_400) {
        throw new AdminInputError(`--every must be whole seconds, at least ${deps.minIntervalSeconds} (CONNECTOR_MIN_INTERVAL_SECONDS) and at most a year`);
      }
      const id = randomUUID();
      const header = await authHeader(optional(flags, 'auth-header-file'));
      const monitorId = optional(flags, 'monitor');
      if (monitorId !== undefined && deps.monitors && !(await deps.monitors.getMonitor({ org_id: orgId, mode: 'live' }, monitorId))) {
        throw new AdminNotFoundError(`monitor ${monitorId} is not a live monitor of organisation ${orgId}`);
      }
      const target: ConnectorTarget = monitorId ? { kind: 'monitor', monitor_id: monitorId } : { kind: 'job' };
      const connector: Connector = {
        id, org_id: orgId, url, interval_seconds: every, target,
        auth_header_name: header?.name ?? null,
        auth_header_sealed: header ? deps.secrets().seal(header.value, id) : null,
        column_mapping: jsonFlag(flags, 'mapping', (v) => ColumnMappingSchema.parse(v)) ?? null,
        options: jsonFlag(flags, 'options', (v) => CheckJobOptionsSchema.parse(v)) ?? {},
        locale: locale(optional(flags, 'locale') ?? 'da'),
        created_at: now.toISOString(), removed_at: null,
      };
      await deps.connectors.createConnector(connector);
      return json ? [JSON.stringify(publicConnector(connector, null))] : [`connector added: ${id}`, formatConnector(connector, null)];
    }
    case 'connectors list': {
      const connectors = await deps.connectors.listConnectors(optional(flags, 'org'));
      const withStatus = await Promise.all(connectors.map(async (c) => ({ c, s: await deps.connectors.getStatus(c.id) })));
      if (json) return [JSON.stringify(withStatus.map(({ c, s }) => publicConnector(c, s)))];
      return withStatus.length === 0 ? ['no connectors'] : withStatus.map(({ c, s }) => formatConnector(c, s));
    }
    case 'connectors remove': {
      const id = args[0];
      if (!id) throw new AdminInputError('missing connector id');
      if (!(await deps.connectors.removeConnector(id, now.toISOString()))) throw new AdminNotFoundError(`connector ${id} does not exist`);
      return json ? [JSON.stringify({ id, removed: true })] : [`connector ${id} removed`];
    }
    default:
      return null;
  }
}

async function checkedUrl(text: string, allowHosts: readonly string[]): Promise<string> {
  try {
    return (await checkCallbackUrl(text, { allowHosts })).url.toString();
  } catch (error) {
    if (error instanceof CallbackUrlError) {
      const why: Record<string, string> = {
        invalid_url: 'is not a URL', not_https: 'must be https', credentials_in_url: 'must not hold a user or password (use --auth-header-file)',
        unresolvable: 'names a host that does not resolve', blocked_address: 'resolves to a loopback, private, link-local or metadata address',
      };
      throw new AdminInputError(`--url ${why[error.reason] ?? 'is refused'}`);
    }
    throw error;
  }
}

async function authHeader(path: string | undefined): Promise<{ name: string; value: string } | null> {
  if (path === undefined) return null;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new AdminInputError(`cannot read --auth-header-file ${path}`);
  }
  const line = text.replace(/\r?\n$/, '');
  const match = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+):[ \t]*(.+)$/.exec(line);
  // One header line only: a CR or LF in the value would smuggle in another header.
  if (!match || /[\r\n\0]/.test(match[2])) throw new AdminInputError('--auth-header-file must hold exactly one line "Name: value"');
  return { name: match[1], value: match[2].trim() };
}

/** The connector as shown: never the sealed header, and the URL without its query (it may hold a token). */
function publicConnector(c: Connector, s: ConnectorStatus | null) {
  const { auth_header_sealed: _sealed, ...rest } = c;
  return {
    ...rest, url: withoutQuery(c.url), auth_header: c.auth_header_name ? `${c.auth_header_name}: (stored encrypted)` : null,
    last_run_at: s?.last_run_at ?? null, last_ok_at: s?.last_ok_at ?? null, last_job_id: s?.last_job_id ?? null,
    last_error: s?.last_error ?? null, last_error_at: s?.last_error_at ?? null, failures: s?.failures ?? 0,
  };
}

function formatConnector(c: Connector, s: ConnectorStatus | null): string {
  const state = !s ? 'not run yet'
    : s.failures > 0 ? `FAILING (${s.failures}x) since ${s.last_error_at}: ${s.last_error}${s.last_ok_at ? `; last success ${s.last_ok_at}` : ''}`
    : `ok ${s.last_ok_at}${s.last_job_id ? ` job ${s.last_job_id}` : ''}${s.last_error ? ` (last error ${s.last_error_at}: ${s.last_error})` : ''}`;
  const target = c.target.kind === 'job' ? 'jobs' : `monitor ${c.target.monitor_id}`;
  return `${c.id}  org=${c.org_id}  ${withoutQuery(c.url)}  every ${c.interval_seconds}s  → ${target}  ` +
    `auth=${c.auth_header_name ?? 'none'}  locale=${c.locale}  mapping=${c.column_mapping ? 'saved' : 'guessed'}\n    ${state}`;
}

function withoutQuery(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}${parsed.search ? '?…' : ''}`;
}

function locale(text: string): 'da' | 'en' {
  if (text !== 'da' && text !== 'en') throw new AdminInputError('--locale must be da or en');
  return text;
}

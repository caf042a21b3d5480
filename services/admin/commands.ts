import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Logger } from '../platform/logger.ts';
import type { AccountStore, ApiKeyRecord, Organisation } from '../platform/store/accounts-port.ts';
import type { ListStore, ListVersion } from '../platform/store/lists-port.ts';
import type { KeyRing } from '../platform/store/keyring-port.ts';
import type { JobStore } from '../platform/store/jobs-port.ts';
import type { UsageStore } from '../platform/store/usage-port.ts';
import type { PipelineEvents } from '../pipeline/events.ts';
import { recordPayment } from '../api/billing/payments.ts';
import { createCertificateKeys } from '../platform/keys/certificate-keys.ts';
import { activateListVersion, importListVersion } from '../registers/lists/import.ts';
import { INBOUND_USAGE, runInboundCommand, type InboundAdminDeps } from './inbound.ts';
import { CONNECTORS_USAGE } from './connectors-usage.ts';
import type { ConnectorAdminDeps } from './connectors.ts';
import { issueApiKey } from './keys.ts';
import type { PeopleService } from '../api/people/people-service.ts';
import type { AddressStore } from '../platform/store/addresses-port.ts';
import { ADDRESSES_USAGE, runAddressCommand } from './addresses.ts';
import type { RegisterStore } from '../platform/store/registers-port.ts';
import { REGISTER_USAGE, runRegisterCommand } from './registers.ts';
import {
  AdminInputError,
  AdminNotFoundError,
  createOrganisation,
  existingOrganisation,
  updateOrganisation,
  type OrganisationPatch,
} from './organisations.ts';

/**
 * The admin tool's commands, apart from argument parsing and process exit (cli.ts), so they can
 * be called with any stores. Each returns the lines to print.
 */
export interface AdminDeps {
  accounts: AccountStore;
  lists: ListStore;
  /** The service's own keys (certificate signing keys). */
  keys: KeyRing;
  /** The job store and the event log, for `payments record` only. */
  jobs?: JobStore;
  events?: Pick<PipelineEvents, 'publish'>;
  /** Billable usage (the usage command). */
  usage?: UsageStore;
  /** Address register versions; the addresses commands need it. */
  addresses?: AddressStore;
  /** Company register and phone directory versions (the companies and phones commands). */
  registers?: RegisterStore;
  logger: Logger;
  now?: () => Date;
  /** Drop folders and email senders (services/admin/inbound.ts). */
  inbound?: Omit<InboundAdminDeps, 'accounts'>;
  /** The portal's people (docs/people.md): `users invite` sends the first admin's invitation. */
  people?: PeopleService;
  /** Connectors (services/admin/connectors.ts). */
  connectors?: Omit<ConnectorAdminDeps, 'accounts'>;
}

export type Flags = Record<string, string | boolean | undefined>;

export const USAGE = `Usage: npm run admin -- <command> [options]

Organisations
  orgs create --name NAME [--stop-level 1..5] [--plan annual|pay_per_list]
              [--api-agreement] [--retention-days 1..90] [--addons phone,company]
  orgs list
  orgs update ID [--name NAME] [--stop-level N] [--plan P] [--api-agreement|--no-api-agreement]
              [--retention-days N] [--addons phone,company|none]
  orgs suspend ID | orgs unsuspend ID
  orgs addon ID grant|revoke company|phone

API keys (the key is printed once; only its SHA-256 is stored)
  keys create --org ID --mode live|test
  keys list --org ID
  keys revoke KEY_ID

Portal users (an invitation e-mail with a link; the person sets a password and a TOTP app)
  users invite --org ID --email ADDRESS [--role admin|member] [--locale da|en]
  users list --org ID

List versions
  lists import --format cpr|csv --file PATH [--source cpr|customer] [--org ID]
               [--published-on YYYY-MM-DD] [--max-skipped-lines N] [--activate]
  lists activate VERSION_ID
  lists list

${ADDRESSES_USAGE}

Payments and usage (docs/decisions.md §8)
  payments record --job JOB_ID   the job's price was paid: it leaves awaiting_payment
  usage --month YYYY-MM [--org ID]   live checks and live job rows per organisation (never test keys)

Certificate keys (stored keys; CERTIFICATE_KEYS, when set, takes precedence for signing)
  certificate-keys rotate     a new signing key; certificates of older keys keep verifying
  certificate-keys list       kid and creation time of every stored key

${REGISTER_USAGE}

${INBOUND_USAGE}

${CONNECTORS_USAGE}

Options: --json prints machine-readable JSON.
Works on the stores the services use: the database in DATA_DIR (default ./data), or ClickHouse
(CLICKHOUSE_URL, CLICKHOUSE_DATABASE, ...) when KAFKA_BROKERS and CLICKHOUSE_URL are set.`;

export async function runAdminCommand(deps: AdminDeps, group: string, action: string | undefined, args: string[], flags: Flags): Promise<string[]> {
  const now = deps.now ?? (() => new Date());
  const json = flags.json === true;
  if (group === 'addresses') {
    if (!deps.addresses) throw new AdminInputError('the address store is not open');
    return runAddressCommand({ addresses: deps.addresses, logger: deps.logger, now }, action, args, flags);
  }
  switch (`${group} ${action ?? ''}`.trim()) {
    case 'orgs create': {
      const org = await createOrganisation(deps.accounts, {
        name: requireString(flags, 'name'),
        stop_level: optionalInt(flags, 'stop-level'),
        plan: optionalString(flags, 'plan') as Organisation['plan'] | undefined,
        api_agreement: optionalBool(flags, 'api-agreement'),
        retention_days: optionalInt(flags, 'retention-days'),
        addons: optionalAddons(flags),
      }, now());
      return json ? [JSON.stringify(org)] : [`organisation created: ${org.id}`, formatOrg(org)];
    }
    case 'orgs list': {
      const orgs = await deps.accounts.listOrganisations();
      if (json) return [JSON.stringify(orgs)];
      return orgs.length === 0 ? ['no organisations'] : orgs.map(formatOrg);
    }
    case 'orgs update':
    case 'orgs suspend':
    case 'orgs unsuspend': {
      const id = requireArg(args, 'organisation id');
      const patch: OrganisationPatch =
        action === 'suspend' ? { suspended: true }
        : action === 'unsuspend' ? { suspended: false }
        : {
            name: optionalString(flags, 'name'),
            stop_level: optionalInt(flags, 'stop-level'),
            plan: optionalString(flags, 'plan') as Organisation['plan'] | undefined,
            api_agreement: optionalBool(flags, 'api-agreement'),
            retention_days: optionalInt(flags, 'retention-days'),
            addons: optionalAddons(flags),
          };
      const org = await updateOrganisation(deps.accounts, id, patch);
      return json ? [JSON.stringify(org)] : [formatOrg(org)];
    }
    case 'orgs addon': {
      const [id, verb, addon] = args;
      if (!id || (verb !== 'grant' && verb !== 'revoke') || (addon !== 'company' && addon !== 'phone')) {
        throw new AdminInputError('usage: orgs addon ID grant|revoke company|phone');
      }
      const current = await existingOrganisation(deps.accounts, id);
      const addons: Organisation['addons'] = verb === 'grant' ? [...new Set([...current.addons, addon] as const)] : current.addons.filter((a) => a !== addon);
      const org = await updateOrganisation(deps.accounts, id, { addons });
      return json ? [JSON.stringify(org)] : [formatOrg(org)];
    }
    case 'companies import':
    case 'companies activate':
    case 'companies list':
    case 'phones import':
    case 'phones activate':
    case 'phones list': {
      if (!deps.registers) throw new AdminInputError('no register store is open');
      return runRegisterCommand({ registers: deps.registers, logger: deps.logger, now }, group as 'companies' | 'phones', action, args, {
        file: optionalString(flags, 'file'),
        publishedOn: optionalString(flags, 'published-on'),
        maxSkipped: optionalInt(flags, 'max-skipped'),
        activate: flags.activate === true,
        json,
      });
    }
    case 'keys create': {
      const mode = requireString(flags, 'mode');
      if (mode !== 'live' && mode !== 'test') throw new AdminInputError('--mode must be live or test');
      const { key, record } = await issueApiKey(deps.accounts, requireString(flags, 'org'), mode, now());
      if (json) return [JSON.stringify({ key, ...withoutHash(record) })];
      return [
        `key created: ${record.id} (${record.mode}) for organisation ${record.org_id}`,
        `  ${key}`,
        'This is the only time the key is shown; store it now. Only its SHA-256 is kept.',
      ];
    }
    case 'users invite': {
      if (!deps.people) throw new AdminInputError('users commands need the people store');
      const orgId = requireString(flags, 'org');
      const org = await existingOrganisation(deps.accounts, orgId);
      const role = optionalString(flags, 'role') ?? 'admin';
      if (role !== 'admin' && role !== 'member') throw new AdminInputError('--role must be admin or member');
      const locale = optionalString(flags, 'locale') ?? 'da';
      if (locale !== 'da' && locale !== 'en') throw new AdminInputError('--locale must be da or en');
      const email = requireString(flags, 'email');
      if (!/^[^\s@<>]+@[^\s@<>]+$/.test(email)) throw new AdminInputError('--email must be an e-mail address');
      const user = await deps.people.invite(null, { org, email, role, locale });
      if (json) return [JSON.stringify({ id: user.id, org_id: user.org_id, role: user.role, status: user.status })];
      return [`user ${user.id} invited (${user.role}) to organisation ${user.org_id}; the link was e-mailed`];
    }
    case 'users list': {
      if (!deps.people) throw new AdminInputError('users commands need the people store');
      const users = await deps.people.listUsers(requireString(flags, 'org'));
      if (json) return [JSON.stringify(users.map((u) => ({ id: u.id, email: u.email, role: u.role, status: u.status, created_at: u.created_at })))];
      return users.length === 0 ? ['no users'] : users.map((u) => `${u.id}  ${u.role}  ${u.status}  ${u.email}`);
    }
    case 'keys list': {
      const orgId = requireString(flags, 'org');
      await existingOrganisation(deps.accounts, orgId);
      const keys = await deps.accounts.listKeys(orgId);
      if (json) return [JSON.stringify(keys.map(withoutHash))];
      return keys.length === 0 ? ['no keys'] : keys.map(formatKey);
    }
    case 'keys revoke': {
      const id = requireArg(args, 'key id');
      if (!(await deps.accounts.revokeKey(id, now().toISOString()))) throw new AdminNotFoundError(`key ${id} does not exist`);
      return json ? [JSON.stringify({ id, revoked: true })] : [`key ${id} revoked`];
    }
    case 'lists import': {
      const format = requireString(flags, 'format');
      if (format !== 'cpr' && format !== 'csv') throw new AdminInputError('--format must be cpr or csv');
      const source = optionalString(flags, 'source') ?? (flags.org ? 'customer' : 'cpr');
      if (source !== 'cpr' && source !== 'customer') throw new AdminInputError('--source must be cpr or customer');
      const file = requireString(flags, 'file');
      await access(file).catch(() => { throw new AdminInputError(`cannot read --file ${file}`); });
      const orgId = optionalString(flags, 'org');
      if (source === 'customer' && !orgId) throw new AdminInputError('--source customer needs --org ID');
      if (source === 'cpr' && orgId) throw new AdminInputError('the national (cpr) list belongs to no organisation: drop --org or use --source customer');
      if (orgId) await existingOrganisation(deps.accounts, orgId);
      const { version, skippedLines } = await importListVersion({ listStore: deps.lists, logger: deps.logger, now }, {
        source, format, orgId,
        chunks: createReadStream(file),
        publishedOn: optionalString(flags, 'published-on'),
        maxSkippedLines: optionalInt(flags, 'max-skipped-lines'),
      });
      const final = flags.activate === true ? await activateListVersion({ listStore: deps.lists, logger: deps.logger, now }, version.id) : version;
      if (json) return [JSON.stringify({ ...final, skipped_lines: skippedLines })];
      return [
        `list version imported: ${final.id} (${final.entry_count} entries, ${skippedLines} malformed lines skipped)`,
        final.activated_at ? 'activated' : `not active yet: npm run admin -- lists activate ${final.id}`,
      ];
    }
    case 'lists activate': {
      const version = await activateListVersion({ listStore: deps.lists, logger: deps.logger, now }, requireArg(args, 'list version id'));
      return json ? [JSON.stringify(version)] : [`list version ${version.id} activated`, formatVersion(version, true)];
    }
    case 'payments record': {
      const jobId = requireString(flags, 'job');
      if (!deps.events || !deps.jobs) throw new Error('payments need the job store and the event log');
      const outcome = await recordPayment({ jobs: deps.jobs, events: deps.events, now }, { jobId });
      if (outcome !== 'recorded' && outcome !== 'already_paid') throw new Error(`payment not recorded: ${outcome.replaceAll('_', ' ')}`);
      return json ? [JSON.stringify({ job_id: jobId, outcome })] : [`payment ${outcome.replaceAll('_', ' ')}: ${jobId}`];
    }
    case 'usage': {
      const month = requireString(flags, 'month');
      if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new AdminInputError('--month must be YYYY-MM');
      if (!deps.usage) throw new Error('usage needs the usage store');
      const org = optionalString(flags, 'org');
      const totals = (await deps.usage.monthly(month)).filter((t) => org === undefined || t.org_id === org);
      if (json) return [JSON.stringify(totals)];
      if (totals.length === 0) return [`no usage in ${month}`];
      return totals.map((t) => `${t.org_id}  ${t.kind}  ${t.count} (${t.entries} ${t.kind === 'job_row' ? 'jobs' : 'requests'})`);
    }
    case 'certificate-keys rotate': {
      const kid = await createCertificateKeys({ keyring: deps.keys, now }).rotate();
      return json ? [JSON.stringify({ kid })] : [`certificate key added: ${kid} (signs from now on)`];
    }
    case 'certificate-keys list': {
      const keys = (await deps.keys.listKeys('certificate')).map((k) => ({ kid: k.kid, created_at: k.created_at }));
      if (json) return [JSON.stringify(keys)];
      return keys.length === 0 ? ['no stored certificate keys'] : keys.map((k, i) => `${k.kid}  ${k.created_at}${i === 0 ? '  (signs)' : ''}`);
    }
    case 'lists list': {
      const versions = await deps.lists.listListVersions();
      const activeIds = new Set<string>();
      for (const v of versions) {
        const active = await deps.lists.getActiveListVersion(v.source, v.org_id);
        if (active) activeIds.add(active.id);
      }
      if (json) return [JSON.stringify(versions.map((v) => ({ ...v, active: activeIds.has(v.id) })))];
      return versions.length === 0 ? ['no list versions'] : versions.map((v) => formatVersion(v, activeIds.has(v.id)));
    }
    default: {
      const command = `${group} ${action ?? ''}`.trim();
      const lines = deps.inbound ? await runInboundCommand({ ...deps.inbound, accounts: deps.accounts }, command, args, flags, now()) : null;
      if (lines) return lines;
      // Loaded on demand: the URL guard (DNS, address checks) costs every other admin command start-up time.
      const connectorLines = deps.connectors && group === 'connectors'
        ? await (await import('./connectors.ts')).runConnectorCommand({ ...deps.connectors, accounts: deps.accounts }, command, args, flags, now())
        : null;
      if (connectorLines) return connectorLines;
      throw new AdminInputError(`unknown command: ${[group, action].filter(Boolean).join(' ') || '(none)'}`);
    }
  }
}

function withoutHash(record: ApiKeyRecord): Omit<ApiKeyRecord, 'key_hash'> {
  const { key_hash: _hash, ...rest } = record;
  return rest;
}

function formatOrg(o: Organisation): string {
  return `${o.id}  ${JSON.stringify(o.name)}  plan=${o.plan} stop_level=${o.stop_level} api_agreement=${o.api_agreement} ` +
    `retention_days=${o.retention_days} addons=${o.addons.join(',') || 'none'}${o.suspended ? '  SUSPENDED' : ''}`;
}

function formatKey(k: ApiKeyRecord): string {
  return `${k.id}  ${k.prefix}…  ${k.mode}  created ${k.created_at}  ${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}`;
}

function formatVersion(v: ListVersion, active: boolean): string {
  const owner = v.org_id ? ` org=${v.org_id}` : '';
  return `${v.id}  ${v.source}${owner}  published ${v.published_on}  ${v.entry_count} entries  ${active ? `ACTIVE since ${v.activated_at}` : 'inactive'}`;
}

function requireArg(args: string[], what: string): string {
  const value = args[0];
  if (!value) throw new AdminInputError(`missing ${what}`);
  return value;
}

function optionalString(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new AdminInputError(`--${name} needs a value`);
  return value;
}

function requireString(flags: Flags, name: string): string {
  const value = optionalString(flags, name);
  if (value === undefined) throw new AdminInputError(`missing --${name}`);
  return value;
}

function optionalInt(flags: Flags, name: string): number | undefined {
  const value = optionalString(flags, name);
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw new AdminInputError(`--${name} must be a whole number`);
  return Number(value);
}

/** `--api-agreement` sets it, `--no-api-agreement` clears it. */
function optionalBool(flags: Flags, name: string): boolean | undefined {
  const value = flags[name];
  if (value === undefined || typeof value === 'boolean') return value;
  throw new AdminInputError(`--${name} takes no value (use --no-${name} to turn it off)`);
}

function optionalAddons(flags: Flags): Array<'phone' | 'company'> | undefined {
  const value = optionalString(flags, 'addons');
  if (value === undefined) return undefined;
  if (value === 'none') return [];
  const addons = value.split(',').map((a) => a.trim()).filter(Boolean);
  for (const a of addons) if (a !== 'phone' && a !== 'company') throw new AdminInputError(`unknown add-on ${JSON.stringify(a)}: use phone, company or none`);
  return addons as Array<'phone' | 'company'>;
}

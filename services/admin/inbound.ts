import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { AccountStore } from '../platform/store/accounts-port.ts';
import type { DropFolder, DropFolderStatus, InboundStore } from '../platform/store/inbound-port.ts';
import type { MonitorStore } from '../platform/store/monitors-port.ts';
import { ColumnMappingSchema, CheckJobOptionsSchema } from '../api/schemas/check-job.ts';
import type { SecretBox } from '../ingest/inbound/secrets.ts';
import { fingerprintOfPublicKeyLine } from '../ingest/sftp/host-key.ts';
import { jsonFlag, optional, required, type Flags } from './flags.ts';
import { AdminInputError, AdminNotFoundError, existingOrganisation } from './organisations.ts';

/**
 * Admin commands for the inbound channels (docs/decisions.md §15): SFTP drop folders and the email sender
 * allow-list. The SFTP secret (private key or password) is read from a file, sealed with
 * INBOUND_SECRET_KEY before it is stored, and never printed.
 */
export interface InboundAdminDeps {
  accounts: AccountStore;
  inbound: InboundStore;
  /** Needed only to add a drop folder (sealing its secret). */
  secrets: () => SecretBox;
  /** To check that a `--monitor` target is a live monitor of the organisation (required for `--monitor`). */
  monitors?: Pick<MonitorStore, 'getMonitor'>;
}

export const INBOUND_USAGE = `SFTP drop folders (inbox/ outbox/ archive/ failed/ below --path; the secret is stored encrypted)
  drop-folders add --org ID --host HOST [--port 22] --user USER (--key-file PATH | --password-file PATH)
              (--host-key SHA256:… | --host-key-file PATH) [--path /] [--locale da|en]
              [--mapping JSON] [--options JSON] [--monitor MONITOR_ID]
              (--monitor: each file replaces that live monitor's contacts, a receipt in outbox/, no job)
  drop-folders list [--org ID]     (with the poller's last success and last error)
  drop-folders remove FOLDER_ID    (stops claiming; files already delivered are still deleted at delete_after)

Email senders (spreadsheets mailed from these addresses become jobs of the organisation)
  senders add --org ID --address EMAIL [--locale da|en]
  senders list [--org ID]
  senders remove --org ID --address EMAIL`;

export async function runInboundCommand(
  deps: InboundAdminDeps, command: string, args: string[], flags: Flags, now: Date,
): Promise<string[] | null> {
  const json = flags.json === true;
  switch (command) {
    case 'drop-folders add': {
      const orgId = required(flags, 'org');
      await existingOrganisation(deps.accounts, orgId);
      const id = randomUUID();
      const keyFile = optional(flags, 'key-file');
      const passwordFile = optional(flags, 'password-file');
      if ((keyFile === undefined) === (passwordFile === undefined)) throw new AdminInputError('give exactly one of --key-file and --password-file');
      const monitorId = optional(flags, 'monitor');
      if (monitorId !== undefined && !(await deps.monitors?.getMonitor({ org_id: orgId, mode: 'live' }, monitorId))) {
        throw new AdminNotFoundError(`monitor ${monitorId} is not a live monitor of organisation ${orgId}`);
      }
      const secret = await readSecret((keyFile ?? passwordFile) as string, keyFile ? 'key' : 'password');
      const folder: DropFolder = {
        id, org_id: orgId,
        host: required(flags, 'host'),
        port: port(optional(flags, 'port') ?? '22'),
        username: required(flags, 'user'),
        host_key_sha256: await hostKey(flags),
        auth: keyFile ? 'key' : 'password',
        secret_sealed: deps.secrets().seal(secret, id),
        path: folderPath(optional(flags, 'path') ?? '/'),
        column_mapping: jsonFlag(flags, 'mapping', (v) => ColumnMappingSchema.parse(v)) ?? null,
        options: jsonFlag(flags, 'options', (v) => CheckJobOptionsSchema.parse(v)) ?? {},
        locale: locale(optional(flags, 'locale') ?? 'da'),
        ...(monitorId !== undefined ? { monitor_id: monitorId } : {}),
        created_at: now.toISOString(),
        removed_at: null,
      };
      await deps.inbound.createDropFolder(folder);
      return json ? [JSON.stringify(publicFolder(folder, null))] : [`drop folder added: ${id}`, formatFolder(folder, null)];
    }
    case 'drop-folders list': {
      const orgId = optional(flags, 'org');
      const folders = await deps.inbound.listDropFolders(orgId);
      const withStatus = await Promise.all(folders.map(async (f) => ({ f, s: await deps.inbound.getFolderStatus(f.id) })));
      if (json) return [JSON.stringify(withStatus.map(({ f, s }) => publicFolder(f, s)))];
      return withStatus.length === 0 ? ['no drop folders'] : withStatus.map(({ f, s }) => formatFolder(f, s));
    }
    case 'drop-folders remove': {
      const id = args[0];
      if (!id) throw new AdminInputError('missing drop folder id');
      if (!(await deps.inbound.removeDropFolder(id, now.toISOString()))) throw new AdminNotFoundError(`drop folder ${id} does not exist`);
      return json ? [JSON.stringify({ id, removed: true })] : [`drop folder ${id} removed`];
    }
    case 'senders add': {
      const orgId = required(flags, 'org');
      await existingOrganisation(deps.accounts, orgId);
      const address = emailAddress(required(flags, 'address'));
      const chosen = optional(flags, 'locale');
      await deps.inbound.addSender({ org_id: orgId, address, locale: chosen ? locale(chosen) : null, created_at: now.toISOString() });
      return json ? [JSON.stringify({ org_id: orgId, address })] : [`sender ${address} allowed for organisation ${orgId}`];
    }
    case 'senders list': {
      const senders = await deps.inbound.listSenders(optional(flags, 'org'));
      if (json) return [JSON.stringify(senders)];
      return senders.length === 0 ? ['no senders'] : senders.map((s) => `${s.address}  org=${s.org_id}  locale=${s.locale ?? 'auto'}  added ${s.created_at}`);
    }
    case 'senders remove': {
      const orgId = required(flags, 'org');
      const address = emailAddress(required(flags, 'address'));
      if (!(await deps.inbound.removeSender(orgId, address))) throw new AdminNotFoundError(`sender ${address} is not allowed for organisation ${orgId}`);
      return json ? [JSON.stringify({ org_id: orgId, address, removed: true })] : [`sender ${address} removed`];
    }
    default:
      return null;
  }
}

/** The folder as shown: never the sealed secret. */
function publicFolder(f: DropFolder, s: DropFolderStatus | null) {
  const { secret_sealed: _secret, ...rest } = f;
  return { ...rest, last_ok_at: s?.last_ok_at ?? null, last_error: s?.last_error ?? null, last_error_at: s?.last_error_at ?? null, failures: s?.failures ?? 0 };
}

function formatFolder(f: DropFolder, s: DropFolderStatus | null): string {
  const state = !s ? 'not polled yet'
    : s.failures > 0 ? `FAILING (${s.failures}x) since ${s.last_error_at}: ${s.last_error}`
    : `ok ${s.last_ok_at}${s.last_error ? ` (last error ${s.last_error_at}: ${s.last_error})` : ''}`;
  return `${f.id}  org=${f.org_id}  ${f.username}@${f.host}:${f.port}${f.path}  host key ${f.host_key_sha256}  ${f.auth}  locale=${f.locale}` +
    `  mapping=${f.column_mapping ? 'saved' : 'guessed'}${f.monitor_id ? `  feeds monitor ${f.monitor_id}` : ''}\n    ${state}`;
}

async function readSecret(path: string, kind: 'key' | 'password'): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new AdminInputError(`cannot read the ${kind} file ${path}`);
  }
  if (kind === 'key' && !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) throw new AdminInputError('--key-file must hold a private key (PEM or OpenSSH format)');
  const secret = kind === 'password' ? text.replace(/\r?\n$/, '') : text;
  if (secret.length === 0) throw new AdminInputError(`the ${kind} file is empty`);
  return secret;
}

async function hostKey(flags: Flags): Promise<string> {
  const given = optional(flags, 'host-key');
  const file = optional(flags, 'host-key-file');
  if ((given === undefined) === (file === undefined)) throw new AdminInputError('give exactly one of --host-key SHA256:… and --host-key-file PATH (the server\'s public key, e.g. from ssh-keyscan)');
  if (given !== undefined) {
    if (!/^SHA256:[A-Za-z0-9+/]{43}$/.test(given)) throw new AdminInputError('--host-key must be a SHA256 fingerprint as ssh-keygen -l prints it (SHA256:…)');
    return given;
  }
  let text: string;
  try {
    text = await readFile(file as string, 'utf8');
  } catch {
    throw new AdminInputError(`cannot read --host-key-file ${file}`);
  }
  // ssh-keyscan prints "host keytype key"; a .pub file "keytype key comment".
  const line = text.split('\n').map((l) => l.trim()).find((l) => l && !l.startsWith('#'));
  if (!line) throw new AdminInputError('--host-key-file holds no key');
  const fields = line.split(/\s+/);
  const keyLine = fields[0].startsWith('ssh-') || fields[0].startsWith('ecdsa-') ? line : fields.slice(1).join(' ');
  try {
    return fingerprintOfPublicKeyLine(keyLine);
  } catch {
    throw new AdminInputError('--host-key-file does not hold an OpenSSH public key');
  }
}

function port(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > 65535) throw new AdminInputError('--port must be 1..65535');
  return n;
}

function locale(text: string): 'da' | 'en' {
  if (text !== 'da' && text !== 'en') throw new AdminInputError('--locale must be da or en');
  return text;
}

function folderPath(text: string): string {
  if (!text.startsWith('/') || text.includes('\0') || text.split('/').includes('..')) throw new AdminInputError('--path must be an absolute path without ..');
  return text;
}

function emailAddress(text: string): string {
  const address = text.trim().toLowerCase();
  if (!/^[^\s@<>]{1,64}@[a-z0-9.-]{1,253}$/.test(address)) throw new AdminInputError('--address must be an email address');
  return address;
}

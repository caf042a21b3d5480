import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { importCompanyRegister } from '../registers/companies/import.ts';
import { activateRegister } from '../registers/companies/register-import.ts';
import { importDirectoryFile } from '../registers/phones/directory-csv.ts';
import type { Logger } from '../platform/logger.ts';
import type { RegisterKind, RegisterStore, RegisterVersion } from '../platform/store/registers-port.ts';
import { AdminInputError } from './organisations.ts';

/**
 * `companies import|activate|list` and `phones import|activate|list`: the company register (CVR
 * JSON-lines extract) and the phone directory file as register versions (docs/companies.md).
 */
export const REGISTER_USAGE = `Company register and phone directory
  companies import --file EXTRACT.jsonl [--published-on YYYY-MM-DD] [--max-skipped N] [--activate]
  phones import --file DIRECTORY.csv [--published-on YYYY-MM-DD] [--max-skipped N] [--activate]
  companies activate VERSION_ID | phones activate VERSION_ID
  companies list | phones list`;

export interface RegisterCommandDeps {
  registers: RegisterStore;
  logger: Logger;
  now: () => Date;
}

export async function runRegisterCommand(
  deps: RegisterCommandDeps, group: 'companies' | 'phones', action: string | undefined, args: string[],
  options: { file?: string; publishedOn?: string; maxSkipped?: number; activate: boolean; json: boolean },
): Promise<string[]> {
  const kind: RegisterKind = group;
  const importDeps = { store: deps.registers, logger: deps.logger, now: deps.now };
  switch (action) {
    case 'import': {
      if (!options.file) throw new AdminInputError('missing --file');
      const file = options.file;
      await access(file).catch(() => { throw new AdminInputError(`cannot read --file ${file}`); });
      const request = {
        chunks: createReadStream(file),
        ...(options.publishedOn ? { publishedOn: options.publishedOn } : {}),
        ...(options.maxSkipped !== undefined ? { maxSkipped: options.maxSkipped } : {}),
      };
      const { version, skipped } = kind === 'companies'
        ? await importCompanyRegister(importDeps, request)
        : await importDirectoryFile(importDeps, request);
      const final = options.activate ? await activateRegister(importDeps, version.id) : version;
      if (options.json) return [JSON.stringify({ ...final, skipped })];
      return [
        `${kind} version imported: ${final.id} (${final.record_count} records, ${skipped} skipped)`,
        final.activated_at ? 'activated' : `not active yet: npm run admin -- ${group} activate ${final.id}`,
      ];
    }
    case 'activate': {
      const id = args[0];
      if (!id) throw new AdminInputError('missing version id');
      const existing = await deps.registers.getRegisterVersion(id);
      if (!existing || existing.kind !== kind) throw new AdminInputError(`${id} is not a ${kind} version`);
      const version = await activateRegister(importDeps, id);
      return options.json ? [JSON.stringify(version)] : [`${kind} version ${version.id} activated`, format(version, true)];
    }
    case 'list': {
      const versions = await deps.registers.listRegisterVersions(kind);
      const active = await deps.registers.getActiveRegisterVersion(kind);
      if (options.json) return [JSON.stringify(versions.map((v) => ({ ...v, active: v.id === active?.id })))];
      return versions.length === 0 ? [`no ${kind} versions`] : versions.map((v) => format(v, v.id === active?.id));
    }
    default:
      throw new AdminInputError(`unknown command: ${[group, action].filter(Boolean).join(' ')}`);
  }
}

function format(v: RegisterVersion, active: boolean): string {
  return `${v.id}  ${v.kind}  published ${v.published_on}  imported ${v.created_at}  ${v.record_count} records  ${active ? `ACTIVE since ${v.activated_at}` : 'inactive'}`;
}

import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import type { RegisterStore } from '../../platform/store/registers-port.ts';
import {
  createCompanyIndexBuilder, createPhoneIndexBuilder, type CompanyIndex, type CompanyRecord, type DirectoryEntry, type PhoneIndex,
} from '../../domain/index.ts';
import type { PhoneDirectory } from '../phones/directory-port.ts';
import { createFileDirectory } from '../phones/file-directory.ts';
import { createHttpDirectory } from '../phones/http-directory.ts';
import { createActiveRegister, type ActiveRegister } from './active-register.ts';

/**
 * The registers a process checks companies and phones against, built from the platform's
 * RegisterStore: the active company register, the active imported phone directory, and the
 * directory phone checks use (the provider's API when PHONE_DIRECTORY_URL is set, else the file).
 */
export interface Registers {
  companies: ActiveRegister<CompanyIndex>;
  phones: ActiveRegister<PhoneIndex>;
  directory: PhoneDirectory;
  /**
   * What a job with phone checks pins (JobIntakeDeps.currentPhoneDirectory): the active imported
   * directory version, or nothing when the provider's API answers (it is not versioned).
   */
  phoneDirectoryPin(): { provider: true } | { provider: false; versionId: string | null };
  /** Looks for newly activated versions (at boot and on the list refresh timer). */
  refresh(): Promise<void>;
}

export function createRegisters(
  store: RegisterStore, logger: Logger,
  config: Pick<Config, 'PHONE_DIRECTORY_URL' | 'PHONE_DIRECTORY_KEY' | 'PHONE_DIRECTORY_TIMEOUT_MS'>,
): Registers {
  const companies = createActiveRegister<CompanyRecord, CompanyIndex>({ store, kind: 'companies', logger, createBuilder: createCompanyIndexBuilder });
  const phones = createActiveRegister<DirectoryEntry, PhoneIndex>({ store, kind: 'phones', logger, createBuilder: createPhoneIndexBuilder });
  const provider = Boolean(config.PHONE_DIRECTORY_URL && config.PHONE_DIRECTORY_KEY);
  const directory = provider && config.PHONE_DIRECTORY_URL && config.PHONE_DIRECTORY_KEY
    ? createHttpDirectory({ url: config.PHONE_DIRECTORY_URL, key: config.PHONE_DIRECTORY_KEY, timeoutMs: config.PHONE_DIRECTORY_TIMEOUT_MS })
    : createFileDirectory(phones);
  return {
    companies, phones, directory,
    phoneDirectoryPin: () => (provider ? { provider: true } : { provider: false, versionId: phones.current()?.version.id ?? null }),
    async refresh() {
      await Promise.all([companies.refresh(), phones.refresh()]);
    },
  };
}

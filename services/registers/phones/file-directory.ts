import type { DirectoryEntry, PhoneIndex } from '../../domain/index.ts';
import type { ActiveRegister } from '../companies/active-register.ts';
import { DirectoryUnavailableError, type PhoneDirectory } from './directory-port.ts';

/**
 * The directory from an imported file (directory-csv.ts): lookups in the in-memory index of the
 * active `phones` register version, which every process builds from the platform store. A
 * re-import swaps the version atomically (ActiveRegister), so a batch sees one version.
 */
export function createFileDirectory(active: Pick<ActiveRegister<PhoneIndex>, 'current'>): PhoneDirectory {
  return {
    async lookup(numbers) {
      const loaded = active.current();
      if (!loaded) throw new DirectoryUnavailableError('not_imported');
      const answers = new Map<string, DirectoryEntry | null>();
      for (const number of numbers) answers.set(number, loaded.index.get(number) ?? null);
      return answers;
    },
  };
}

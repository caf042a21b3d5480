import type { ColumnMapping } from '../../domain/check-job.ts';
import { MonitorNotFoundError, NoContactsError, replaceMonitorContacts, TooManyContactsError } from '../monitors/contacts.ts';
import type { Organisation } from '../../platform/store/accounts-port.ts';
import type { MonitorStore } from '../../platform/store/monitors-port.ts';
import type { SavedMappingStore } from '../../platform/store/saved-mappings-port.ts';
import { InboundRefusal } from './file-jobs.ts';
import { asRefusal } from './ingest-file-jobs.ts';
import { inboundTexts, tooManyContactsTexts } from './messages.ts';
import { savedMappingChoice } from './saved-mapping-choice.ts';

/**
 * What an SFTP folder bound to a monitor needs (docs/inbound.md "Folders that feed a monitor"):
 * replace the monitor's contacts from a file on local disk through the monitors' own entry point
 * (`replaceMonitorContacts`, the same readers as the API's PUT), and read its count. The mapping
 * is chosen as for a folder's check jobs: the folder's own, else the organisation's saved one for
 * the header row (`savedMappings`, channel `sftp`), else the guess; a mapping with warnings (no
 * name or address column) is refused with them, as a folder's job would be (docs/inbound.md "Saved
 * column mappings on every channel").
 *
 * Promises: a file that can never be used throws InboundRefusal (its code and da/en text) and
 * leaves the contacts as they were; any other error is transient (a store that does not answer).
 * Monitors of inbound channels are live (drop folders have no test mode).
 */
export interface MonitorContactsFeed {
  replace(input: { org: Organisation; monitorId: string; path: string; filename: string; column_mapping: ColumnMapping | null }): Promise<{ contact_count: number }>;
  /** The monitor's contact count now; null when it no longer exists. */
  contactCount(org: Organisation, monitorId: string): Promise<number | null>;
}

export function createMonitorContactsFeed(
  monitors: MonitorStore, savedMappings?: Pick<SavedMappingStore, 'listMappings'>, clock?: () => Date,
): MonitorContactsFeed {
  return {
    async replace({ org, monitorId, path, filename, column_mapping }) {
      try {
        const savedMapping = await savedMappingChoice(savedMappings, org.id, 'sftp', column_mapping);
        return await replaceMonitorContacts({ monitors, ...(clock ? { clock } : {}) }, {
          organisationId: org.id, mode: 'live', monitorId,
          source: { kind: 'file', path, filename, column_mapping, ...(savedMapping ? { savedMapping } : {}), refuseWarnings: true },
        });
      } catch (error) {
        if (error instanceof MonitorNotFoundError) throw new InboundRefusal('monitor_missing', inboundTexts('monitor_missing'));
        if (error instanceof TooManyContactsError) throw new InboundRefusal('too_many_contacts', tooManyContactsTexts(error.limit));
        if (error instanceof NoContactsError) throw new InboundRefusal('no_contacts', inboundTexts('no_contacts'));
        throw asRefusal(error);
      }
    },
    async contactCount(org, monitorId) {
      return (await monitors.getMonitor({ org_id: org.id, mode: 'live' }, monitorId))?.contact_count ?? null;
    },
  };
}

import { ColumnMappingError, FileRefusedError, IntakeError, JobInputError, MappingWarningsError } from '../index.ts';
import { warningsRefusalCode } from '../files/index.ts';
import { savedMappingChoice } from '../inbound/saved-mapping-choice.ts';
import { MonitorNotFoundError, NoContactsError, replaceMonitorContacts, TooManyContactsError } from '../monitors/contacts.ts';
import type { MonitorStore } from '../../platform/store/monitors-port.ts';
import type { SavedMappingStore } from '../../platform/store/saved-mappings-port.ts';
import type { MonitorFeed } from './pull.ts';
import { PermanentError } from '../../platform/errors.ts';

/**
 * A connector whose target is a monitor (`connectors add --monitor ID`): each pull replaces the
 * monitor's whole contact set through the monitors' own entry point (services/ingest/monitors/contacts.ts
 * `replaceMonitorContacts`, the same readers as the API's PUT), and the monitor service re-checks
 * the new set; the connector makes no job itself. A monitor is live-mode (connectors have no test
 * keys). A file's mapping is chosen as for a connector's check jobs: the connector's own, else the
 * organisation's saved one for the header row (channel `connector`), else the guess; a mapping with
 * warnings is refused with them, as the connector's job would be (docs/inbound.md "Saved column
 * mappings on every channel"). What can never succeed becomes a MonitorFeedRefusal with a status
 * code (a mapping's warnings: `refused:mapping_warnings:…`, as for a job); anything else
 * (a store that does not answer) passes on and the slot is tried again.
 */
export class MonitorFeedRefusal extends PermanentError {
  readonly code: string;
  constructor(code: string) {
    super(`monitor feed refused: ${code}`);
    this.name = 'MonitorFeedRefusal';
    this.code = code;
  }
}

export function createMonitorFeed(
  monitors: MonitorStore, savedMappings?: Pick<SavedMappingStore, 'listMappings'>, clock?: () => Date,
): (feed: MonitorFeed) => Promise<void> {
  return async ({ connector, org, source }) => {
    if (connector.target.kind !== 'monitor') throw new TypeError('not a monitor connector');
    try {
      const savedMapping = source.kind === 'file' ? await savedMappingChoice(savedMappings, org.id, 'connector', connector.column_mapping) : undefined;
      await replaceMonitorContacts({ monitors, ...(clock ? { clock } : {}) }, {
        organisationId: org.id, mode: 'live', monitorId: connector.target.monitor_id,
        source: source.kind === 'people'
          ? { kind: 'people', people: source.people }
          : {
            kind: 'file', path: source.path, filename: source.filename, column_mapping: connector.column_mapping,
            ...(savedMapping ? { savedMapping } : {}), refuseWarnings: true,
          },
      });
    } catch (error) {
      throw refusalOf(error);
    }
  };
}

function refusalOf(error: unknown): unknown {
  if (error instanceof MonitorNotFoundError) return new MonitorFeedRefusal('monitor_not_found');
  if (error instanceof TooManyContactsError) return new MonitorFeedRefusal('refused:too_many_contacts');
  if (error instanceof NoContactsError) return new MonitorFeedRefusal('refused:no_contacts');
  if (error instanceof FileRefusedError) return new MonitorFeedRefusal(`refused:${error.code}`);
  if (error instanceof MappingWarningsError) return new MonitorFeedRefusal(`refused:${warningsRefusalCode(error.warnings)}`);
  if (error instanceof ColumnMappingError) return new MonitorFeedRefusal('refused:column_mapping_invalid');
  if (error instanceof IntakeError) return new MonitorFeedRefusal('refused:invalid_rows');
  if (error instanceof JobInputError) {
    const mapping = error.issues.some((i) => i.problem === 'column_mapping_required');
    return new MonitorFeedRefusal(mapping ? 'refused:column_mapping_required' : 'refused:invalid_rows');
  }
  return error;
}

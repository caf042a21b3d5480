/**
 * Every error class says whether the same input fails again (docs/architecture.md "Conventions"):
 * the callback sender, the event-log adapters, the decoder, the matcher and the projection retry
 * or give up by `isPermanent` alone. This table is the classification; a class moved to the other
 * side, or back to a plain Error, fails it.
 */
import { describe, expect, it } from 'vitest';
import { AddonRequiredError, JobInputError, JobNotDraftError, ListNotReadyError, RegisterNotReadyError, SpoolFullError } from '../../../services/ingest/jobs/errors.ts';
import { AdminInputError, AdminNotFoundError } from '../../../services/admin/organisations.ts';
import { CvrRecordError } from '../../../services/registers/companies/cvr-extract.ts';
import { RegisterImportError } from '../../../services/registers/companies/register-import.ts';
import { JsonRecordsError } from '../../../services/registers/addresses/json-records.ts';
import { DirectoryFileError } from '../../../services/registers/phones/directory-csv.ts';
import { ListImportError } from '../../../services/registers/lists/import.ts';
import { ListFileFormatError, ListFileRowsError } from '../../../services/registers/lists/list-file-errors.ts';
import { MonitorNotFoundError, NoContactsError, TooManyContactsError } from '../../../services/ingest/monitors/contacts.ts';
import { MonitorFeedRefusal } from '../../../services/ingest/connector/monitor-feed.ts';
import { InboundRefusal } from '../../../services/ingest/inbound/file-jobs.ts';
import { SecretKeyError } from '../../../services/ingest/inbound/secrets.ts';
import { VisitTimeoutError } from '../../../services/ingest/sftp/poller.ts';
import { HostKeyMismatchError, SftpConnectError } from '../../../services/ingest/sftp/remote-folder.ts';
import { PeopleError } from '../../../services/api/people/people-service.ts';
import { TotpSecretGoneError } from '../../../services/api/people/totp-seal.ts';
import { ConfigError } from '../../../services/platform/config.ts';
import { ClassifiedError, isPermanent } from '../../../services/platform/errors.ts';
import { InvalidSealError } from '../../../services/platform/keys/cursor-seal.ts';
import { UnknownMasterKeyError } from '../../../services/platform/keys/data-keys.ts';
import { MalformedJwsError } from '../../../services/platform/keys/jws.ts';
import { UnknownTopicError } from '../../../services/platform/log/port.ts';
import { UnknownSubjectError } from '../../../services/platform/schema-registry/port.ts';
import { InvalidCursorError, JobExistsError, UnknownRecordFormatError } from '../../../services/platform/store/job-results.ts';
import { MonitorExistsError } from '../../../services/platform/store/monitors-port.ts';

/** Client input, a conflict or a refused file: the same input is refused the same way again. */
const permanent: Array<[string, Error]> = [
  ['AdminInputError', new AdminInputError('x')],
  ['AdminNotFoundError', new AdminNotFoundError('x')],
  ['CvrRecordError', new CvrRecordError('no_cvr')],
  ['RegisterImportError', new RegisterImportError('x')],
  ['JsonRecordsError', new JsonRecordsError('x')],
  ['DirectoryFileError', new DirectoryFileError('x')],
  ['ListImportError', new ListImportError('x')],
  ['ListFileFormatError', new ListFileFormatError('missing_header', 'x')],
  ['ListFileRowsError', new ListFileRowsError(1, [2], 1)],
  ['MonitorNotFoundError', new MonitorNotFoundError()],
  ['TooManyContactsError', new TooManyContactsError(10)],
  ['NoContactsError', new NoContactsError()],
  ['MonitorExistsError', new MonitorExistsError('m')],
  ['MonitorFeedRefusal', new MonitorFeedRefusal('x')],
  ['InboundRefusal', new InboundRefusal('x', { da: 'x', en: 'x' })],
  ['JobInputError', new JobInputError([])],
  ['JobExistsError', new JobExistsError('j')],
  ['JobNotDraftError', new JobNotDraftError('queued')],
  ['AddonRequiredError', new AddonRequiredError('company')],
  ['InvalidCursorError', new InvalidCursorError()],
  ['InvalidSealError', new InvalidSealError()],
  ['MalformedJwsError', new MalformedJwsError('x')],
  ['SecretKeyError', new SecretKeyError('x')],
  ['HostKeyMismatchError', new HostKeyMismatchError()],
  ['TotpSecretGoneError', new TotpSecretGoneError()],
  ['ConfigError', new ConfigError('x')],
  ['PeopleError email_taken', new PeopleError('email_taken')],
  ['PeopleError code_wrong', new PeopleError('code_wrong')],
];

/** A state that can change (not ready yet, full, unreachable, deployed out of order): retry. */
const transient: Array<[string, Error]> = [
  ['ListNotReadyError', new ListNotReadyError()],
  ['RegisterNotReadyError', new RegisterNotReadyError('company_register_not_ready')],
  ['SpoolFullError', new SpoolFullError()],
  ['VisitTimeoutError', new VisitTimeoutError(1)],
  ['SftpConnectError', new SftpConnectError('x')],
  ['UnknownTopicError', new UnknownTopicError('t')],
  ['UnknownSubjectError', new UnknownSubjectError('s')],
  ['UnknownRecordFormatError', new UnknownRecordFormatError(99)],
  ['UnknownMasterKeyError', new UnknownMasterKeyError('k')],
  ['PeopleError mail_unavailable', new PeopleError('mail_unavailable')],
];

describe('error classification (services/platform/errors.ts)', () => {
  it.each(permanent)('%s is permanent', (_name, error) => {
    expect(error).toBeInstanceOf(ClassifiedError);
    expect(isPermanent(error)).toBe(true);
  });

  it.each(transient)('%s is transient, and says so on the base', (_name, error) => {
    expect(error).toBeInstanceOf(ClassifiedError);
    expect(isPermanent(error)).toBe(false);
  });

  it('keeps each class its own name, so logs and dead letters still say which it was', () => {
    for (const [name, error] of [...permanent, ...transient]) expect(error.name).toBe(name.split(' ')[0]);
  });
});

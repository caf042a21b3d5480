/**
 * Every event the services log, in one place (style.md §11), so logs, tests and dashboards speak
 * of the same things. An event is `area.what_happened`; it is the log line's `msg`. The Logger's
 * methods accept only these names (platform/logger.ts), so a new log line starts here.
 * Fields beside the event carry ids, counts and codes, never names, addresses or phone numbers;
 * an error goes in as `errorFields(error)` (logger.ts).
 */
export const LOG_EVENTS = {
  // Processes (entry points, shutdown)
  'process.started': 'the services of a process are running (the address when it listens)',
  'process.start_failed': 'a process could not start; it stopped what had started and exits 1',
  'process.stopping': 'a signal arrived; stopping the services in reverse order',
  'process.stopped': 'every service stopped and the platform closed',
  'process.shutdown_failed': 'stopping a service or closing the platform failed',
  'process.forced_exit': 'a second signal during shutdown: exiting at once',
  'spool.orphans_removed': 'spool files left by a process that stopped mid-intake were removed',
  'demo.organisation_seeded': 'npm start created the demo organisation and its keys',
  'demo.list_seeded': 'npm start imported and activated the synthetic demo list',

  // API
  'api.request': 'one line per response: ids, route, status, duration',
  'api.unhandled_error': 'an error no route mapped: the client got 500 without details',
  'api.result_file_failed': 'building a job result file failed',
  'rate_limit.sync_failed': 'exchanging rate-limit counts with the other API processes failed',
  'idempotency.purged': 'expired idempotency records removed',
  'idempotency.purge_failed': 'removing expired idempotency records failed; retried at the next sweep',
  'payment.webhook': 'a payment provider webhook was handled (its outcome)',
  'phone_directory.unavailable': 'the phone directory did not answer; phone checks report it',

  // Jobs: intake, drafts, tracking
  'job.draft_created': 'an uploaded file became a draft job, waiting for /start',
  'job.queued': 'every row of a job is on the event log (chunks, time)',
  'job.publish_failed': 'publishing a job to the event log failed; the job fails',
  'job.overlap_abandoned': 'an overlapped intake stopped early (the job was refused or deleted)',
  'job.abandoned_publish_failed': 'publishing the end of an abandoned intake failed',
  'job.deleted': 'a job was deleted through the API',
  'job.paid': 'a priced job was paid and released',
  'job.done': 'every row of a job has its result',
  'job.failed': 'a job ended failed (its error code says why)',
  'job.transition_refused': 'a state change that the job state machine does not allow was ignored',
  'job.state_event_lost': 'publishing a job state event failed; the store holds the state',
  'job.intake_interrupted': 'a job whose intake stopped (API process gone) was failed by the sweeper',
  'intake.touch_failed': 'marking an intake as alive failed; the sweeper may fail the job',
  'intake.sweep_failed': 'a sweep for interrupted intakes failed; retried at the next one',
  'draft.files_removed': 'files of expired drafts were removed',
  'draft.orphan_files_removed': 'files of drafts that no longer exist were removed',
  'draft.sweep_failed': 'a sweep for expired draft files failed; retried at the next one',

  // Matcher and projection
  'matcher.started': 'a matcher consumes its group',
  'projection.started': 'the projection consumes its group',
  'matcher.batch': 'a batch of chunks was matched (rows, time)',
  'matcher.job_failed': 'a chunk could not be matched (e.g. its list version is gone); the job fails',
  'matcher.unexpected_event': 'an event of a type the matcher does not handle was skipped',
  'matcher.chunk_forgotten': 'a chunk of a deleted job was skipped',
  'projection.count_failed': 'counting a job\'s results failed; recounted at its next chunk',
  'results.unknown_job': 'results arrived for a job the store does not know; ignored',
  'retention.purged': 'jobs past delete_after were deleted',
  'retention.failed': 'a retention sweep failed; retried at the next one',
  'callback.delivered': 'a job callback got a 2xx',
  'callback.attempt_failed': 'a callback attempt failed; it is retried later',
  'callback.failed': 'a callback gave up after its last attempt',
  'callback.suspended': 'a callback stopped between attempts (process stopping); resumed at the next start',
  'callback.resumed': 'pending callbacks were resumed at start',
  'callback.dispatch_failed': 'dispatching a job\'s callback failed unexpectedly',

  // Event log (Kafka and embedded)
  'event_log.group_joined': 'a consumer joined its group (its partitions)',
  'event_log.consumer_stopped': 'a Kafka consumer stopped for good; the process must restart',
  'event_log.batch_failed': 'a batch handler failed; the batch is redelivered after a backoff',
  'event_log.dead_lettered': 'unreadable messages went to the dead-letter topic',
  'event_log.partition_worker_failed': 'an embedded partition worker stopped on an error',
  'event_log.kafka_client': 'a line of the Kafka client itself (kafkajs): its text in `detail`',
  'schema_registry.id_differs': 'the schema registry gave a schema another id than the pinned one',

  // CPR lists, private lists, company registers, address register
  'list.import_started': 'a list file import began',
  'list.import_sealed': 'a list version was imported completely',
  'list.import_refused': 'a list file had malformed lines; the version was refused',
  'list.import_failed': 'a list import failed; the version was not sealed',
  'list.activated': 'a list version became the active one',
  'list.index_built': 'the matching index of a list version was built',
  'list.active_swapped': 'the process switched to a newly activated list version',
  'list.active_missing': 'no active list version any more; the process keeps the last one',
  'list.refresh_failed': 'looking for a new active list version failed; retried later',
  'private_list.index_built': 'an organisation\'s private list index was built',
  'register.import_sealed': 'a company register version was imported completely',
  'register.import_refused': 'a company register file had bad lines; the version was refused',
  'register.activated': 'a company register version became the active one',
  'register.index_built': 'the lookup index of a register version was built',
  'register.active_swapped': 'the process switched to a newly activated register version',
  'register.refresh_failed': 'looking for a new active register version failed; retried later',
  'address_register.imported': 'an address register (DAR) version was imported',
  'address_register.activated': 'an address register version became the active one',
  'address_register.active_swapped': 'the process switched to a newly activated address register',

  // Monitors
  'monitor.created': 'a monitor was created through the API',
  'monitor.contacts_replaced': 'a monitor\'s contacts were replaced',
  'monitor.deleted': 'a monitor was deleted',
  'monitor.check_started': 'a monitor re-check job started for a new list version',
  'monitor.check_not_started': 'starting a monitor re-check failed; retried at the next walk',
  'monitor.checked': 'a monitor re-check finished and its changes were reported',
  'monitor.check_interrupted': 'a re-check job was cut short; it is started again',
  'monitor.check_lost': 'a re-check job ended failed or deleted; it is started again',
  'monitor.contact_count_differs': 'a re-check job has another row count than the monitor\'s contacts',
  'monitor.contacts_gone': 'a re-check finished after its monitor\'s contacts were replaced or deleted',
  'monitor.retention_deleted': 'a monitor past its retention was deleted',
  'monitor.step_failed': 'one monitor\'s step of a walk failed; retried at the next walk',
  'monitor.walk_done': 'a walk over all monitors finished',
  'monitor.walk_failed': 'a walk over the monitors failed; retried at the next one',

  // Inbound channels: SFTP, email, connectors
  'sftp.service_started': 'the SFTP drop-folder poller runs',
  'sftp.visited': 'a drop folder was visited (files claimed, delivered, deleted)',
  'sftp.visit_failed': 'visiting a drop folder failed; retried after a backoff',
  'sftp.round_failed': 'a polling round failed; the next one is scheduled',
  'sftp.file_claimed': 'a file in a drop folder was claimed for a job',
  'sftp.claim_rename_failed': 'claiming a file (rename) failed; another poller may have it',
  'sftp.job_created': 'a claimed file became a job',
  'sftp.file_refused': 'a claimed file was refused (its code); a refusal note was written',
  'sftp.result_delivered': 'a job\'s result file was written to the folder\'s outbox',
  'sftp.monitor_contacts_replaced': 'a claimed file of a folder that feeds a monitor replaced the monitor\'s contacts',
  'sftp.monitor_receipt_delivered': 'the receipt of a monitor\'s replaced contacts was written to the folder\'s outbox',
  'sftp.files_expired': 'a claim\'s files were deleted at delete_after',
  'email.service_started': 'email ingest runs (IMAP IDLE and polling)',
  'email.pass': 'a mailbox pass handled messages (counts)',
  'email.pass_failed': 'a mailbox pass failed; retried at the next one',
  'email.imap_error': 'the IMAP connection reported an error',
  'email.quarantined': 'an email from an unknown sender was quarantined',
  'email.job_created': 'an email attachment became a job',
  'email.reply_sent': 'the results were mailed back',
  'connector.service_started': 'the connector scheduler runs',
  'connector.pulled': 'a connector pulled its source and created a job',
  'connector.pull_failed': 'a connector pull failed (its error code); retried at its next slot',
  'connector.pull_interrupted': 'a connector pull stopped on an unexpected error',
  'connector.pass_failed': 'a pass over the due connectors failed; retried at the next tick',

  // ClickHouse schema tool
  'clickhouse.url_missing': 'the migration tool was started without CLICKHOUSE_URL',
  'clickhouse.migration_applied': 'a ClickHouse migration was applied',
  'clickhouse.schema_current': 'every ClickHouse migration is applied',
} as const;

/** A log event's name: the only `msg` the Logger accepts. */
export type LogEvent = keyof typeof LOG_EVENTS;

/**
 * Why a job could not be created. No message carries a value of the input (they may be names or
 * addresses): only paths, codes and limits. The HTTP edge maps them to 422 / 503.
 */
import type { Locale } from '../../domain/types.ts';
import { ClassifiedError, PermanentError } from '../../platform/errors.ts';

export type JobInputProblem =
  | 'callback_not_https'
  | 'callback_invalid'
  | 'callback_refused'
  | 'callback_unresolvable'
  | 'option_unsupported'
  | 'no_check_asked'
  | 'private_list_missing'
  | 'value_too_long'
  | 'column_mapping_required'
  | 'retention_fixed_at_upload';

export const TEXTS: Record<JobInputProblem, Record<Locale, string>> = {
  callback_not_https: { da: 'Skal være en https-adresse.', en: 'Must be an https URL.' },
  callback_invalid: { da: 'Er ikke en gyldig URL.', en: 'Is not a valid URL.' },
  callback_refused: {
    da: 'Adressen peger på et internt eller privat netværk og er ikke tilladt.',
    en: 'The address points to an internal or private network and is not allowed.',
  },
  callback_unresolvable: { da: 'Værtsnavnet kan ikke slås op.', en: 'The host name does not resolve.' },
  option_unsupported: {
    da: 'Understøttes ikke for job med personer; skal være false.',
    en: 'Not supported for jobs of people; must be false.',
  },
  no_check_asked: {
    da: 'Mindst én af check_people, check_companies og check_phones skal være true.',
    en: 'At least one of check_people, check_companies and check_phones must be true.',
  },
  private_list_missing: {
    da: 'Organisationen har ingen aktiv egen spærreliste; importér og aktivér den først, eller sæt use_private_list til false.',
    en: 'The organisation has no active private list; import and activate one first, or set use_private_list to false.',
  },
  value_too_long: { da: 'Må højst være 200 tegn.', en: 'Must be at most 200 characters.' },
  column_mapping_required: {
    da: 'Kolonnerne kunne ikke genkendes; angiv column_mapping (kolonnenummer eller overskrift pr. felt).',
    en: 'The columns could not be recognised; give column_mapping (a column index or header per field).',
  },
  retention_fixed_at_upload: {
    da: 'Opbevaringstiden regnes fra upload og angives ved upload, ikke ved start.',
    en: 'Retention counts from the upload and is set at upload, not at start.',
  },
};

export interface JobInputIssue {
  path: string;
  problem: JobInputProblem;
  describe: (locale: Locale) => string;
}

export function jobInputIssue(path: string, problem: JobInputProblem): JobInputIssue {
  return { path, problem, describe: (locale) => TEXTS[problem][locale] };
}

/** The job's fields are wrong (the people were fine): nothing was created. */
export class JobInputError extends PermanentError {
  override name = 'JobInputError';
  readonly issues: JobInputIssue[];
  constructor(issues: JobInputIssue[]) {
    super(`job input refused at ${issues.map((i) => `${i.path} (${i.problem})`).join(', ')}`);
    this.issues = issues;
  }
}

/**
 * The spool has no room for the job (the disk or the quota is full): nothing was created (the
 * spool file is removed, a job published early is abandoned). The client may try again later.
 */
export class SpoolFullError extends ClassifiedError {
  override name = 'SpoolFullError';
  constructor(options?: ErrorOptions) {
    super('no room left in the spool', options);
  }
}

/**
 * A spool whose rows were handed on but not kept (spool.ts spoolRows `keep`) was asked for them: a
 * bug in the caller, never the input's fault, and the same again on every try.
 */
export class SpoolNotKeptError extends PermanentError {
  override name = 'SpoolNotKeptError';
  constructor() {
    super('the spool did not keep its rows past the overlapped intake\'s opening');
  }
}

/** A write error in the spool's terms: a full disk or quota is SpoolFullError, anything else passes on as it was. */
export function spoolFullIfDiskFull(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' ? new SpoolFullError({ cause: error }) : error;
}

/** A live job needs an active cpr list version to pin; none is active yet. */
export class ListNotReadyError extends ClassifiedError {
  override name = 'ListNotReadyError';
  constructor() {
    super('no active list version to pin');
  }
}

/**
 * A live job with company or phone checks needs what it checks against: an active company
 * register version to pin, an imported phone directory (or the provider's API). 503 at the edge,
 * `details.reason` as the synchronous checks give it.
 */
export class RegisterNotReadyError extends ClassifiedError {
  override name = 'RegisterNotReadyError';
  readonly reason: 'company_register_not_ready' | 'phone_directory_not_ready';
  constructor(reason: RegisterNotReadyError['reason']) {
    super(`no register to pin: ${reason}`);
    this.reason = reason;
  }
}

/** A company or phone option of an organisation without that add-on (docs/decisions.md §5: 403 at the edge). */
export class AddonRequiredError extends PermanentError {
  override name = 'AddonRequiredError';
  readonly addon: 'company' | 'phone';
  constructor(addon: 'company' | 'phone') {
    super(`the organisation lacks the ${addon} add-on`);
    this.addon = addon;
  }
}

/** `start` of a job that is no longer a draft (started already, deleted): the API answers 409. */
export class JobNotDraftError extends PermanentError {
  override name = 'JobNotDraftError';
  readonly status: string;
  constructor(status: string) {
    super(`the job is ${status}, not a draft`);
    this.status = status;
  }
}

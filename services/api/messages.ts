import type { Locale } from '../domain/types.ts';

/**
 * Every human text the HTTP edge produces, in both languages. Messages never contain the
 * caller's values (they may be personal data); at most limits and allowed options from the schema.
 */
export const catalog = {
  invalid_json: { da: 'Forespørgslens indhold er ikke gyldig JSON.', en: 'The request body is not valid JSON.' },
  invalid_utf8: { da: 'Forespørgslens indhold er ikke gyldig UTF-8.', en: 'The request body is not valid UTF-8.' },
  unsupported_media_type: {
    da: 'Forespørgslens indhold skal være JSON (Content-Type: application/json).',
    en: 'The request body must be JSON (Content-Type: application/json).',
  },
  body_too_large: { da: 'Forespørgslens indhold er for stort.', en: 'The request body is too large.' },
  bad_request: { da: 'Forespørgslen kunne ikke læses.', en: 'The request could not be read.' },
  validation: { da: 'Forespørgslen er ugyldig. Se details.issues.', en: 'The request is invalid. See details.issues.' },
  idempotency_key_reused: {
    da: 'Idempotency-Key er allerede brugt med et andet indhold.',
    en: 'The Idempotency-Key was already used with a different request body.',
  },
  idempotency_key_invalid: {
    da: 'Idempotency-Key skal være 1 til 255 tegn.',
    en: 'The Idempotency-Key must be 1 to 255 characters.',
  },
  unauthorized: {
    da: 'API-nøglen mangler eller er ugyldig. Send Authorization: Bearer <API-nøgle>.',
    en: 'The API key is missing or invalid. Send Authorization: Bearer <API key>.',
  },
  suspended: {
    da: 'Organisationen er suspenderet. Kontakt os for at genåbne adgangen.',
    en: 'The organisation is suspended. Contact us to restore access.',
  },
  no_api_agreement: {
    da: 'Jeres abonnement dækker ikke API-tjek. Der kræves en API-aftale.',
    en: 'Your plan does not cover API checks. An API agreement is required.',
  },
  forbidden: { da: 'Organisationen har ikke adgang til denne funktion.', en: 'The organisation does not have this add-on.' },
  channel_adding_off: {
    da: 'Mapper og forbindelser kan ikke tilføjes på denne installation (INBOUND_SECRET_KEY er ikke sat). Bed driften om at tilføje dem med administrationsværktøjet.',
    en: 'Drop folders and connectors cannot be added on this installation (INBOUND_SECRET_KEY is not set). Ask its operators to add them with the admin tool.',
  },
  addon_company: {
    da: 'Organisationen har ikke tilkøbet virksomhedstjek. Kontakt os for en aftale.',
    en: 'The organisation does not have the company check add-on. Contact us for an agreement.',
  },
  addon_phone: {
    da: 'Organisationen har ikke tilkøbet telefontjek. Kontakt os for en aftale.',
    en: 'The organisation does not have the phone check add-on. Contact us for an agreement.',
  },
  company_register_not_ready: {
    da: 'Virksomhedsregistret er endnu ikke indlæst. Prøv igen senere.',
    en: 'The company register has not been loaded yet. Try again later.',
  },
  phone_directory_not_ready: {
    da: 'Telefonbogen er endnu ikke indlæst. Prøv igen senere.',
    en: 'The phone directory has not been loaded yet. Try again later.',
  },
  phone_directory_unavailable: {
    da: 'Telefonbogen svarer ikke lige nu. Prøv igen senere.',
    en: 'The phone directory is not answering right now. Try again later.',
  },
  not_found: { da: 'Ressourcen findes ikke.', en: 'The resource was not found.' },
  method_not_allowed: {
    da: 'Metoden kan ikke bruges på denne adresse. Se Allow-headeren.',
    en: 'The method is not allowed on this path. See the Allow header.',
  },
  idempotency_in_flight: {
    da: 'En forespørgsel med samme Idempotency-Key er stadig i gang. Prøv igen om lidt.',
    en: 'A request with the same Idempotency-Key is still in progress. Try again shortly.',
  },
  gone: { da: 'Ressourcen er slettet.', en: 'The resource has been deleted.' },
  job_gone: {
    da: 'Jobbets personoplysninger er slettet; resultaterne findes ikke længere.',
    en: "The job's personal data has been deleted; its results no longer exist.",
  },
  job_not_done: {
    da: 'Jobbet er ikke færdigt endnu. Resultaterne kan hentes, når status er done.',
    en: 'The job is not done yet. Results can be fetched once its status is done.',
  },
  unsupported_job_media_type: {
    da: 'Indholdet skal være application/json, application/x-ndjson eller multipart/form-data.',
    en: 'The body must be application/json, application/x-ndjson or multipart/form-data.',
  },
  upload_too_large: { da: 'Filen er for stor (højst 100 MB).', en: 'The file is too large (at most 100 MB).' },
  invalid_multipart: {
    da: 'Forespørgslen er ikke gyldig multipart/form-data.',
    en: 'The request is not valid multipart/form-data.',
  },
  file_refused: { da: 'Filen kan ikke bruges.', en: 'The file cannot be used.' },
  job_not_draft: {
    da: 'Jobbet er ikke en kladde (det er startet eller slettet) og kan ikke startes.',
    en: 'The job is not a draft (it was started or deleted) and cannot be started.',
  },
  certificate_not_ready: {
    da: 'Jobbet har intet certifikat endnu: det får et, når det er tjekket færdigt.',
    en: 'The job has no certificate yet: it gets one when its check is done.',
  },
  warnings_unconfirmed: {
    da: 'Tjekket er ikke startet: kolonneopsætningen har advarsler, som ikke er bekræftet.',
    en: 'The check was not started: the column mapping has warnings that were not confirmed.',
  },
  // The same refusal naming the warnings (their texts: services/ingest/files/mapping-warnings.ts).
  warnings_unconfirmed_listed: {
    da: 'Tjekket er ikke startet: {warnings} Ret kolonnerne, eller start med confirm_warnings: true.',
    en: 'The check was not started: {warnings} Fix the columns, or start with confirm_warnings: true.',
  },
  rate_limited: {
    da: 'For mange forespørgsler. Vent det antal sekunder, Retry-After angiver.',
    en: 'Too many requests. Wait the number of seconds given by Retry-After.',
  },
  quota_open_drafts: {
    da: 'Organisationen har så mange kladder, som den må have. Start eller slet nogle, og prøv igen.',
    en: 'The organisation has as many drafts as it may have. Start or delete some and try again.',
  },
  quota_queued_rows: {
    da: 'Organisationen har så mange rækker i kø til tjek, som den må have. Prøv igen, når nogle er tjekket.',
    en: 'The organisation has as many rows waiting to be checked as it may have. Try again when some are done.',
  },
  quota_parallel_uploads: {
    da: 'Organisationen har allerede så mange filer under indlæsning, som den må have på én gang. Prøv igen om lidt.',
    en: 'The organisation already has as many files being read as it may have at once. Try again shortly.',
  },
  quota_previews: {
    da: 'For mange forhåndsvisninger på kort tid. Vent det antal sekunder, Retry-After angiver.',
    en: 'Too many previews in a short time. Wait the number of seconds given by Retry-After.',
  },
  quota_monitor_uploads: {
    da: 'Organisationen har oprettet eller udskiftet kontakter i overvågninger for mange gange på kort tid. Vent det antal sekunder, Retry-After angiver.',
    en: "The organisation has created monitors or replaced their contacts too often in a short time. Wait the number of seconds given by Retry-After.",
  },
  list_not_ready: {
    da: 'Der er endnu ingen aktiv version af listen. Prøv igen senere.',
    en: 'No list version is active yet. Try again later.',
  },
  spool_full: {
    da: 'Der er ikke plads til jobbet lige nu; intet er oprettet. Prøv igen senere.',
    en: 'There is no room for the job right now; nothing was created. Try again later.',
  },
  certificate_malformed: {
    da: 'Certifikatet kan ikke læses: det er ikke et certifikat fra denne tjeneste.',
    en: 'The certificate cannot be read: it is not a certificate from this service.',
  },
  certificate_unknown_key: {
    da: 'Certifikatet er underskrevet med en nøgle, som denne tjeneste ikke kender. Det er ikke gyldigt.',
    en: 'The certificate is signed with a key this service does not know. It is not valid.',
  },
  certificate_signature_invalid: {
    da: 'Certifikatets underskrift passer ikke: certifikatet er ændret efter udstedelsen og er ikke gyldigt.',
    en: 'The certificate signature does not match: it was changed after it was issued and is not valid.',
  },
  webhook_signature_invalid: {
    da: 'Signaturen i Payment-Signature mangler, passer ikke eller er for gammel.',
    en: 'The Payment-Signature is missing, does not match or is too old.',
  },
  payment_not_found: { da: 'Jobbet findes ikke.', en: 'The job was not found.' },
  payment_not_payable: {
    da: 'Jobbet venter ikke på betaling (det er slettet, fejlet eller har ingen pris).',
    en: 'The job is not awaiting payment (it was deleted, failed or has no price).',
  },
  payment_amount_mismatch: {
    da: 'Beløbet eller valutaen svarer ikke til jobbets pris.',
    en: "The amount or currency does not match the job's price.",
  },
  session_ended: {
    da: 'Du er ikke logget ind (eller din session er udløbet). Log ind igen.',
    en: 'You are not signed in (or your session has ended). Please sign in again.',
  },
  sign_in_failed: {
    da: 'E-mail, adgangskode eller kode fra godkendelses-appen passer ikke. Prøv igen.',
    en: 'The e-mail, password or code from your authenticator app is not right. Please try again.',
  },
  sign_in_throttled: {
    da: 'For mange forsøg på at logge ind. Vent et minut, og prøv igen.',
    en: 'Too many sign-in attempts. Wait a minute and try again.',
  },
  csrf_failed: {
    da: 'Siden skal genindlæses, før ændringen kan gemmes.',
    en: 'Reload the page before saving this change.',
  },
  people_only: {
    da: 'Kun en bruger, der er logget ind som administrator, kan administrere brugere, nøgler og indstillinger. En API-nøgle kan ikke.',
    en: 'Only a person signed in as an administrator can manage users, keys and settings. An API key cannot.',
  },
  admin_only: {
    da: 'Det kræver rollen administrator. Bed en administrator i jeres organisation om hjælp.',
    en: 'This needs the administrator role. Ask an administrator in your organisation.',
  },
  invitation_invalid: {
    da: 'Invitationslinket virker ikke længere (brugt, udløbet eller trukket tilbage). Bed om en ny invitation.',
    en: 'The invitation link no longer works (used, expired or withdrawn). Ask for a new invitation.',
  },
  password_length: {
    da: 'Adgangskoden skal være 12 til 200 tegn.',
    en: 'The password must be 12 to 200 characters.',
  },
  code_wrong: {
    da: 'Koden fra godkendelses-appen passer ikke. Tjek, at telefonens ur er rigtigt, og brug den nyeste kode.',
    en: "The code from the authenticator app is not right. Check the phone's clock and use the newest code.",
  },
  email_taken: {
    da: 'Der findes allerede en bruger med denne e-mailadresse.',
    en: 'A user with this e-mail address already exists.',
  },
  mail_unavailable: {
    da: 'Invitationen kunne ikke sendes, fordi e-mail ikke virker lige nu. Prøv igen senere.',
    en: 'The invitation could not be sent because e-mail is not working right now. Try again later.',
  },
  user_not_found: { da: 'Brugeren findes ikke.', en: 'The user was not found.' },
  key_not_found: { da: 'API-nøglen findes ikke.', en: 'The API key was not found.' },
  last_admin: {
    da: 'Organisationen skal have mindst én aktiv administrator. Gør en anden til administrator først.',
    en: 'The organisation must keep at least one active administrator. Make someone else an administrator first.',
  },
  internal_error: {
    da: 'Der opstod en intern fejl. Oplys request_id, hvis du kontakter os.',
    en: 'An internal error occurred. Quote the request_id if you contact us.',
  },
} satisfies Record<string, Record<Locale, string>>;

export type MessageKey = keyof typeof catalog;

/** Every message in both languages: the web page translates a shown error with it when its language changes. */
export function messageCatalogue(): Array<Record<Locale, string>> {
  return Object.values(catalog).map((text) => ({ da: text.da, en: text.en }));
}

export function message(key: MessageKey, locale: Locale): string {
  return catalog[key][locale];
}

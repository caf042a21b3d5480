import type { Locale } from '../domain/types.ts';

/**
 * Every human text the HTTP edge produces, in both languages. Messages never contain the
 * caller's values (they may be personal data); at most limits and allowed options from the schema.
 */
const catalog = {
  invalid_json: { da: 'Forespørgslens indhold er ikke gyldig JSON.', en: 'The request body is not valid JSON.' },
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
  rate_limited: {
    da: 'For mange forespørgsler. Vent det antal sekunder, Retry-After angiver.',
    en: 'Too many requests. Wait the number of seconds given by Retry-After.',
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
  internal_error: {
    da: 'Der opstod en intern fejl. Oplys request_id, hvis du kontakter os.',
    en: 'An internal error occurred. Quote the request_id if you contact us.',
  },
} satisfies Record<string, Record<Locale, string>>;

export type MessageKey = keyof typeof catalog;

export function message(key: MessageKey, locale: Locale): string {
  return catalog[key][locale];
}

import type { MappedField } from '../../domain/check-job.ts';

/**
 * The column headers customers' files carry, Danish and English, for each field a file column can
 * map to. Compared after normaliseHeader: case, spaces, punctuation and the Danish letters
 * (æ/ae, ø/oe, å/aa) make no difference, so `Post nr.`, `POSTNR` and `postnr` are one header.
 * Pure: values in, values out.
 */
const HEADERS: Readonly<Record<MappedField, readonly string[]>> = {
  name: ['navn', 'fuldtnavn', 'fuldenavn', 'kundenavn', 'kontaktperson', 'modtager', 'name', 'fullname', 'contactname', 'customername', 'recipient'],
  first_name: ['fornavn', 'fornavne', 'firstname', 'givenname', 'forename'],
  last_name: ['efternavn', 'mellemogefternavn', 'lastname', 'surname', 'familyname'],
  address: ['adresse', 'gadeadresse', 'postadresse', 'adresse1', 'adresselinje1', 'address', 'streetaddress', 'address1', 'addressline1', 'postaladdress'],
  street: ['vejnavn', 'vej', 'gade', 'gadenavn', 'street', 'streetname', 'road'],
  house_number: ['husnr', 'husnummer', 'nr', 'housenumber', 'houseno', 'streetnumber', 'buildingnumber'],
  floor: ['etage', 'sal', 'floor', 'storey'],
  door: ['doer', 'sidedoer', 'side', 'lejlighed', 'door', 'apartment', 'flat', 'unit'],
  postal_code: ['postnr', 'postnummer', 'postkode', 'postalcode', 'postcode', 'zip', 'zipcode', 'postno'],
  city: ['by', 'bynavn', 'postdistrikt', 'city', 'town'],
  phone: ['telefon', 'telefonnr', 'telefonnummer', 'tlf', 'tlfnr', 'mobil', 'mobilnr', 'mobilnummer', 'mobiltelefon', 'phone', 'phonenumber', 'telephone', 'mobile', 'mobilephone', 'cell', 'cellphone'],
  cvr: ['cvr', 'cvrnr', 'cvrnummer', 'cvrno', 'companyregistrationnumber', 'companynumber', 'vatnumber'],
  company_name: ['firma', 'firmanavn', 'virksomhed', 'virksomhedsnavn', 'company', 'companyname', 'organisation', 'organization', 'business'],
  external_id: ['kundenr', 'kundenummer', 'kundeid', 'id', 'customerid', 'customerno', 'customernumber', 'externalid', 'ref', 'reference', 'referencenr'],
};

const FIELD_OF = new Map<string, MappedField>();
for (const [field, names] of Object.entries(HEADERS) as Array<[MappedField, readonly string[]]>) {
  for (const name of names) FIELD_OF.set(name, field);
}

export function normaliseHeader(header: string): string {
  return header
    .toLowerCase()
    .replace(/æ/g, 'ae')
    .replace(/ø/g, 'oe')
    .replace(/å/g, 'aa')
    .normalize('NFKD')
    .replace(/[^a-z0-9]/g, '');
}

/** The field a header names, or null. */
export function fieldOfHeader(header: string | null): MappedField | null {
  if (header === null) return null;
  return FIELD_OF.get(normaliseHeader(header)) ?? null;
}

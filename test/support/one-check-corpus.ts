/**
 * One corpus for "one check, every channel" (docs/addresses.md "One check, every channel"): list
 * members at real Danish addresses written as the CPR list and the address register write them
 * (the register's short addressing name, "Borgm Christiansensg"), people written as customer
 * spreadsheets write them (the full street name, no postal code, the town in the city column),
 * plain cases that need no register, sole proprietors whose owners are list members, and people
 * a phone number finds. The addresses are real DAR addresses (streets, house numbers, postal
 * districts, the addressing names DAR gives them); the people are made up.
 *
 * Every channel's answer is compared field for field with the synchronous call's, with and
 * without the register, so the corpus holds cases whose answer depends on the register (level 5
 * with it, 0 or `address_unreadable` without) beside cases that do not.
 */
import { randomUUID } from 'node:crypto';
import type { RegisterAddress } from '../../services/domain/address-register.ts';
import type { CompanyRecord, DirectoryEntry } from '../../services/domain/index.ts';
import type { ListEntry, PersonInput } from '../../services/domain/types.ts';
import type { AddressStore, AddressVersion } from '../../services/platform/store/addresses-port.ts';

type Unit = Omit<RegisterAddress, 'accessId' | 'floor' | 'door'>;

function access(id: string, unit: Unit, floorsDoors: Array<[string | null, string | null]>): RegisterAddress[] {
  return floorsDoors.map(([floor, door]) => ({ accessId: id, ...unit, floor, door }));
}

/** The register: every unit of the corpus's buildings (DAR's fields; addressing names as DAR writes them). */
export const CORPUS_REGISTER: RegisterAddress[] = [
  ...access('0a3f5081-dd5b-32b8-e044-0003ba298018', {
    street: 'Borgmester Christiansens Gade', addressingName: 'Borgm Christiansensg', houseNumber: '45', postalCode: '2450',
    postalName: 'København SV', town: null, kommunekode: '0101', vejkode: '0780',
  }, [['st', 'th'], ['st', 'tv'], ['1', 'th'], ['1', 'tv'], ['2', 'th'], ['2', 'tv']]),
  ...access('0a3f507a-b2e6-32b8-e044-0003ba298018', {
    street: 'Skeevej', addressingName: null, houseNumber: '39B', postalCode: '4370', postalName: 'Store Merløse', town: 'Skee',
    kommunekode: '0316', vejkode: '1431',
  }, [[null, null]]),
  ...access('0a3f509e-6d9d-32b8-e044-0003ba298018', {
    street: 'Ridehusgade', addressingName: null, houseNumber: '49', postalCode: '5000', postalName: 'Odense C', town: null,
    kommunekode: '0461', vejkode: '5880',
  }, [['st', 'th'], ['st', 'tv'], ['1', 'th'], ['1', 'tv']]),
  ...access('0a3f5098-1c0e-32b8-e044-0003ba298018', {
    street: 'Hans Christian Andersens Boulevard', addressingName: 'H C Andersens Boul', houseNumber: '12', postalCode: '1553',
    postalName: 'København V', town: null, kommunekode: '0101', vejkode: '2792',
  }, [['1', null], ['2', null], ['3', null]]),
  ...access('0a3f50a1-7c55-32b8-e044-0003ba298018', {
    street: 'Nørregade', addressingName: null, houseNumber: '7', postalCode: '5000', postalName: 'Odense C', town: null,
    kommunekode: '0461', vejkode: '4920',
  }, [['1', 'th'], ['2', 'th'], ['2', 'tv']]),
];

/** The list: members as the CPR list writes them ("Surname,Given names"), some under the register's addressing name. */
export const CORPUS_LIST: ListEntry[] = [
  { name: 'Kjær-Hansen,Vibeke Maja', address: 'Borgm Christiansensg 45, st. th, 2450 København SV' },
  { name: 'Holm,Ida', address: 'Skeevej 39B, 4370 Store Merløse' },
  { name: 'Frølich,Ida', address: 'Ridehusgade 49, st. tv, 5000 Odense C' },
  { name: 'Møller,Preben', address: 'H C Andersens Boul 12, 2., 1553 København V' },
  { name: 'Hansen,Anne', address: 'Nørregade 7, 2. th, 5000 Odense C' },
  { name: 'Lund,Karen', address: 'Strandvejen 100, 2900 Hellerup' },
];

/**
 * The people, one row each, written as a spreadsheet with the columns Kundenr., Navn, Adresse,
 * Postnr., By holds them (so every channel, files included, carries the same fields).
 */
export const CORPUS_PEOPLE: PersonInput[] = [
  // The register's full name for a street the list writes by its addressing name: 5 only with the register.
  { id: 'p01', name: 'Vibeke Maja Kjær-Hansen', address: 'Borgmester Christiansens Gade 45, st. th', postal_code: '2450', city: 'København SV' },
  { id: 'p02', name: 'Vibeke Maja Kjær-Hansen', address: 'Borgmester Christiansens Gade 45, st. th, 2450 København SV' },
  { id: 'p03', name: 'Preben Møller', address: 'Hans Christian Andersens Boulevard 12, 2. sal', postal_code: '1553', city: 'København V' },
  // The same building, another flat, and someone else in the flat.
  { id: 'p04', name: 'Vibeke Maja Kjær-Hansen', address: 'Borgmester Christiansens Gade 45, 2. tv, 2450 København SV' },
  { id: 'p05', name: 'Jens Kjær-Hansen', address: 'Borgmester Christiansens Gade 45, st. th, 2450 København SV' },
  // No postal code: the town names one postal district (with the register), else unreadable.
  { id: 'p06', name: 'Ida Holm', address: 'Skeevej 39B, Skee, Store Merløse' },
  { id: 'p07', name: 'Ida Holm', address: 'Skeevej 39B', city: 'Skee, Store Merløse' },
  { id: 'p08', name: 'Ida Frølich', address: 'Ridehusgade 49, st. tv', city: 'Odense C' },
  // Plain cases the text alone answers (the register only adds confidence).
  { id: 'p09', name: 'Ida Frølich', address: 'Ridehusgade 49, st. tv, 5000 Odense C' },
  { id: 'p10', name: 'Ida Frølich', address: 'Ridehusgade 49, 1. th', postal_code: '5000', city: 'Odense C' },
  { id: 'p11', name: 'Ole Frølich', address: 'Ridehusgade 49, st. tv, 5000 Odense C' },
  { id: 'p12', name: 'Anne Hansen', address: 'Nørregade 7, 2. th, 5000 Odense C' },
  { id: 'p13', name: 'Anne Jensen', address: 'Nørregade 7, 2. th, 5000 Odense C' },
  { id: 'p14', name: 'Karen Lund', address: 'Strandvejen 100, 2900 Hellerup' },
  // A misspelt street, an address the register does not have, a stranger, no name, no address.
  { id: 'p15', name: 'Ida Frølich', address: 'Ridehusgde 49, st. tv, 5000 Odense C' },
  { id: 'p16', name: 'Anne Hansen', address: 'Nørregade 99, 5000 Odense C' },
  { id: 'p17', name: 'Per Berg', address: 'Vestergade 3, 8000 Aarhus C' },
  { id: 'p18', address: 'Nørregade 7, 2. th, 5000 Odense C' },
  { id: 'p19', name: 'Anne Hansen', address: '?' },
];

/** Sole proprietors and companies (CVR register test double: the CVR feed cannot run here). */
export const CORPUS_COMPANIES: CompanyRecord[] = [
  // The owner is a list member written as customers write her street: 5 only with the register.
  { cvr: '25313763', name: 'Vibekes Keramik', form: 'ENK', protected: false, owner: { name: 'Vibeke Maja Kjær-Hansen', address: 'Borgmester Christiansens Gade 45, st. th, 2450 København SV' } },
  // No postal code in the owner's address.
  { cvr: '31662834', name: 'Holms Have', form: 'ENK', protected: false, owner: { name: 'Ida Holm', address: 'Skeevej 39B, Skee, Store Merløse' } },
  { cvr: '29403473', name: 'Frølich Rideskole', form: 'ENK', protected: false, owner: { name: 'Ida Frølich', address: 'Ridehusgade 49, st. tv, 5000 Odense C' } },
  { cvr: '10150817', name: 'Beskyttet ApS', form: 'ApS', protected: true, owner: null },
  { cvr: '35408002', name: 'Bergs Tømrer', form: 'ENK', protected: false, owner: { name: 'Per Berg', address: 'Vestergade 3, 8000 Aarhus C' } },
];

/** The phone directory (test double: the directory provider cannot run here). */
export const CORPUS_DIRECTORY: DirectoryEntry[] = [
  { number: '+4522334455', name: 'Vibeke Maja Kjær-Hansen', address: 'Borgmester Christiansens Gade 45, st. th, 2450 København SV', listed: true },
  { number: '+4533445566', name: 'Ida Holm', address: 'Skeevej 39B, Skee, Store Merløse', listed: true },
  { number: '+4544556677', name: 'Anne Hansen', address: 'Nørregade 7, 2. th, 5000 Odense C', listed: true },
  { number: '+4555667788', name: 'Per Berg', address: 'Vestergade 3, 8000 Aarhus C', listed: true },
  { number: '+4566778899', name: 'Hemmelig Person', address: 'Skjultvej 1, 8000 Aarhus C', listed: false },
];

/** Company rows (check_companies) and phone rows (check_phones) of a job. */
export const CORPUS_COMPANY_ROWS = CORPUS_COMPANIES.map((c, i) => ({ id: `c${i + 1}`, cvr: c.cvr }));
export const CORPUS_PHONE_ROWS = [
  ...CORPUS_DIRECTORY.map((e, i) => ({ id: `t${i + 1}`, phone: e.number.replace('+45', '') })),
  { id: 't9', phone: '99 88 77 66' },
];

/** The ids of the people whose answer the register changes (level or readability), for the test to prove it matters. */
export const REGISTER_DEPENDENT = ['p01', 'p02', 'p03', 'p06', 'p07'];

/** Imports the corpus's register as a sealed version and activates it, as `addresses import --activate` does. */
export async function importCorpusRegister(store: AddressStore): Promise<AddressVersion> {
  const version: AddressVersion = {
    id: randomUUID(), published_on: '2026-11-01', created_at: new Date().toISOString(), activated_at: null, address_count: 0,
  };
  await store.createAddressVersion(version);
  await store.appendAddresses(version.id, CORPUS_REGISTER);
  await store.sealAddressVersion(version.id);
  return store.activateAddressVersion(version.id, new Date().toISOString());
}

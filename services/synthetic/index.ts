/**
 * Synthetic Danish people, addresses and Robinson lists for tests, the bench and the demo list of
 * `npm start`. Deterministic: the same seed gives the same data on every machine.
 */
export { createRng, hashString, type Rng } from './rng.ts';
export {
  PREVIOUS_ADDRESS_SHARE,
  SYNTHETIC_PUBLISHED_ON,
  addressLine,
  districtStreetNames,
  generateCprFile,
  generateCprFileChunks,
  generateCprRecords,
  generateListEntries,
  generateSyntheticPeople,
  kvhxOf,
  randomAddress,
  randomPerson,
  toCprRecord,
  toListEntry,
  type SyntheticAddress,
  type SyntheticPerson,
} from './generate.ts';
export {
  BEYOND_CONTRACT_KINDS,
  VARIATION_KINDS,
  variantOf,
  variationApplies,
  type VariationKind,
} from './variants.ts';
export { generatePeople, generatePeopleOnUnknownStreets } from './non-members.ts';
export { cvrExtractChunks, generateCompanies, randomCompany, type SyntheticCompany } from './companies.ts';

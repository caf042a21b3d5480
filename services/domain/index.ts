/**
 * The pure matching core: names, addresses, list index, matching, status policy, test mode.
 * Other services import it from here; the job model (check-job.ts, job-state.ts) is imported
 * from its own modules.
 */
export { normalizeText } from './normalize.ts';
export { parseAddress, parseAddressLine, unitKeyOf, type ParsedAddress } from './address.ts';
export {
  buildAddressRegister, createAddressRegisterBuilder, type AddressRegister, type AddressRegisterBuilder,
  type RegisterAddress,
} from './address-register.ts';
export { resolveParsed, resolveWithRegister, registerAddress, type RegisterMatch } from './register-resolve.ts';
export { resolveAddressText } from './resolve.ts';
export { parseName, type ParsedName } from './name.ts';
export {
  buildListIndex, createListIndexBuilder, type ListIndex, type ListIndexBuilder,
} from './list-index.ts';
export { checkPeople, checkPerson } from './check.ts';
export { statusFor, matchLabel } from './status.ts';
export {
  testModeCheck, testModePhoneLookup, testModeDirectoryEntry, isTestProtectedCvr, TEST_LIST_VERSION, testModeCompany, TEST_REGISTER_SYNCED_AT,
} from './test-mode.ts';
export {
  formatKvhx, tryFormatKvhx, parseKvhx, canonicalKvhx, KVHX_LENGTH, type KvhxParts,
} from './kvhx.ts';
export { canonicalCvr, passesModulus11, cvrProblem, cvrWithCheckDigit, isReservedTestCvr, type CvrProblem } from './cvr.ts';
export {
  decideCompany, findCompany, soleOwnerOf, createCompanyIndexBuilder,
  type CompanyRecord, type CompanyInput, type CompanyCheckResult, type CompanyIndex,
} from './company.ts';
export {
  normalisePhone, phoneCheckResult, createPhoneIndexBuilder, type DirectoryEntry, type PhoneIndex,
} from './phone.ts';
export { checkJobRow, testRowLookups, type JobRowInput, type JobChecks, type RowLookups } from './job-row.ts';
export type * from './types.ts';
export { applyPrivateList } from './private-list.ts';

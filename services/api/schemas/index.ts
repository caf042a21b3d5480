/** Every API schema; importing this module fills the `apiSchemas` registry used for OpenAPI. */
export * from './registry.ts';
export * from './enums.ts';
export * from './person-input.ts';
export * from './match.ts';
export * from './resolved-address.ts';
export * from './list-version-ref.ts';
export * from './check-result.ts';
export * from './error.ts';
export * from './checks.ts';
export * from './addresses.ts';
export * from './check-job.ts';
export * from './companies.ts';
export * from './phones.ts';
export * from './monitor.ts';

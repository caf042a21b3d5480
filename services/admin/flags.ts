import { AdminInputError } from './organisations.ts';

/** Command-line flags as cli.ts parses them (commands.ts exports the same shape). */
export type Flags = Record<string, string | boolean | undefined>;

/** A flag holding JSON as the API takes it (column_mapping / options), parsed by `parse`. */
export function jsonFlag<T>(flags: Flags, name: string, parse: (value: unknown) => T): T | undefined {
  const text = optional(flags, name);
  if (text === undefined) return undefined;
  try {
    return parse(JSON.parse(text));
  } catch {
    throw new AdminInputError(`--${name} must be JSON as the API takes it (column_mapping / options)`);
  }
}

export function optional(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new AdminInputError(`--${name} needs a value`);
  return value;
}

export function required(flags: Flags, name: string): string {
  const value = optional(flags, name);
  if (value === undefined) throw new AdminInputError(`missing --${name}`);
  return value;
}

import { newTokens, tokenize } from './normalize.ts';
import type { ListEntry, PersonInput } from './types.ts';

/**
 * A name as matching sees it (DECISIONS §1): normalised given names (first and middle names, in
 * order) and one normalised surname (the last word). `surname` is '' only when the caller gave a
 * first name and nothing else.
 */
export interface ParsedName {
  given: string[];
  surname: string;
}

const tokens = newTokens();

/** The folded words of a text (the words of normalizeText, without building the whole string). */
function words(text: string | undefined): string[] {
  if (typeof text !== 'string' || text.length === 0) return [];
  const t = tokenize(text, tokens);
  return t.norm.slice(0, t.count);
}

/**
 * Splits surname words: the last one is the surname, the ones before it join the given names as
 * middle names. So "Anne Møller Hansen", "Møller Hansen, Anne" and first "Anne" + last
 * "Møller-Hansen" all read as given [anne, moeller], surname hansen.
 */
function fromParts(given: string[], surnameWords: string[]): ParsedName | null {
  if (surnameWords.length === 0) {
    if (given.length === 0) return null;
    return { given, surname: '' };
  }
  const surname = surnameWords[surnameWords.length - 1];
  for (let i = 0; i < surnameWords.length - 1; i++) given.push(surnameWords[i]);
  return { given, surname };
}

function fromFullName(name: string): ParsedName | null {
  const comma = name.indexOf(',');
  if (comma >= 0) {
    // Surname first: "Hansen, Anne" and the CPR file's "Hansen,Anne".
    const surnameWords = words(name.slice(0, comma));
    const given = words(name.slice(comma + 1));
    if (surnameWords.length > 0) return fromParts(given, surnameWords);
    // ", Anne Hansen": nothing before the comma, read the rest as a plain full name.
    return given.length === 0 ? null : fromParts(given, [given.pop() as string]);
  }
  const all = words(name);
  if (all.length === 0) return null;
  const surname = all.pop() as string;
  return { given: all, surname };
}

/**
 * The name of a person or list entry, or null when there is none. `last_name` (with `first_name`)
 * wins over `name` (it is the more structured input); without a last name, `name`; with neither,
 * a lone `first_name` gives given names and an empty surname.
 */
export function parseName(person: PersonInput | ListEntry): ParsedName | null {
  if (person === null || typeof person !== 'object') return null;
  const surnameWords = words(person.last_name);
  if (surnameWords.length > 0) return fromParts(words(person.first_name), surnameWords);
  const fromName = typeof person.name === 'string' ? fromFullName(person.name) : null;
  return fromName ?? fromParts(words(person.first_name), []);
}

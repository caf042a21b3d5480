import { newTokens, tokenize, type Tokens } from './normalize.ts';
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

/**
 * A name read into storage the caller reuses (checkPerson reads one per input): the given names
 * are given[0 .. givenCount); the array is longer after a longer name.
 */
export interface NameWords {
  given: string[];
  givenCount: number;
  surname: string;
}

const first = newTokens();
const second = newTokens();

/** The folded words of a text in `into` (the words of normalizeText); their count. */
function wordsOf(text: unknown, into: Tokens): number {
  return typeof text === 'string' && text.length > 0 ? tokenize(text, into).count : 0;
}

/**
 * Given names `given[givenFrom, givenTo)`, then the surname words `surnames[surnameFrom,
 * surnameTo)`: the last surname word is the surname, the ones before it join the given names as
 * middle names. So "Anne Møller Hansen", "Møller Hansen, Anne" and first "Anne" + last
 * "Møller-Hansen" all read as given [anne, moeller], surname hansen.
 */
function put(
  out: NameWords, given: Tokens, givenFrom: number, givenTo: number, surnames: Tokens, surnameFrom: number,
  surnameTo: number,
): void {
  let n = 0;
  for (let i = givenFrom; i < givenTo; i++) out.given[n++] = given.norm[i];
  for (let i = surnameFrom; i < surnameTo - 1; i++) out.given[n++] = surnames.norm[i];
  out.givenCount = n;
  out.surname = surnameTo > surnameFrom ? surnames.norm[surnameTo - 1] : '';
}

/**
 * Reads the name of a person or list entry into `out`; false when there is none. `last_name`
 * (with `first_name`) wins over `name` (it is the more structured input); without a last name,
 * `name` ("Anne Hansen", or surname first: "Hansen, Anne" and the CPR file's "Hansen,Anne");
 * with neither, a lone `first_name` gives given names and an empty surname.
 */
export function readNameInto(person: PersonInput | ListEntry, out: NameWords): boolean {
  if (person === null || typeof person !== 'object') return false;
  const surnames = wordsOf(person.last_name, first);
  if (surnames > 0) {
    put(out, second, 0, wordsOf(person.first_name, second), first, 0, surnames);
    return true;
  }
  const name = person.name;
  const count = wordsOf(name, first);
  if (count > 0) {
    const comma = (name as string).indexOf(',');
    // The words before the comma are the surname words ("Hansen, Anne").
    let beforeComma = 0;
    if (comma >= 0) while (beforeComma < count && first.start[beforeComma] < comma) beforeComma++;
    if (beforeComma > 0) put(out, first, beforeComma, count, first, 0, beforeComma);
    else put(out, first, 0, 0, first, 0, count); // no comma, or nothing before it (", Anne Hansen")
    return true;
  }
  const given = wordsOf(person.first_name, second);
  if (given === 0) return false;
  put(out, second, 0, given, second, 0, 0);
  return true;
}

/** The name `words` holds as an object of its own. */
export function toParsedName(words: NameWords): ParsedName {
  return { given: words.given.slice(0, words.givenCount), surname: words.surname };
}

const scratch: NameWords = { given: [], givenCount: 0, surname: '' };

/** The name of a person or list entry (readNameInto as its own object), or null when there is none. */
export function parseName(person: PersonInput | ListEntry): ParsedName | null {
  return readNameInto(person, scratch) ? toParsedName(scratch) : null;
}

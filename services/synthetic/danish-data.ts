/**
 * Word lists for synthetic Danish people and addresses. Made-up combinations of common names and
 * real postal districts; no real person or address is intended. Names with æ, ø, å and with a
 * written `aa` are included on purpose: they are where matching goes wrong.
 */

export const GIVEN_NAMES: readonly string[] = [
  // women
  'Anne', 'Kirsten', 'Mette', 'Hanne', 'Helle', 'Susanne', 'Lene', 'Maria', 'Marianne', 'Lone',
  'Camilla', 'Pia', 'Louise', 'Inge', 'Charlotte', 'Bente', 'Tina', 'Gitte', 'Karen', 'Ida',
  'Emma', 'Sofie', 'Julie', 'Birgitte', 'Jytte', 'Dorthe', 'Rikke', 'Signe', 'Laura', 'Freja',
  'Astrid', 'Åse', 'Bodil', 'Grethe', 'Ingrid', 'Søs', 'Mathilde', 'Kamma', 'Sørine', 'Else',
  'Ellen', 'Vibeke', 'Tove', 'Malene', 'Nanna', 'Line', 'Cecilie', 'Maja', 'Karoline', 'Agnete',
  // men
  'Søren', 'Bjørn', 'Jørgen', 'Jørn', 'Børge', 'Åge', 'Knud', 'Ole', 'Jens', 'Peter',
  'Lars', 'Niels', 'Hans', 'Michael', 'Henrik', 'Thomas', 'Anders', 'Morten', 'Jesper', 'Mads',
  'Rasmus', 'Mikkel', 'Christian', 'Martin', 'Frederik', 'Kasper', 'Torben', 'Poul', 'Erik', 'Per',
  'Kim', 'Steen', 'Bo', 'Claus', 'Carsten', 'Finn', 'Kristian', 'Emil', 'Oliver', 'William',
  'Noah', 'Lucas', 'Magnus', 'Malthe', 'Aksel', 'Villads', 'Asger', 'Tørk', 'Ebbe', 'Aage',
];

export const SURNAMES: readonly string[] = [
  'Nielsen', 'Jensen', 'Hansen', 'Pedersen', 'Andersen', 'Christensen', 'Larsen', 'Sørensen',
  'Rasmussen', 'Jørgensen', 'Petersen', 'Madsen', 'Kristensen', 'Olsen', 'Thomsen', 'Christiansen',
  'Poulsen', 'Johansen', 'Møller', 'Mortensen', 'Knudsen', 'Jakobsen', 'Mikkelsen', 'Olesen',
  'Frederiksen', 'Laursen', 'Henriksen', 'Lund', 'Holm', 'Schmidt', 'Eriksen', 'Kristiansen',
  'Clausen', 'Simonsen', 'Svendsen', 'Andreasen', 'Iversen', 'Jeppesen', 'Mogensen', 'Jacobsen',
  'Vestergaard', 'Nissen', 'Lauridsen', 'Kjær', 'Jepsen', 'Mathiasen', 'Skov', 'Søndergaard',
  'Østergaard', 'Bækgaard', 'Dalsgaard', 'Kjærgaard', 'Højgaard', 'Nørgaard', 'Bøgh', 'Brøndum',
  'Aagaard', 'Aaberg', 'Daugaard', 'Damgaard', 'Thygesen', 'Bach', 'Friis', 'Dahl', 'Krogh',
  'Ravn', 'Winther', 'Bruun', 'Lindberg', 'Fischer', 'Bang', 'Overgaard', 'Gregersen', 'Mølgaard',
  'Kirkegaard', 'Fogh', 'Ærenlund', 'Løvgreen', 'Hvidberg', 'Sørup', 'Grønbæk', 'Brødsgaard',
];

/** Surnames that come before the last one in a double surname ("Skov Jensen"). */
export const FIRST_SURNAMES: readonly string[] = [
  'Holm', 'Skov', 'Lund', 'Due', 'Bach', 'Krogh', 'Friis', 'Dahl', 'Bech', 'Juul', 'Storm',
  'Vinther', 'Bøgh', 'Kjær', 'Møller', 'Lykke',
];

const STREET_ROOTS: readonly string[] = [
  'Birke', 'Ege', 'Bøge', 'Ahorn', 'Linde', 'Rose', 'Viol', 'Tofte', 'Skole', 'Kirke', 'Mølle',
  'Eng', 'Skov', 'Bakke', 'Park', 'Sø', 'Strand', 'Have', 'Kilde', 'Ager', 'Mark', 'Lærke', 'Ørne',
  'Æble', 'Nørre', 'Vester', 'Øster', 'Sønder', 'Konge', 'Dronning', 'Prinse', 'Frederiks',
  'Christians', 'Hyben', 'Hassel', 'Elme', 'Kastanie', 'Pile', 'Rønne', 'Tjørne', 'Fasan',
  'Svane', 'Stær', 'Vibe', 'Mose', 'Fjord', 'Havne', 'Torve', 'Stations', 'Rådhus', 'Kloster',
  'Præste', 'Smede', 'Bryggers', 'Vinkel', 'Tvær', 'Ny', 'Å', 'Aa', 'Bred', 'Lang', 'Grøn',
];

const STREET_SUFFIXES: readonly string[] = [
  'vej', 'vej', 'vej', 'gade', 'gade', 'stræde', 'vænget', 'parken', 'toften', 'bakken', 'haven',
  'engen', 'stien', 'løkken',
];

/** Saints of Danish street names, for "Sankt …". */
const SAINTS: readonly string[] = [
  'Hans', 'Knuds', 'Jørgens', 'Annæ', 'Peders', 'Mortens', 'Clemens', 'Pauls', 'Jakobs', 'Nikolaj',
  'Mikkels', 'Gertruds',
];

const ALLE_ROOTS: readonly string[] = [
  'Frederiksberg', 'Bispebjerg', 'Tuborg', 'Vigerslev', 'Søndre', 'Nordre', 'Østre', 'Vestre',
  'Solbjerg', 'Kastels', 'Lyngby', 'Ålholm', 'Rolighed', 'Carlsberg', 'Enghave',
];

/**
 * The street names of the synthetic country, in a fixed order (independent of any seed). Plain
 * compounds ("Birkevej"), "Gammel …", "Sankt … Gade/Vej/Plads" and "… Allé". At most
 * MAX_STREET_LENGTH characters, so that street, house number, floor and door fit the CPR file's
 * 34-character Standardadresse ("Gammel Christiansvænget 89D, kl. mf" would not).
 */
const MAX_STREET_LENGTH = 22;
export const STREET_NAMES: readonly string[] = (() => {
  const names = new Set<string>();
  for (const root of STREET_ROOTS) for (const suffix of STREET_SUFFIXES) names.add(root + suffix);
  const plain = [...names];
  for (let i = 0; i < plain.length; i += 6) names.add(`Gammel ${plain[i]}`);
  for (const saint of SAINTS) for (const kind of [' Gade', ' Vej', ' Plads']) names.add(`Sankt ${saint}${kind}`);
  for (const root of ALLE_ROOTS) names.add(`${root} Allé`);
  return [...names].filter((name) => name.length <= MAX_STREET_LENGTH);
})();

export interface PostalDistrict {
  postal_code: string;
  city: string;
  kommunekode: string;
}

const DISTRICTS: ReadonlyArray<readonly [string, string, string]> = [
  ['1050', 'København K', '0101'], ['1250', 'København K', '0101'], ['1550', 'København V', '0101'],
  ['1620', 'København V', '0101'], ['1850', 'Frederiksberg C', '0147'], ['2000', 'Frederiksberg', '0147'],
  ['2100', 'København Ø', '0101'], ['2200', 'København N', '0101'], ['2300', 'København S', '0101'],
  ['2400', 'København NV', '0101'], ['2450', 'København SV', '0101'], ['2500', 'Valby', '0101'],
  ['2600', 'Glostrup', '0161'], ['2605', 'Brøndby', '0153'], ['2610', 'Rødovre', '0175'],
  ['2620', 'Albertslund', '0165'], ['2630', 'Taastrup', '0169'], ['2650', 'Hvidovre', '0167'],
  ['2660', 'Brøndby Strand', '0153'], ['2670', 'Greve', '0253'], ['2700', 'Brønshøj', '0101'],
  ['2720', 'Vanløse', '0101'], ['2730', 'Herlev', '0163'], ['2750', 'Ballerup', '0151'],
  ['2760', 'Måløv', '0151'], ['2770', 'Kastrup', '0185'], ['2791', 'Dragør', '0155'],
  ['2800', 'Kongens Lyngby', '0173'], ['2820', 'Gentofte', '0157'], ['2840', 'Holte', '0230'],
  ['2850', 'Nærum', '0230'], ['2860', 'Søborg', '0159'], ['2870', 'Dyssegård', '0157'],
  ['2880', 'Bagsværd', '0159'], ['2900', 'Hellerup', '0157'], ['2920', 'Charlottenlund', '0157'],
  ['2950', 'Vedbæk', '0230'], ['2970', 'Hørsholm', '0223'], ['2990', 'Nivå', '0210'],
  ['3000', 'Helsingør', '0217'], ['3400', 'Hillerød', '0219'], ['3460', 'Birkerød', '0230'],
  ['3500', 'Værløse', '0190'], ['3650', 'Ølstykke', '0240'], ['3700', 'Rønne', '0400'],
  ['4000', 'Roskilde', '0265'], ['4600', 'Køge', '0259'], ['4700', 'Næstved', '0370'],
  ['4800', 'Nykøbing F', '0376'], ['5000', 'Odense C', '0461'], ['5200', 'Odense V', '0461'],
  ['5700', 'Svendborg', '0479'], ['5970', 'Ærøskøbing', '0492'], ['6000', 'Kolding', '0621'],
  ['6100', 'Haderslev', '0510'], ['6200', 'Aabenraa', '0580'], ['6400', 'Sønderborg', '0540'],
  ['6700', 'Esbjerg', '0561'], ['7100', 'Vejle', '0630'], ['7400', 'Herning', '0657'],
  ['7500', 'Holstebro', '0661'], ['8000', 'Aarhus C', '0751'], ['8200', 'Aarhus N', '0751'],
  ['8210', 'Aarhus V', '0751'], ['8600', 'Silkeborg', '0740'], ['8700', 'Horsens', '0615'],
  ['8800', 'Viborg', '0791'], ['8900', 'Randers C', '0730'], ['9000', 'Aalborg', '0851'],
  ['9400', 'Nørresundby', '0851'], ['9800', 'Hjørring', '0860'], ['9900', 'Frederikshavn', '0813'],
];

export const POSTAL_DISTRICTS: readonly PostalDistrict[] = DISTRICTS.map(([postal_code, city, kommunekode]) => ({
  postal_code,
  city,
  kommunekode,
}));

export const DOORS: readonly string[] = ['tv', 'th', 'mf'];

import type { DocumentFields } from '../types.ts';
import { createRng, type Rng } from './rng.ts';

/**
 * Plausible made-up identities for generated documents: names as printed (accents, hyphens,
 * apostrophes, particles: the MRZ transliterates them), dates, document numbers and ICAO codes,
 * including the specimen code UTO. Reproducible from the seed.
 */
const SURNAMES = [
  'Müller', 'García', 'Núñez', "O'Brien", 'Dupont-Moretti', 'Østergaard', 'Łukasiewicz', 'Smith', 'Nguyen',
  'Kowalski', 'Andersson', 'Rossi', 'Papadopoulos', 'Jäger', 'Çelik', 'Šimić', 'Ferreira', 'van der Berg',
  'Fernández López', 'Eriksson', 'Schröder', 'Dubois', 'Lefèvre', 'Novák', 'Horváth', 'Johansson', 'Brown',
  'Martin', 'Bianchi', 'Kovačević', 'Mäkinen', 'Þórsson', 'Wiśniewska', 'De Luca', 'Ó Súilleabháin', 'Yılmaz',
  'Petrov', 'Santos', 'Dvořák', 'Lindqvist', 'MacDonald', 'Zimmermann', 'Gruber', 'Ivanova', 'Baptiste-Lamy',
  'Quintero', 'Vázquez', 'Kim', 'Okafor', 'Haddad', 'Al-Rashid', 'Weiß', 'Öztürk', 'Llorente', 'Ahn',
];
const GIVEN_NAMES = [
  'Zoë', 'José', 'Anne-Marie', 'François', 'Björn', 'Ana María', 'Jean-Luc', 'Søren', 'Agnieszka', 'Mohammed',
  'Chloé', 'Łucja', 'Renée', 'Ignacio', 'Giulia', 'Tomás', 'Ólafur', 'Anna', 'Maria', 'Peter', 'John', 'Émilie',
  'Jörg', 'Ines', 'Kateřina', 'Marek', 'Sofia', 'Lars', 'Henrik', 'Aoife', 'Siobhán', 'Matteo', 'Lucía',
  'Noémie', 'Grzegorz', 'Hélène', 'Dmitri', 'Yusuf', 'Elif', 'Oskar', 'Liam', 'Emma', 'Olivia', 'Noah', 'Ada',
  'Karl-Heinz', 'Marie-Claire', 'Pål', 'Åsa', 'Zsófia', 'Gábor', 'Nikola', 'Miloš', 'Amélie', 'Quentin',
];
/** Issuing states: real ICAO codes (Germany is `D`) and the specimen code UTO. */
const GENERATOR_COUNTRIES = [
  'UTO', 'FRA', 'D', 'ESP', 'ITA', 'NLD', 'BEL', 'POL', 'SWE', 'GBR', 'USA', 'CAN', 'PRT', 'AUT', 'IRL', 'CHE',
  'NOR', 'DNK', 'FIN', 'GRC', 'CZE', 'EST', 'LUX', 'HRV', 'ROU', 'HUN', 'ISL', 'TUR', 'MEX', 'BRA',
] as const;

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';

export function randomIdentity(seed: number): DocumentFields {
  const rng = createRng(seed * 7919 + 17);
  const country = rng.pick(GENERATOR_COUNTRIES);
  // Mostly a citizen of the issuing state; sometimes another nationality (residence cards, UTO specimens).
  const nationality = rng.next() < 0.85 ? country : rng.pick(GENERATOR_COUNTRIES);
  const given = rng.next() < 0.3 ? `${rng.pick(GIVEN_NAMES)} ${rng.pick(GIVEN_NAMES)}` : rng.pick(GIVEN_NAMES);
  const surname = rng.next() < 0.12 ? `${rng.pick(SURNAMES)}-${rng.pick(SURNAMES)}` : rng.pick(SURNAMES);
  const birth = randomDate(rng, 1945, 2007);
  const expiry = randomDate(rng, 2023, 2036);
  const sexRoll = rng.next();
  const fields: DocumentFields = {
    issuing_country: country,
    document_number: documentNumber(rng),
    surname,
    given_names: given,
    nationality,
    birth_date: birth,
    sex: sexRoll < 0.48 ? 'F' : sexRoll < 0.97 ? 'M' : 'X',
    expiry_date: expiry,
  };
  if (rng.next() < 0.4) fields.optional_data = Array.from({ length: 4 + rng.int(6) }, () => rng.pick(DIGITS + LETTERS.slice(0, 6))).join('');
  return fields;
}

/** Nine characters, in the shapes states use: all digits, letters then digits, or mixed. */
function documentNumber(rng: Rng): string {
  const shape = rng.int(3);
  const chars = Array.from({ length: 9 }, (_, i) => {
    if (shape === 0) return rng.pick(DIGITS);
    if (shape === 1) return i < 2 ? rng.pick(LETTERS) : rng.pick(DIGITS);
    return rng.pick(LETTERS + DIGITS);
  });
  return chars.join('');
}

function randomDate(rng: Rng, fromYear: number, toYear: number): string {
  const start = Date.UTC(fromYear, 0, 1);
  const end = Date.UTC(toYear, 11, 31);
  return new Date(start + Math.floor(rng.next() * (end - start) / 86_400_000) * 86_400_000).toISOString().slice(0, 10);
}

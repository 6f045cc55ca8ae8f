import { ALL_COUNTRIES, isCountryCode, normaliseCountries } from '@idv/domain';
import { ApiError } from '../../http/api-error.ts';

/** Countries of a clearance: assigned ISO codes or `*`, in canonical form. */
export function clearanceCountries(countries: string[]): string[] {
  const bad = countries.find((c) => c !== ALL_COUNTRIES && !isCountryCode(c));
  if (bad) throw new ApiError('invalid_country', `${bad} is not an assigned ISO 3166-1 alpha-2 code.`, 'countries');
  return normaliseCountries(countries);
}

// Geo-based identity of a visitor (docs/decisions/019-chat.md): "Visitor from Tokyo #1A2B" and the raw
// location `<country_code>|<city>`. Pure: the IP lookup happens in clients/geo-lookup.ts.
import { truncateText } from '@svc/types';

/** What an offline IP database knows; empty strings where it knows nothing. */
export interface GeoPlace {
  country: string;
  city: string;
}

const CITY_MAX_LENGTH = 80;
const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/** Strips what the location format and a display name cannot hold. */
function cleanCity(city: string): string {
  const cleaned = city
    .replace(/[|\p{Cc}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return truncateText(cleaned, CITY_MAX_LENGTH).trim();
}

function countryCode(place: GeoPlace | null): string | undefined {
  const code = place?.country.toUpperCase() ?? '';
  return /^[A-Z]{2}$/.test(code) ? code : undefined;
}

/** `<country_code>|<city>` (city may be empty), or null when even the country is unknown. */
export function formatSenderLocation(place: GeoPlace | null): string | null {
  const code = countryCode(place);
  return code ? `${code}|${cleanCity(place!.city)}` : null;
}

/** English name of a country code, or the code itself when unknown to ICU. */
export function countryName(code: string): string {
  try {
    return regionNames.of(code) ?? code;
  } catch {
    return code;
  }
}

/** "Visitor from <city>", else "Visitor from <country>", else "Visitor"; plus the tag. */
export function geoSenderName(place: GeoPlace | null, tag: string): string {
  const city = place ? cleanCity(place.city) : '';
  const code = countryCode(place);
  const where = city || (code ? countryName(code) : '');
  return where ? `Visitor from ${where} #${tag}` : `Visitor #${tag}`;
}

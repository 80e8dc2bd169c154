// The API from the browser: same origin, the browser sends its own HttpOnly session cookie.
import { SvcClient } from '@svc/client';

let client: SvcClient | undefined;

export function browserApi(): SvcClient {
  client ??= new SvcClient({ baseUrl: window.location.origin, credentials: 'same-origin' });
  return client;
}

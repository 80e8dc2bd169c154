// What the HTTP server (server/app.ts) hands every loader and action: settings and facts
// about this request. Loaders read it with `context.get(webRequest)`.
import { createContext } from 'react-router';

export interface WebRequest {
  /** Where the server itself calls the API (the gateway, inside the deployment). */
  apiBaseUrl: string;
  /** The public origin (canonical URLs, Open Graph, hreflang). */
  publicBaseUrl: string;
  /** Set when the CAPTCHA is enabled: the widget's site key (public by design). */
  captchaSiteKey: string | undefined;
  /** The reader's address, passed on to the API so per-client limits stay per client. */
  clientIp: string;
  /** This response's CSP nonce. */
  nonce: string;
  requestId: string;
}

export const webRequest = createContext<WebRequest>();

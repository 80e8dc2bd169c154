// The CSP nonce of the page being rendered on the server. In the browser there is none
// (scripts added after load come from 'self').
import { createContext, useContext } from 'react';

const NonceContext = createContext<string | undefined>(undefined);

export const NonceProvider = NonceContext.Provider;

export function useNonce(): string | undefined {
  return useContext(NonceContext);
}

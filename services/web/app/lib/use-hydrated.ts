// False in the server's HTML and until React has hydrated, then true: controls that only
// work with JavaScript (boost, like, translate, copy, verify, a <dialog>, the login forms)
// stay disabled until they can work.
import { useEffect, useState } from 'react';

export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

// False in the server's HTML and until React has hydrated: controls that need JavaScript
// (a <dialog>, the clipboard) stay disabled until they can work.
import { useEffect, useState } from 'react';

export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

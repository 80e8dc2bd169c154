// The request URL as the access log and the server spans record it: the path and query as
// sent, except the values that name a person, which are replaced by what they are. A line
// still says which endpoint and which filter a request used; logs and traces are kept and
// shipped far more widely than the data stores, and an erased account must not live on in
// them (docs/privacy.md, "Logs and traces").
//
// What names a person in a URL here: an e-mail address (the moderator paths
// `/api/auth/moderators/{email}`), a user id under `/internal/users/` (auth's export and
// deletion calls), and an audit filter's `user:<id>` or `ip:<hash>` sender.

/** Internal paths whose next segment is a user id. */
const USER_ID_PATH = /^(\/internal\/users\/)[^/?#]+/;
/** A muted sender as the chat audit names it. */
const SENDER = /^(user|ip):./;

const decoded = (s: string): string => {
  try {
    return decodeURIComponent(s.replaceAll('+', ' '));
  } catch {
    return s;
  }
};

const personalValue = (raw: string): string | undefined => {
  const value = decoded(raw);
  if (value.includes('@')) return '{email}';
  const sender = SENDER.exec(value);
  return sender ? `${sender[1]}:{id}` : undefined;
};

/** `url`: a path, with or without its query. */
export function recordedUrl(url: string): string {
  const q = url.indexOf('?');
  const rawPath = q === -1 ? url : url.slice(0, q);
  const path = rawPath
    .replace(USER_ID_PATH, '$1{id}')
    .split('/')
    .map((segment) => (decoded(segment).includes('@') ? '{email}' : segment))
    .join('/');
  if (q === -1) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return pair;
      const masked = personalValue(pair.slice(eq + 1));
      return masked === undefined ? pair : `${pair.slice(0, eq)}=${masked}`;
    })
    .join('&');
  return `${path}?${query}`;
}

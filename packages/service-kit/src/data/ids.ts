// Ids the services hand out (users, apps, API keys, sites, boosts, messages): nanoid's
// length and randomness (21 characters, ~125 bits), but letters and digits only, so an id
// never starts with '-' (a command line such as `svc sites boost <id>` would read it as an
// option) and never needs escaping in a path, a query or a file name.
import { customAlphabet } from 'nanoid';

export const ID_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const ID_LENGTH = 21;

export const newId: () => string = customAlphabet(ID_ALPHABET, ID_LENGTH);

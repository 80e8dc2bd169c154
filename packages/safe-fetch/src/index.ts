export {
  createSafeFetcher,
  type SafeFetcher,
  type SafeFetcherOptions,
  type FetchedPage,
  type Resolver,
} from './fetcher.js';
export { OutboundBlockedError, OutboundFetchError, type OutboundFailure } from './errors.js';
export { isPublicAddress } from './address-policy.js';
export { decodeHtml, charsetFromContentType, charsetFromMeta } from './charset.js';
export { checkPublicUrl, type UrlPolicyResult, type UrlPolicyOptions } from './url-policy.js';

// HTTP errors as values the error handler turns into `{ "error": ... }` JSON.
import { ERROR_MESSAGES } from '@svc/types';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message = 'Bad request', details?: unknown) =>
  new HttpError(400, message, details);
export const unauthorized = (message: string = ERROR_MESSAGES.authenticationRequired) =>
  new HttpError(401, message);
export const forbidden = (message = 'Forbidden') => new HttpError(403, message);
export const notFound = (message = 'Not found') => new HttpError(404, message);
export const conflict = (message: string) => new HttpError(409, message);
export const serviceUnavailable = () => new HttpError(503, ERROR_MESSAGES.serviceUnavailable);

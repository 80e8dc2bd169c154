// The chat express app, built from injected dependencies (tests pass their own).
import type { Express } from 'express';
import {
  createEventPublisher,
  createServiceApp,
  postgresCheck,
  redisCheck,
  sessionMiddleware,
  type SessionVerifyKeys,
  type Logger,
  type Metrics,
  type Redis,
} from '@svc/service-kit';
import { createChatRoom, type ChatRoom } from './actions/chat-room.js';
import { createDeleteUserData } from './actions/delete-user-data.js';
import { geoipLiteLookup, type GeoLookup } from './clients/geo-lookup.js';
import { registerInternalRoutes } from './routes/internal-routes.js';
import { registerMessageRoutes } from './routes/message-routes.js';
import { createChatStore, type ChatDb } from './store/store.js';
import { primaryReads, type ChatReads } from './store/read-routing.js';
import { createUserDeletionStore } from './store/user-deletion-store.js';
import { createUserExportStore } from './store/user-export-store.js';

export interface AppDeps {
  logger: Logger;
  metrics?: Metrics;
  db: ChatDb;
  /**
   * Where GET /api/messages reads (store/read-routing.ts): main.ts builds it with the read
   * replicas; unset = every read on `db`.
   */
  reads?: ChatReads;
  redis: Redis;
  redisPrefix: string;
  /** ES256 public key verifying sn_token sessions. */
  /** The public keys that verify sessions (`loadJwtKeys(...).verifyKeys`, or one PEM). */
  publicKey: SessionVerifyKeys;
  ipHashSecret: string;
  internalToken: string;
  geo?: GeoLookup;
  /** express trust-proxy setting (TRUSTED_PROXIES): the gateway. */
  trustProxy?: string | boolean | number;
}

/** The read router of `deps`, or one that reads the primary. */
export function readsOf(deps: AppDeps): ChatReads {
  return deps.reads ?? primaryReads(createChatStore(deps.db), deps.metrics?.registry);
}

export function buildRoom(deps: AppDeps): ChatRoom {
  return createChatRoom({
    store: createChatStore(deps.db),
    reads: readsOf(deps),
    events: createEventPublisher(deps.redis, deps.redisPrefix),
    redis: deps.redis,
    redisPrefix: deps.redisPrefix,
    geo: deps.geo ?? geoipLiteLookup,
    ipHashSecret: deps.ipHashSecret,
    logger: deps.logger,
  });
}

export function buildApp(deps: AppDeps, room: ChatRoom = buildRoom(deps)): Express {
  return createServiceApp({
    service: 'chat',
    logger: deps.logger,
    metrics: deps.metrics,
    trustProxy: deps.trustProxy,
    // Chat bodies are at most 200 characters; 4 KiB leaves room for JSON escaping.
    bodyLimit: '4kb',
    readiness: {
      postgres: postgresCheck(deps.db),
      redis: redisCheck(deps.redis),
      ...(deps.reads?.readiness ?? {}),
    },
    routes: (app) => {
      registerInternalRoutes(app, {
        room,
        exports: createUserExportStore({
          db: deps.db,
          redis: deps.redis,
          redisPrefix: deps.redisPrefix,
        }),
        deleteUser: createDeleteUserData({
          store: createUserDeletionStore(deps.db),
          redis: deps.redis,
          redisPrefix: deps.redisPrefix,
          logger: deps.logger,
        }),
        internalToken: deps.internalToken,
      });
      registerMessageRoutes(app, {
        room,
        redis: deps.redis,
        redisPrefix: deps.redisPrefix,
        session: sessionMiddleware({
          publicKey: deps.publicKey,
          redis: deps.redis,
          prefix: deps.redisPrefix,
        }),
      });
    },
  });
}

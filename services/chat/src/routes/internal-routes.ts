// Internal calls (docs/decisions/034-data-export.md): realtime's entrance reports, auth's
// data export and account deletion (docs/decisions/035-account-deletion.md). Under /internal,
// which the gateway never forwards; the shared INTERNAL_TOKEN guards the port itself.
import type { Express } from 'express';
import { ENTRANCE_PATH, EntranceRequestBody } from '@svc/types';
import { registerUserDeletion, registerUserExport, requireInternalToken } from '@svc/service-kit';
import type { ChatRoom } from '../actions/chat-room.js';
import { toChatExportPart } from '../domain/user-export.js';
import type { UserExportStore } from '../store/user-export-store.js';

export function registerInternalRoutes(
  app: Express,
  deps: {
    room: ChatRoom;
    exports: UserExportStore;
    deleteUser: (userId: string, pseudonym: string) => Promise<void>;
    internalToken: string;
  },
): void {
  const internal = requireInternalToken(deps.internalToken);

  app.post(ENTRANCE_PATH, internal, async (req, res) => {
    const { ip } = EntranceRequestBody.parse(req.body);
    res.json({ message: await deps.room.entrance(ip) });
  });

  // What chat holds about one user, as their data export's chat section.
  registerUserExport(app, deps.internalToken, async (userId) =>
    toChatExportPart(userId, await deps.exports.read(userId)),
  );

  // The user deleted their account: their messages stay under a deleted user's name.
  registerUserDeletion(app, deps.internalToken, deps.deleteUser);
}

// Every page path (part of the public contract: /sitemap.xml and links point at them).
// One block per area; each area's modules live in its own folder under routes/.
import { index, route, type RouteConfig } from '@react-router/dev/routes';

export default [
  // Site sharing: home (sites, daily background, submit, chat) and one site.
  index('routes/sites/home.tsx'),
  route('site/:id', 'routes/sites/site.tsx'),

  // Account: login with an emailed code, username, bookmarks, submissions, logout.
  route('login', 'routes/account/login.tsx'),
  route('me', 'routes/account/me.tsx'),
  route('me/bookmarks', 'routes/account/bookmarks.tsx'),
  route('me/submissions', 'routes/account/submissions.tsx'),

  // App store: listing, one app, the reader's desktop, the developer dashboard.
  route('apps', 'routes/apps/apps.tsx'),
  route('apps/:slug', 'routes/apps/app.tsx'),
  route('desktop', 'routes/apps/desktop.tsx'),
  route('developer', 'routes/apps/developer.tsx'),
  route('developer/apps/:slug', 'routes/apps/developer-app.tsx'),

  // Moderation (moderators only; others the 403 page): the report queue, an app's reports
  // and decisions, the audit log, sites and chat by id.
  route('moderation', 'routes/moderation/queue.tsx'),
  route('moderation/apps/:slug', 'routes/moderation/app.tsx'),
  route('moderation/audit', 'routes/moderation/audit.tsx'),
  route('moderation/tools', 'routes/moderation/tools.tsx'),

  // Anything else: the HTML 404 page.
  route('*', 'routes/not-found.tsx'),
] satisfies RouteConfig;

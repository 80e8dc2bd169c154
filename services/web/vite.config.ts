// Vite builds the browser bundle (build/client, hashed under /assets) and the server
// bundle (build/server) that server/main.ts serves.
import { reactRouter } from '@react-router/dev/vite';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [reactRouter()],
  resolve: {
    // Workspace packages resolve to their built dist/ (as in production), not src/.
    conditions: ['module', 'browser', 'production', 'default'],
  },
  build: {
    // No source maps in the shipped client: the bundle budget counts what browsers download.
    sourcemap: false,
  },
});

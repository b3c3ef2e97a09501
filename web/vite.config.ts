import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The hosted pages (dashboard, merchant onboarding, buyer checkout): one single-page build that the API
 * server serves from web/dist (index.html for the page routes, /assets/* and /favicon.svg as files).
 * `npm run build:web` builds it; `vite --config web/vite.config.ts` serves it with the API proxied to a
 * local `npm start` on :3000 (or API_ORIGIN).
 */
const root = fileURLToPath(new URL('.', import.meta.url));
const api = process.env.API_ORIGIN ?? 'http://localhost:3000';

export default defineConfig({
  root,
  base: '/',
  publicDir: 'public',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    chunkSizeWarningLimit: 900,
    rollupOptions: {
      // viem's dependency ox imports node:worker_threads in a Node-only helper (tempo's worker pool) that the
      // pages never call; Vite externalises it for the browser and says so on every build. Only that notice is
      // dropped: any other externalised module still warns.
      onwarn(warning, warn) {
        if (/"node:worker_threads" has been externalized/.test(warning.message) && /[\\/]ox[\\/]/.test(warning.message)) return;
        warn(warning);
      },
    },
  },
  server: {
    port: 5173,
    proxy: { '/v1': api, '/api': api, '/health': api },
  },
});

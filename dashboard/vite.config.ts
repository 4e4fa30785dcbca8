import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';

/** The published API contracts, shipped as docs/*.yaml wherever the app is served: the overview links them. */
const apiDocuments: Plugin = {
  name: 'api-documents',
  apply: 'build',
  generateBundle() {
    for (const name of ['openapi.yaml', 'control-api.yaml']) {
      const source = readFileSync(resolve(import.meta.dirname, '..', 'openapi', name), 'utf8');
      this.emitFile({ type: 'asset', fileName: `docs/${name}`, source });
    }
  },
};

// Root is this folder (`npx vite build dashboard`, or `root: 'dashboard'` programmatically);
// the build goes to dashboard/dist. No React plugin: Vite 8 compiles TSX with Oxc, whose default
// is React's automatic runtime (react/jsx-runtime). Fast Refresh is not needed for this app.
export default defineConfig({
  base: './',
  plugins: [apiDocuments],
  build: { target: 'es2022' },
  // `npx vite dashboard` while `npm start` runs: the app from source, its config and API from the
  // local platform's dashboard server (default port 3002).
  server: {
    host: '127.0.0.1',
    proxy: {
      '/config.json': 'http://127.0.0.1:3002',
      '/api': 'http://127.0.0.1:3002',
    },
  },
  preview: { host: '127.0.0.1' },
});

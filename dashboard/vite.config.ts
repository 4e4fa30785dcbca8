import { defineConfig } from 'vite';

// Root is this folder (`npx vite build dashboard`, or `root: 'dashboard'` programmatically);
// the build goes to dashboard/dist. No React plugin: Vite 8 compiles TSX with Oxc, set here to
// React's automatic runtime (react/jsx-runtime). Fast Refresh is not needed for this app.
export default defineConfig({
  base: './',
  oxc: {
    jsx: { runtime: 'automatic', importSource: 'react' },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
  },
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

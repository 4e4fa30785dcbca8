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
    sourcemap: true,
  },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
});

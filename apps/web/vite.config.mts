import { defaultClientConditions, defineConfig } from 'vite';

// Static assets only: the API serves dist/ at / under a CSP that allows nothing inline and nothing from elsewhere.
export default defineConfig({
  // Preact's JSX runtime, compiled by Vite itself (no Babel plugin needed for a build without hot reload of components).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // Our packages' TypeScript sources, so the dashboard builds before (or without) their compiled output.
  resolve: { conditions: ['@docshelf/source', ...defaultClientConditions] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The preload polyfill would be an inline script; every browser the dashboard supports has modulepreload.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
  server: { proxy: { '/api': 'http://127.0.0.1:3000', '/admin': 'http://127.0.0.1:3000' } },
});

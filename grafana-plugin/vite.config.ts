import { defineConfig } from 'vitest/config';

// Grafana loads a plugin's module.js as an AMD module and hands it its own
// copies of these packages; bundling them would break the plugin.
const provided = [
  'react',
  'react-dom',
  'rxjs',
  'lodash',
  '@emotion/css',
  '@emotion/react',
  /^@grafana\/(data|runtime|ui|schema|i18n|e2e-selectors)(\/.*)?$/,
  /^rxjs\/.*/,
];

export default defineConfig({
  build: {
    outDir: 'dist',
    // The backend binaries and the Go build manifest live in dist/ too.
    emptyOutDir: false,
    target: 'es2020',
    sourcemap: false,
    minify: true,
    copyPublicDir: false,
    rollupOptions: {
      input: 'src/module.ts',
      external: provided,
      preserveEntrySignatures: 'strict',
      output: {
        format: 'amd',
        entryFileNames: 'module.js',
        inlineDynamicImports: true,
      },
    },
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./vitest.setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: false,
    testTimeout: 30000,
    // @grafana/ui imports CSS files and @grafana/data named exports of CommonJS
    // packages; let Vite, not Node, load them.
    server: { deps: { inline: [/@grafana\//] } },
  },
});

import { defineConfig } from 'vitest/config';

import base from './vite.config';

// The check of the built bundle; runs after `npm run build`.
export default defineConfig({
  ...base,
  test: { ...base.test, include: ['tests/**/*.test.{ts,tsx}'] },
});

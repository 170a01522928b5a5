import '@testing-library/jest-dom/vitest';
import { configure } from '@testing-library/react';
import { vi } from 'vitest';

// The CI machine has 2 cores shared with the Go tests: be patient.
configure({ asyncUtilTimeout: 5000 });

// jsdom lacks what @grafana/ui's components measure with.
class ResizeObserverStub {
  observe() {}
  unobserve() {}
  disconnect() {}
}
Object.defineProperty(window, 'ResizeObserver', { writable: true, value: ResizeObserverStub });
Object.defineProperty(window, 'IntersectionObserver', { writable: true, value: ResizeObserverStub });
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: (query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  }),
});

// Grafana's icons load their SVG asynchronously; in tests that only adds
// state updates outside act(). Render icons as empty spans.
vi.mock('react-inlinesvg', () => ({ default: () => null }));

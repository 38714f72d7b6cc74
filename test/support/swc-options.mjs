/**
 * How specs and the code they import are compiled: legacy decorators with
 * decorator metadata (Nest's injection reads `design:paramtypes`),
 * `useDefineForClassFields` as TypeScript's ES2024 target emits, class names
 * kept, ES module output. Used by jest.config.mjs (`@swc/jest`, unit specs)
 * and by the e2e runner's module hook (typescript-hooks.mjs).
 */
export const swcOptions = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    target: 'es2022',
    keepClassNames: true,
    transform: {
      legacyDecorator: true,
      decoratorMetadata: true,
      useDefineForClassFields: true,
    },
  },
  sourceMaps: 'inline',
};

/**
 * Node module hooks (module.registerHooks, in-thread and synchronous) that
 * let plain Node import the TypeScript sources as the e2e runner's workers
 * do: a `.ts` file outside node_modules is compiled by @swc/core with the
 * same options as Jest's transform, as an ES module, and a relative
 * specifier without an extension (as the sources write them) resolves to
 * `<specifier>.ts` or `<specifier>/index.ts`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';
import { transformSync } from '@swc/core';
import { swcOptions } from './swc-options.mjs';

const KNOWN_EXTENSION = /\.(?:[cm]?js|json|node|[cm]?ts)$/;

function isOwnSource(url) {
  return url.startsWith('file:') && !url.includes('/node_modules/');
}

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (
      (specifier.startsWith('./') || specifier.startsWith('../')) &&
      !KNOWN_EXTENSION.test(specifier) &&
      context.parentURL &&
      isOwnSource(context.parentURL)
    ) {
      for (const suffix of ['.ts', '/index.ts']) {
        const url = new URL(specifier + suffix, context.parentURL);
        if (existsSync(fileURLToPath(url)))
          return { url: url.href, format: 'module', shortCircuit: true };
      }
    }
    return nextResolve(specifier, context);
  },
  load(url, context, nextLoad) {
    if (!isOwnSource(url)) return nextLoad(url, context);
    const path = fileURLToPath(url);
    if (!path.endsWith('.ts')) return nextLoad(url, context);
    const { code } = transformSync(readFileSync(path, 'utf8'), {
      ...swcOptions,
      filename: path,
      module: { type: 'es6' },
    });
    return { format: 'module', source: code, shortCircuit: true };
  },
});

// A module resolution hook (see register.mjs): the conformance suite's
// imports of fs resolve to fs.mjs; every other import is left alone.
export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') &&
      context.parentURL?.includes('/@modelcontextprotocol/conformance/')) {
    return { url: new URL('./fs.mjs', import.meta.url).href, shortCircuit: true };
  }
  return next(specifier, context);
}

// node:fs, with globSync where the running Node lacks it (before 22): it
// then fails when called, which only the suite's tier-check does.
import fs from 'node:fs';

export * from 'node:fs';
export default fs;
export const globSync = fs.globSync ?? (() => {
  throw new Error('fs.globSync needs Node.js 22 or later');
});

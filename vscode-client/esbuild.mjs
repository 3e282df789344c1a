// Bundles the extension and its one dependency (vscode-languageclient) into dist/extension.js,
// so the .vsix needs no node_modules.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/extension.ts'],
  bundle: true,
  outfile: 'dist/extension.js',
  external: ['vscode'],
  format: 'cjs',
  platform: 'node',
  target: 'node18',
  sourcemap: false,
  minify: process.argv.includes('--minify'),
  logLevel: 'info',
});

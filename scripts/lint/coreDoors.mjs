// The lint rule `arbor/core-doors` (see eslint.config.mjs), in its own module so that its unit
// test (test/unit/architecture/coreDoors.test.ts) runs it on examples.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const coreDir = path.join(root, 'src', 'core');

/**
 * `arbor/core-doors`: an import from the editor layer that lands in src/core must name the core
 * (`../core`) or a folder directly under it that has an index.ts (`../core/agents`). A new
 * module folder with its own index.ts is a door at once, without changing this file.
 */
export const coreDoors = {
  meta: {
    type: 'problem',
    docs: { description: 'The editor layer enters src/core only through its index.ts doors.' },
    schema: [],
    messages: {
      deep: "'{{source}}' reaches behind the core's doors: import from '{{door}}' (src/core/index.ts or a src/core/<folder>/index.ts) instead.",
    },
  },
  create(context) {
    // The core's own modules import each other freely.
    const here = path.relative(coreDir, context.filename);
    if (!here.startsWith('..') && !path.isAbsolute(here)) return {};
    const check = (node) => {
      // import/export ... from, import(), import('...').Type, import x = require('...')
      const source = node.source?.value ?? node.argument?.literal?.value ?? node.moduleReference?.expression?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path.resolve(path.dirname(context.filename), source);
      const relative = path.relative(coreDir, target);
      if (relative.startsWith('..') || path.isAbsolute(relative)) return;
      const parts = relative === '' ? [] : relative.split(path.sep);
      const isDoor = parts.length === 0 || (parts.length === 1 && fs.existsSync(path.join(coreDir, parts[0], 'index.ts')));
      if (isDoor) return;
      const folder = parts.length > 1 && fs.existsSync(path.join(coreDir, parts[0], 'index.ts')) ? parts[0] : '';
      const door = path.relative(path.dirname(context.filename), folder ? path.join(coreDir, folder) : coreDir).split(path.sep).join('/');
      context.report({ node, messageId: 'deep', data: { source, door } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check, TSImportType: check, TSImportEqualsDeclaration: check };
  },
};

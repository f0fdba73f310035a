// `node --import ./bench/compare/metafileRegister.mjs esbuild.mjs --production`: the tree's own
// build, with the metafile of each bundle written into ARBOR_METAFILE_DIR (see metafileHooks.mjs).
import { register } from 'node:module';

register('./metafileHooks.mjs', import.meta.url);

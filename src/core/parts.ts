// The parts of the core that only some runs need, each loaded the first time it is used (see
// partLoader.ts). In the production build each is a bundle of its own (dist/<name>.js, built by
// scripts/lib/bundleParts.mjs): each require() here loads that bundle, and nothing else may
// import a part's module, so dist/arbor.js holds these loaders only. Under tsx (tests) the
// module itself loads. A part's module may use anything the start bundle holds; what it alone
// uses (a package such as picomatch) lives in its bundle.
/* eslint-disable @typescript-eslint/no-require-imports -- loading each part on first use is the point */
import { partOnFirstUse } from './partLoader';
import type * as FileSearch from './workspace/fileSearch';
import type * as OpenAiCompatible from './models/openAiCompatible';
import type * as ScriptedModel from './models/scriptedModel';
import type * as WorkspaceToolRuns from './tools/workspaceToolRuns';

/** Listing and searching the workspace's files (ripgrep or the Node walk) and matching globs: picomatch and ignore. */
export const fileSearchPart = partOnFirstUse('file listing and search (dist/fileSearch.js)', () => require('./workspace/fileSearch') as typeof FileSearch);

/** What the workspace tools do when a model calls them: numbered reads, exact edits and the diffs a human approves. */
export const workspaceToolRunsPart = partOnFirstUse('the workspace tools (dist/workspaceToolRuns.js)', () => require('./tools/workspaceToolRuns') as typeof WorkspaceToolRuns);

/** The OpenAI-compatible HTTP provider: its streamed requests, retries and event-stream parsing. */
export const openAiCompatiblePart = partOnFirstUse('the OpenAI-compatible model provider (dist/openAiCompatible.js)', () => require('./models/openAiCompatible') as typeof OpenAiCompatible);

/** The scripted model: the demo model without an API key, and the model a script file plays. */
export const scriptedModelPart = partOnFirstUse('the scripted model (dist/scriptedModel.js)', () => require('./models/scriptedModel') as typeof ScriptedModel);

/**
 * The core of one source tree, loaded from that tree's own files: this checkout, or a baseline
 * commit that bench/compare.mjs exported to a temporary folder. The workloads beside this file
 * are written once against today's types and run against either tree through what this returns.
 *
 * Only the core's doors are loaded (src/core, src/core/models, src/core/sessions), never a module
 * behind them, so that moving a file inside a module does not break the comparison. Where a
 * baseline lacks something a workload uses, the difference is adapted here, not in the workload;
 * none of the APIs used differ between 99d4058 and today. The one adaptation: 99d4058's models
 * door also loads the `openai` package; when that could not be installed for the baseline, the
 * scripted model is taken from its own module instead.
 */
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type * as zod from 'zod';

type CoreDoor = typeof import('../../src/core');
type ModelsDoor = typeof import('../../src/core/models');
type SessionsDoor = typeof import('../../src/core/sessions');

export type Runtime = InstanceType<CoreDoor['Runtime']>;
export type RuntimeOptions = ConstructorParameters<CoreDoor['Runtime']>[0];
export type Agent = ReturnType<Runtime['startRoot']>;
export type ScriptedModel = InstanceType<ModelsDoor['ScriptedModel']>;
export type ScriptedModelOptions = ConstructorParameters<ModelsDoor['ScriptedModel']>[1];
export type SessionStore = InstanceType<SessionsDoor['JsonlSessionStore']>;
export type { ModelChunk, ModelProvider, ModelRequest } from '../../src/core/models';
export type { RuntimeTool } from '../../src/core';

export interface Core {
  /** The tree's root folder. */
  root: string;
  Runtime: CoreDoor['Runtime'];
  ScriptedModel: ModelsDoor['ScriptedModel'];
  JsonlSessionStore: SessionsDoor['JsonlSessionStore'];
  /** The tree's own zod, so that the schemas of a workload's tools are the kind its runtime reads. */
  z: typeof zod;
}

export function loadCore(root: string): Core {
  const load = createRequire(path.join(root, 'package.json'));
  const core = load('./src/core') as CoreDoor;
  const models = loadModels(load);
  const sessions = load('./src/core/sessions') as SessionsDoor;
  return { root, Runtime: core.Runtime, ScriptedModel: models.ScriptedModel, JsonlSessionStore: sessions.JsonlSessionStore, z: load('zod') as typeof zod };
}

function loadModels(load: NodeJS.Require): ModelsDoor {
  try {
    return load('./src/core/models') as ModelsDoor;
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'MODULE_NOT_FOUND') throw err;
    return load('./src/core/models/scriptedModel') as ModelsDoor;
  }
}

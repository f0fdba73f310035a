/**
 * The core of one source tree, loaded from that tree's own files: this checkout, or a baseline
 * commit that bench/compare.mjs exported to a temporary folder. The workloads beside this file
 * are written once against today's types and run against either tree through what this returns.
 *
 * Only the core's doors are loaded (src/core, src/core/models, src/core/sessions), never a module
 * behind them, so that moving a file inside a module does not break the comparison. Where a
 * baseline lacks something a workload uses, the difference is adapted here, not in the workload;
 * none of the APIs used differ between 99d4058 and today but three. 99d4058's models door also
 * loads the `openai` package; when that could not be installed for the baseline, the scripted
 * model is taken from its own module instead; today's door loads it on first use
 * (scriptedModelPart). And a tool's schema was the schema itself before
 * the core built schemas on first use (its door exports `once`); today it is a function that
 * returns it (`toolSchema`).
 */
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type * as zod from 'zod';

type CoreDoor = typeof import('../../src/core');
type ModelsDoor = typeof import('../../src/core/models');
/** The scripted model's own module: its class, which today's door reaches through scriptedModelPart. */
type ScriptedModule = typeof import('../../src/core/models/scriptedModel');
type SessionsDoor = typeof import('../../src/core/sessions');

export type Runtime = InstanceType<CoreDoor['Runtime']>;
export type RuntimeOptions = ConstructorParameters<CoreDoor['Runtime']>[0];
export type Agent = ReturnType<Runtime['startRoot']>;
export type ScriptedModel = InstanceType<ScriptedModule['ScriptedModel']>;
export type ScriptedModelOptions = ConstructorParameters<ScriptedModule['ScriptedModel']>[1];
export type SessionStore = InstanceType<SessionsDoor['JsonlSessionStore']>;
export type { ModelChunk, ModelProvider, ModelRequest } from '../../src/core/models';
import type { RuntimeTool } from '../../src/core';
export type { RuntimeTool };

export interface Core {
  /** The tree's root folder. */
  root: string;
  Runtime: CoreDoor['Runtime'];
  ScriptedModel: ScriptedModule['ScriptedModel'];
  JsonlSessionStore: SessionsDoor['JsonlSessionStore'];
  /** The session file format version the tree's store writes, for headers a workload makes. */
  sessionFormatVersion: number;
  /** The tree's own zod, so that the schemas of a workload's tools are the kind its runtime reads. */
  z: typeof zod;
  /** A tool's `schema` as this tree's runtime takes it, for a schema built once by the workload. */
  toolSchema: (schema: zod.ZodType) => RuntimeTool['schema'];
}

/** What bench/compare/coreBundle.mjs compiles: the doors, and the scripted model's own module on demand. */
interface CoreBundle {
  core: CoreDoor;
  sessions: SessionsDoor;
  zod: typeof zod;
  models?: Partial<ModelsDoor> & Partial<ScriptedModule>;
  scriptedModel: () => ScriptedModule;
}

/**
 * The core of the tree at `root`: the bundle bench:compare compiled from it, as the extension
 * ships it, when ARBOR_BENCH_CORE names one (bench/compare/coreBundle.mjs); else its sources,
 * compiled by tsx as they load (a workload run by hand).
 */
export function loadCore(root: string): Core {
  const bundle = process.env.ARBOR_BENCH_CORE;
  if (bundle) return fromBundle(root, createRequire(path.join(root, 'package.json'))(bundle) as CoreBundle);
  const load = createRequire(path.join(root, 'package.json'));
  const core = load('./src/core') as CoreDoor;
  const models = loadScripted(load);
  const sessions = load('./src/core/sessions') as SessionsDoor;
  return { root, Runtime: core.Runtime, ScriptedModel: models.ScriptedModel, JsonlSessionStore: sessions.JsonlSessionStore, sessionFormatVersion: sessions.SESSION_FORMAT_VERSION, z: load('zod') as typeof zod, toolSchema: toolSchemaOf(core) };
}

function fromBundle(root: string, bundle: CoreBundle): Core {
  const door = bundle.models;
  const models = door?.ScriptedModel ? (door as ScriptedModule) : door?.scriptedModelPart ? door.scriptedModelPart() : bundle.scriptedModel();
  const { core, sessions } = bundle;
  return { root, Runtime: core.Runtime, ScriptedModel: models.ScriptedModel, JsonlSessionStore: sessions.JsonlSessionStore, sessionFormatVersion: sessions.SESSION_FORMAT_VERSION, z: bundle.zod, toolSchema: toolSchemaOf(core) };
}

function toolSchemaOf(core: CoreDoor): Core['toolSchema'] {
  return 'once' in core ? (schema: zod.ZodType): RuntimeTool['schema'] => () => schema : schemaItself;
}

/** A baseline's tools hold the schema itself: today's type says otherwise, so it is typed as the tree's own. */
function schemaItself(schema: zod.ZodType): RuntimeTool['schema'] {
  const held: unknown = schema;
  return held as RuntimeTool['schema'];
}

/** The scripted model: from the models door, which today loads it as a part (scriptedModelPart) and a baseline's exports it. */
function loadScripted(load: NodeJS.Require): ScriptedModule {
  let door: Partial<ModelsDoor> & Partial<ScriptedModule>;
  try {
    door = load('./src/core/models') as Partial<ModelsDoor> & Partial<ScriptedModule>;
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'MODULE_NOT_FOUND') throw err;
    return load('./src/core/models/scriptedModel') as ScriptedModule;
  }
  return door.ScriptedModel ? (door as ScriptedModule) : door.scriptedModelPart!();
}

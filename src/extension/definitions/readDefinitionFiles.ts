// The part that reads agent definition files: the parser and its YAML library load only when a
// definition file exists (see definitionFiles.ts, and parts.ts).
import { parseDefinitionFile, resolveDefinitions, type DefinitionFileInput, type ResolvedDefinitions } from '../../core/definitions';

/** Every file parsed (each read whole or refused whole), then which of them are in use. */
export function readDefinitionFiles(files: readonly DefinitionFileInput[], knownTools: ReadonlySet<string>): ResolvedDefinitions {
  return resolveDefinitions(files.map((f) => parseDefinitionFile(f, knownTools)));
}

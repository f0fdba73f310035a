import * as vscode from 'vscode';
import { parseExternalAgents, type ExternalAgentConfig, type ExternalAgentDirectory } from '../../core/external';

const SECRET_PREFIX = 'arbor.externalAgent.secret:';
/** A served agent's token is kept as one of its secrets, under this name (no variable can be named so). */
const TOKEN_SECRET = 'token:Authorization';

/**
 * The external agents the user configured (`arbor.externalAgents`) and their secrets. The
 * setting is read from the user's settings only: it names programs to run, so a folder the
 * user opens cannot add one. Each entry is parsed (zod); a bad one is named in a warning and
 * left out. Secrets (the variables an entry lists in `secretEnv`, a served agent's token) live
 * in VS Code's secret storage, never in settings or the log.
 */
export class ExternalAgentSettings implements ExternalAgentDirectory {
  private cached: readonly ExternalAgentConfig[] | undefined;
  private warned = new Set<string>();

  constructor(
    private readonly secretStorage: vscode.SecretStorage,
    private readonly onProblem: (problem: string) => void,
  ) {}

  /** Forget the parsed setting (it changed). */
  reload(): void {
    this.cached = undefined;
  }

  list(): readonly ExternalAgentConfig[] {
    if (this.cached) return this.cached;
    const raw = vscode.workspace.getConfiguration('arbor').inspect<unknown>('externalAgents')?.globalValue;
    const { agents, problems } = parseExternalAgents(raw);
    for (const problem of problems) {
      if (this.warned.has(problem)) continue;
      this.warned.add(problem);
      this.onProblem(problem);
    }
    return (this.cached = agents);
  }

  static secretName(agent: string, variable: string): string {
    return `${SECRET_PREFIX}${agent}:${variable}`;
  }

  async secrets(config: ExternalAgentConfig): Promise<Record<string, string>> {
    const values: Record<string, string> = {};
    for (const variable of config.secretEnv ?? []) {
      const value = await this.secretStorage.get(ExternalAgentSettings.secretName(config.name, variable));
      if (value) values[variable] = value;
    }
    return values;
  }

  storeSecret(config: ExternalAgentConfig, variable: string, value: string): Thenable<void> {
    return this.secretStorage.store(ExternalAgentSettings.secretName(config.name, variable), value);
  }

  /** A served agent's token (sent as `Authorization: Bearer`), per entry name; an empty one is none. */
  async token(config: ExternalAgentConfig): Promise<string | undefined> {
    return (await this.secretStorage.get(ExternalAgentSettings.secretName(config.name, TOKEN_SECRET))) || undefined;
  }

  storeToken(config: ExternalAgentConfig, token: string): Thenable<void> {
    return this.storeSecret(config, TOKEN_SECRET, token);
  }
}

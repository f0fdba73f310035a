import type * as vscode from 'vscode';

const PREFIX = 'arbor.openaiCompatible.apiKey:';

/**
 * API keys for OpenAI-compatible endpoints, one per base URL, in VS Code's SecretStorage (the
 * OS keychain on the desktop). Keys never go to settings or to the log; the provider reads the
 * key for each request, so a key set or cleared later applies to the next model call.
 */
export class ApiKeyStore {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  /** The secret's name for an endpoint: one key per endpoint, whatever trailing slash or case the URL has. */
  static secretName(baseUrl: string): string {
    return PREFIX + normalizeBaseUrl(baseUrl);
  }

  async get(baseUrl: string): Promise<string | undefined> {
    return (await this.secrets.get(ApiKeyStore.secretName(baseUrl))) || undefined;
  }

  async has(baseUrl: string): Promise<boolean> {
    return (await this.get(baseUrl)) !== undefined;
  }

  set(baseUrl: string, key: string): Thenable<void> {
    return this.secrets.store(ApiKeyStore.secretName(baseUrl), key);
  }

  clear(baseUrl: string): Thenable<void> {
    return this.secrets.delete(ApiKeyStore.secretName(baseUrl));
  }
}

export function normalizeBaseUrl(baseUrl: string): string {
  const trimmed = baseUrl.trim();
  try {
    const url = new URL(trimmed);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    // Not a URL: only trimmed, as text, of its trailing slashes.
    return trimmed.replace(/\/+$/, '');
  }
}

/**
 * The environment a sandboxed command gets: the editor's, without the variables whose names look
 * like secrets (tokens, keys, passwords), unless the user listed them in `arbor.sandbox.env.allow`.
 * The name decides, never the value: a value cannot be recognised as a secret, and a name can be
 * listed by the person who knows it is needed.
 *
 * Invariant: what the caller adds on purpose (the command's tag, the proxy address, a variable an
 * external agent's configuration names) is merged after the filter, so it always arrives.
 */

/**
 * A word of a name that marks a secret (`GITHUB_TOKEN`, `NPMTOKEN`, `AWS_SECRET_ACCESS_KEY`,
 * `NPM_AUTH`, `DB_PASSWORD`, `OPENAI_APIKEY`); words, not substrings, so `GIT_AUTHOR_NAME` passes.
 */
const SECRET_WORD = /^(.*TOKENS?|.*SECRETS?|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?|.*APIKEY|AUTH|COOKIES?)$/;
/** Two words in a row that mark a secret: `API_KEY`, `ACCESS_KEY`, `PRIVATE_KEY`, `SESSION_KEY`. */
const SECRET_PAIR = new Set(['API KEY', 'ACCESS KEY', 'PRIVATE KEY', 'SESSION KEY', 'SIGNING KEY', 'ENCRYPTION KEY']);

/** Whether `name` looks like it holds a secret. */
export function isSecretName(name: string): boolean {
  const words = name.toUpperCase().split(/[_\-.]+/).filter(Boolean);
  return words.some((w, i) => SECRET_WORD.test(w) || (i > 0 && SECRET_PAIR.has(`${words[i - 1]} ${w}`)));
}

/** `env` without secret-looking variables (except those in `allow`), and the names left out. */
export function filterSecrets(env: NodeJS.ProcessEnv, allow: readonly string[]): { env: Record<string, string>; withheld: string[] } {
  const allowed = new Set(allow);
  const out: Record<string, string> = {};
  const withheld: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isSecretName(name) && !allowed.has(name)) withheld.push(name);
    else out[name] = value;
  }
  return { env: out, withheld: withheld.sort() };
}

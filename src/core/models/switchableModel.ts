import type { ModelChunk, ModelProvider, ModelRequest } from './types';

/**
 * A provider that forwards to whichever provider is current. The editor swaps the current one
 * when the user changes the model setting; requests already streaming finish on the old one.
 */
export class SwitchableModel implements ModelProvider {
  readonly id = 'switchable';
  constructor(private current: ModelProvider) {}

  get label(): string {
    return this.current.label;
  }
  get provider(): ModelProvider {
    return this.current;
  }
  use(provider: ModelProvider): void {
    this.current = provider;
  }
  stream(request: ModelRequest): AsyncIterable<ModelChunk> {
    return this.current.stream(request);
  }
}

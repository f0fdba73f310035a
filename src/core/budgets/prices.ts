import * as z from 'zod';

/**
 * What a model's tokens cost, per million tokens in and out, keyed by model name. A model is
 * found by its label ("gpt-4o (api.openai.com)") or by its name, the label without the part in
 * parentheses ("gpt-4o"), ignoring case. A model without a price costs nothing known: its tokens
 * are counted, its cost is not (VS Code chat models are counted in tokens).
 */
export const modelPriceSchema = z.object({
  input: z.number().min(0),
  output: z.number().min(0),
});

export const priceTableSchema = z.record(z.string().trim().min(1), modelPriceSchema);

export type ModelPrice = z.output<typeof modelPriceSchema>;
export type PriceTable = Readonly<Record<string, ModelPrice>>;

export function priceFor(prices: PriceTable, model: string): ModelPrice | undefined {
  // Every response that reports usage asks; the usual table is empty and has nothing to match.
  if (isEmpty(prices)) return undefined;
  const wanted = model.trim().toLowerCase();
  const name = wanted.replace(/\s*\([^()]*\)$/, '');
  let byName: ModelPrice | undefined;
  for (const [key, price] of Object.entries(prices)) {
    const k = key.trim().toLowerCase();
    if (k === wanted) return price;
    if (k === name) byName = price;
  }
  return byName;
}

function isEmpty(prices: PriceTable): boolean {
  for (const key in prices) if (Object.hasOwn(prices, key)) return false;
  return true;
}

/** The cost of one response's tokens, or undefined when the model has no price. */
export function costOf(prices: PriceTable, model: string, inputTokens: number, outputTokens: number): number | undefined {
  const price = priceFor(prices, model);
  if (!price) return undefined;
  return (inputTokens * price.input + outputTokens * price.output) / 1_000_000;
}

/** "$0.42", "$0.0031", "<$0.0001": small amounts keep two significant digits. */
export function formatCost(cost: number): string {
  if (cost === 0) return '$0';
  if (cost < 0.0001) return '<$0.0001';
  if (cost < 1) return `$${cost.toPrecision(2).replace(/0+$/, '').replace(/\.$/, '')}`;
  return `$${cost.toFixed(2)}`;
}

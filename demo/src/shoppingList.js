// Totals a shopping list against a price table, in cents to avoid rounding drift.

/** @param {string} csv lines of `item,price in cents` after a header line */
function parsePrices(csv) {
  const prices = new Map();
  for (const line of csv.trim().split('\n').slice(1)) {
    const [item, cents] = line.split(',');
    prices.set(item.trim(), Number(cents));
  }
  return prices;
}

/**
 * @param {{ item: string, quantity: number }[]} list
 * @param {Map<string, number>} prices
 * @returns {number} total in cents
 */
function totalCents(list, prices) {
  let total = 0;
  for (const { item, quantity } of list) {
    const price = prices.get(item);
    if (price === undefined) throw new Error(`no price for ${item}`);
    total += price * quantity;
  }
  return total;
}

module.exports = { parsePrices, totalCents };

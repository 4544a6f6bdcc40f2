// Small statistics the benches share.

/** The middle value of `xs` once sorted; of an even count, the upper of the two middle ones. */
export function upperMedian(xs) {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}

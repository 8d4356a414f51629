// Number formatting for simulator messages. toLocaleString would load ICU's locale data, which
// costs 25–40 ms on its first call: noticeable in every short `phaseflip sim` run.

/** 1234567 → "1,234,567". */
export function withCommas(n: number): string {
  const s = String(Math.trunc(Math.abs(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return n < 0 ? `-${s}` : s;
}

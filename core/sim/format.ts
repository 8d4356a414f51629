// Number formatting for simulator messages. toLocaleString would load ICU's locale data, which
// costs 25–40 ms on its first call: noticeable in every short `phaseflip sim` run.

/** 1234567 → "1,234,567". */
export function withCommas(n: number): string {
  const s = String(Math.trunc(Math.abs(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return n < 0 ? `-${s}` : s;
}

/** [0,1,2,3,7,9,10] → "0-3,7,9-10" (`separator` between the runs). */
export function numberRanges(values: readonly number[], separator = ','): string {
  const sorted = [...new Set(values)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(separator);
}

/** Numbers of a property column straight from its JSON dictionary bytes (no string per entry). */
const QUOTE = 34, COMMA = 44, MINUS = 45, ZERO = 48, NINE = 57;
const latin = new TextDecoder("latin1");

/**
 * Numbers of a property column's dictionary (a JSON array of JSON texts) straight from its bytes: entry k
 * at index k + 1, NaN where the value is not a number. Same answers as JSON.parse of each entry (digits
 * only take the fast path; anything else numeric goes through Number()), without making a string per entry.
 */
export function numbersOfJsonDict(json: Uint8Array): Float64Array {
  const out: number[] = [NaN];
  let i = json.indexOf(91) + 1; // "["
  while (i < json.length) {
    while (i < json.length && json[i] !== QUOTE && json[i] !== 93) i++;
    if (i >= json.length || json[i] === 93) break;
    const s = ++i; // entry text starts after its quote; a backslash means a string, object or escape
    let plain = true, digits = true;
    while (json[i] !== QUOTE) {
      const c = json[i];
      if (c === 92) {
        plain = false;
        i += 2;
        continue;
      }
      if (!((c >= ZERO && c <= NINE) || (c === MINUS && i === s))) digits = false;
      i++;
    }
    const e = i++;
    let x = NaN;
    if (plain && digits && e - s > (json[s] === MINUS ? 1 : 0) && e - s <= 15) {
      let acc = 0;
      for (let k = json[s] === MINUS ? s + 1 : s; k < e; k++) acc = acc * 10 + (json[k] - ZERO);
      x = json[s] === MINUS ? -acc : acc;
    } else if (plain && e > s) {
      const n = Number(latin.decode(json.subarray(s, e)));
      x = Number.isFinite(n) && /^-?[0-9.eE+-]+$/.test(latin.decode(json.subarray(s, e))) ? n : NaN;
    }
    out.push(x);
    while (i < json.length && json[i] !== COMMA && json[i] !== 93) i++;
  }
  return Float64Array.from(out);
}

/** Renders a value for an error message: `600` (number), `"abc"` (string), `undefined`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "`undefined`";
  if (value === null) return "`null`";
  const type = Array.isArray(value) ? "array" : typeof value;
  let shown: string;
  if (typeof value === "string") {
    shown = JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  } else if (typeof value === "object") {
    try {
      const json = JSON.stringify(value);
      shown = json.length > 60 ? `${json.slice(0, 57)}...` : json;
    } catch {
      shown = String(value);
    }
  } else {
    shown = String(value);
  }
  return `\`${shown}\` (${type})`;
}

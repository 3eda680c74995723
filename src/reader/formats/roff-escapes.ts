// roff escape sequences and special characters → plain text, for the man page reader. Only what man pages use;
// anything unknown is dropped rather than shown as markup.

const SPECIAL_CHARACTERS: Readonly<Record<string, string>> = {
  em: "—",
  en: "–",
  hy: "-",
  mi: "-",
  aq: "'",
  dq: '"',
  lq: "“",
  rq: "”",
  oq: "‘",
  cq: "’",
  ga: "`",
  aa: "´",
  ha: "^",
  ti: "~",
  at: "@",
  sl: "/",
  rs: "\\",
  ba: "|",
  bv: "|",
  br: "|",
  bu: "•",
  ci: "○",
  co: "©",
  rg: "®",
  tm: "™",
  de: "°",
  dg: "†",
  ct: "¢",
  Fo: "«",
  Fc: "»",
  fo: "‹",
  fc: "›",
  ss: "ß",
  "<-": "←",
  "->": "→",
  "<=": "≤",
  ">=": "≥",
  "!=": "≠",
  "==": "≡",
  "+-": "±",
  mu: "×",
  di: "÷",
  sc: "§",
  ps: "¶",
  Tm: "™",
  R: "®",
  eu: "€",
  Eu: "€",
  Po: "£",
  Ye: "¥",
  "a~": "ã",
  "o~": "õ",
  "n~": "ñ",
  ":a": "ä",
  ":o": "ö",
  ":u": "ü",
  ":A": "Ä",
  ":O": "Ö",
  ":U": "Ü",
  "'e": "é",
  "`e": "è",
  "'a": "á",
  "`a": "à",
  "^e": "ê",
  ",c": "ç",
  // mdoc and pod2man strings.
  Lq: "“",
  Rq: "”",
  "C+": "C++",
  "C`": "“",
  "C'": "”",
  PI: "π",
  'L"': "“",
  'R"': "”",
};

/** An escape's bracketed or parenthesized name: `(xx`, `[name]`, or one character. Returns [name, next index]. */
function escapeName(line: string, index: number): [string, number] {
  const first = line[index];
  if (first === "(") return [line.slice(index + 1, index + 3), index + 3];
  if (first === "[") {
    const close = line.indexOf("]", index + 1);
    if (close === -1) return [line.slice(index + 1), line.length];
    return [line.slice(index + 1, close), close + 1];
  }
  return [first ?? "", index + 1];
}

/** Skips an escape's quoted argument (`\h'1i'`, `\X'…'`, or a bracketed one), returning the next index. */
function skipDelimited(line: string, index: number): number {
  const delimiter = line[index];
  if (delimiter === "[") {
    const close = line.indexOf("]", index + 1);
    return close === -1 ? line.length : close + 1;
  }
  if (delimiter === undefined) return index;
  const close = line.indexOf(delimiter, index + 1);
  return close === -1 ? line.length : close + 1;
}

/**
 * Replaces roff escapes in one input line with plain text: font changes (`\fB`, `\f(CW`, `\f[I]`) and sizes gone,
 * `\-` → `-`, `\(em` → `—`, `\e` → `\`, comments (`\"`, `\#`) cut off.
 */
export function unescapeRoff(line: string): string {
  if (!line.includes("\\")) return line;
  let out = "";
  let index = 0;
  while (index < line.length) {
    const backslash = line.indexOf("\\", index);
    if (backslash === -1) {
      out += line.slice(index);
      break;
    }
    out += line.slice(index, backslash);
    const code = line[backslash + 1];
    index = backslash + 2;
    switch (code) {
      case undefined:
      case '"':
      case "#":
        return out.trimEnd();
      case "f":
      case "F":
      case "n":
      case "g":
      case "k":
      case "m":
      case "M":
      case "V":
      case "Y":
      case "$":
        index = escapeName(line, index)[1];
        break;
      case "s": {
        // \s+2, \s-1, \s0, \s(12, \s[12], \s'12'
        const match = /^(?:[+-]?\d{1,2}|[+-]?\(\d\d|\[[^\]]*\]|'[^']*')/.exec(line.slice(index, index + 16));
        index += match ? match[0].length : 0;
        break;
      }
      case "*": {
        const [name, next] = escapeName(line, index);
        out += SPECIAL_CHARACTERS[name] ?? "";
        index = next;
        break;
      }
      case "(":
      case "[": {
        const [name, next] = escapeName(line, backslash + 1);
        out +=
          SPECIAL_CHARACTERS[name] ??
          (name.startsWith("u") && /^u[0-9A-F]{4,6}$/.test(name)
            ? String.fromCodePoint(Number.parseInt(name.slice(1), 16))
            : "");
        index = next;
        break;
      }
      case "N": {
        const end = skipDelimited(line, index);
        const number = Number.parseInt(line.slice(index + 1, end - 1), 10);
        if (Number.isInteger(number) && number > 0 && number < 0x110000) out += String.fromCodePoint(number);
        index = end;
        break;
      }
      case "h":
      case "v":
      case "w":
      case "o":
      case "X":
      case "Z":
      case "l":
      case "L":
      case "D":
      case "b":
      case "x":
      case "S":
      case "H":
      case "A":
      case "B":
      case "C":
      case "R":
        index = skipDelimited(line, index);
        break;
      case "e":
      case "\\":
        out += "\\";
        break;
      case "-":
        out += "-";
        break;
      case " ":
      case "~":
      case "0":
      case "t":
        out += " ";
        break;
      case "'":
        out += "´";
        break;
      case "`":
        out += "`";
        break;
      case "&":
      case ":":
      case "/":
      case ",":
      case "|":
      case "^":
      case "%":
      case "c":
      case ")":
      case "p":
      case "d":
      case "u":
      case "r":
      case "a":
      case "z":
      case "{":
      case "}":
        break;
      default:
        out += code;
    }
  }
  return out;
}

// mdoc's "parsed" macros: a line like `.Op Fl o Ar file` renders as `[-o file]`. Used by the man page reader.

const ENCLOSE: Readonly<Record<string, [string, string]>> = {
  Op: ["[", "]"],
  Oo: ["[", ""],
  Dq: ["“", "”"],
  Do: ["“", ""],
  Qq: ['"', '"'],
  Qo: ['"', ""],
  Sq: ["‘", "’"],
  So: ["‘", ""],
  Pq: ["(", ")"],
  Po: ["(", ""],
  Aq: ["⟨", "⟩"],
  Ao: ["⟨", ""],
  Bq: ["[", "]"],
  Bo: ["[", ""],
  Brq: ["{", "}"],
  Bro: ["{", ""],
  Ql: ["‘", "’"],
};

const CLOSE: Readonly<Record<string, string>> = {
  Oc: "]",
  Dc: "”",
  Qc: '"',
  Sc: "’",
  Pc: ")",
  Ac: "⟩",
  Bc: "]",
  Brc: "}",
};

// Macros whose arguments are shown as they are (font and semantic markup only).
// The names mdoc prints for operating systems.
const SYSTEMS: Readonly<Record<string, string>> = {
  Ux: "UNIX",
  Bx: "BSD",
  Bsx: "BSD/OS",
  Fx: "FreeBSD",
  Nx: "NetBSD",
  Ox: "OpenBSD",
  Dx: "DragonFly",
  At: "AT&T UNIX",
};

const PLAIN = new Set(
  "Ad An Ap Ar At Bsx Bx Cd Cm Dv Dx Em Er Es Ev Ex Fa Fc Fd Fn Fo Fr Ft Fx Ic In Lb Li Lk Ms Mt Nm No Nx Ox Pa Pf Rv St Sy Tn Ta Ux Va Vt Xc Xo %A %B %C %D %I %J %N %O %P %Q %R %T %U %V".split(
    " ",
  ),
);

const OPENING_PUNCTUATION = new Set(["(", "["]);
const CLOSING_PUNCTUATION = new Set([".", ",", ":", ";", ")", "]", "?", "!"]);

/** True for a macro name mdoc parses inside a line (`Fl`, `Ar`, `Op`…). */
export function isMdocCallable(name: string): boolean {
  return (
    PLAIN.has(name) || name in ENCLOSE || name in CLOSE || name === "Fl" || name === "Xr" || name === "Ns"
  );
}

/**
 * Renders an mdoc macro line's tokens (macro name first) as plain text.
 *
 * @param tokens - The macro and its arguments, already unescaped.
 * @param name - The page's name from its first `.Nm`, for a bare `Nm`.
 */
export function renderMdoc(tokens: readonly string[], name: string): string {
  let out = "";
  let attachNext = false;
  const emit = (text: string, attach = false) => {
    if (text === "") return;
    out += out === "" || attach || attachNext ? text : ` ${text}`;
    attachNext = false;
  };
  let index = 0;
  while (index < tokens.length) {
    const token = tokens[index] as string;
    index++;
    const args: string[] = [];
    const takeArgs = () => {
      while (index < tokens.length && !isMdocCallable(tokens[index] as string))
        args.push(tokens[index++] as string);
    };
    const enclose = ENCLOSE[token];
    if (enclose) {
      const [open, close] = enclose;
      const inner = renderMdoc(tokens.slice(index), name);
      emit(`${open}${inner}${close}`);
      break;
    }
    const closing = CLOSE[token];
    if (closing !== undefined) {
      emit(closing, true);
      continue;
    }
    switch (token) {
      case "Fl":
        takeArgs();
        if (args.length === 0) emit("-");
        for (const arg of args)
          emit(CLOSING_PUNCTUATION.has(arg) ? arg : `-${arg}`, CLOSING_PUNCTUATION.has(arg));
        continue;
      case "Xr":
        takeArgs();
        emit(args.length >= 2 ? `${args[0]}(${args[1]})${args.slice(2).join("")}` : (args[0] ?? ""));
        continue;
      case "Ns":
        attachNext = true;
        continue;
      case "Nm":
        takeArgs();
        if (args.length === 0 || CLOSING_PUNCTUATION.has(args[0] as string)) emit(name);
        break;
      case "Ar":
        takeArgs();
        if (args.length === 0) emit("file ...");
        break;
      case "Ux":
      case "Bx":
      case "Bsx":
      case "Fx":
      case "Nx":
      case "Ox":
      case "Dx":
      case "At":
        emit(SYSTEMS[token] as string);
        takeArgs();
        break;
      default:
        if (!PLAIN.has(token)) {
          // Not a macro: a word of text.
          if (CLOSING_PUNCTUATION.has(token)) emit(token, true);
          else {
            emit(token);
            if (OPENING_PUNCTUATION.has(token)) attachNext = true;
          }
          continue;
        }
        takeArgs();
    }
    for (const arg of args) {
      if (CLOSING_PUNCTUATION.has(arg)) emit(arg, true);
      else {
        emit(arg);
        if (OPENING_PUNCTUATION.has(arg)) attachNext = true;
      }
    }
  }
  return out;
}

// Completion for the SPARQL editor: SPARQL keywords and functions, the
// variables of the query, the server's prefixes (choosing one declares it:
// a `PREFIX p: <iri>` line goes into the query's prologue, so the query runs
// anywhere, not only on kld), and the classes and predicates of the loaded
// store written with those prefixes.

import { pickedCompletion } from "@codemirror/autocomplete";

const KEYWORDS = (
  "SELECT DISTINCT REDUCED WHERE FILTER OPTIONAL UNION MINUS GRAPH BIND VALUES PREFIX BASE " +
  "ORDER_BY GROUP_BY HAVING LIMIT OFFSET ASK CONSTRUCT DESCRIBE FROM FROM_NAMED NAMED AS UNDEF " +
  "EXISTS NOT_EXISTS IN NOT_IN ASC DESC true false"
).split(" ").map((k) => k.replace("_", " "));

const FUNCTIONS = (
  "COUNT SUM MIN MAX AVG SAMPLE GROUP_CONCAT SEPARATOR STR LANG LANGMATCHES DATATYPE BOUND IRI URI " +
  "BNODE RAND ABS CEIL FLOOR ROUND CONCAT STRLEN UCASE LCASE ENCODE_FOR_URI CONTAINS STRSTARTS " +
  "STRENDS STRBEFORE STRAFTER YEAR MONTH DAY HOURS MINUTES SECONDS TIMEZONE TZ NOW UUID STRUUID MD5 " +
  "SHA1 SHA256 SHA384 SHA512 COALESCE IF STRLANG STRDT sameTerm isIRI isURI isBLANK isLITERAL " +
  "isNUMERIC REGEX SUBSTR REPLACE"
).split(" ");

// The prefixes a query declares itself: name → IRI.
function declared(text) {
  const out = new Map();
  for (const m of text.matchAll(/PREFIX\s+([A-Za-z][\w.-]*)?:\s*<([^>]*)>/gi)) out.set(m[1] || "", m[2]);
  return out;
}

// Where a new PREFIX line goes: after the leading comments, blank lines and
// PREFIX/BASE lines (a catalogue query's header stays on top).
function prologueEnd(text) {
  let at = 0;
  for (const line of text.split("\n")) {
    if (!/^\s*(#.*|PREFIX\b.*|BASE\b.*)?$/i.test(line)) break;
    at += line.length + 1;
  }
  return Math.min(at, text.length);
}

// Inserts `label` over from..to and, unless the query declares `prefix`
// already, its PREFIX line at the end of the prologue.
function declaringApply(prefix, iri, label) {
  return (view, completion, from, to) => {
    const text = view.state.doc.toString();
    const changes = [{ from, to, insert: label }];
    let shift = 0;
    if (!declared(text).has(prefix)) {
      const at = Math.min(prologueEnd(text), from);
      const line = `PREFIX ${prefix}: <${iri}>\n`;
      changes.push({ from: at, insert: at > 0 && text[at - 1] !== "\n" ? "\n" + line : line });
      shift = changes[1].insert.length;
    }
    view.dispatch({
      changes,
      selection: { anchor: from + shift + label.length },
      userEvent: "input.complete",
      annotations: pickedCompletion.of(completion),
    });
  };
}

// The local part of `iri` under namespace `ns`, when it is a valid
// prefixed-name local part.
function localName(iri, ns) {
  if (!iri.startsWith(ns)) return null;
  const local = iri.slice(ns.length);
  return /^[A-Za-z_][\w-]*$/.test(local) ? local : null;
}

/** A CodeMirror completion source over `vocabulary()` (see editor.js). */
export function completionSource(vocabulary) {
  return (context) => {
    const before = context.state.sliceDoc(context.state.doc.lineAt(context.pos).from, context.pos);
    // Not inside a comment, a string or an IRI.
    if (/#/.test(before.replace(/<[^>]*>|"[^"]*"|'[^']*'/g, "")) || /"[^"]*$|'[^']*$|<[^>\s]*$/.test(before.replace(/"[^"]*"|'[^']*'/g, ""))) {
      return null;
    }
    const word = context.matchBefore(/[?$][\w]*|[A-Za-z_][\w.-]*:[\w-]*|:[\w-]*|[A-Za-z_][\w-]*/);
    if (!word && !context.explicit) return null;
    const from = word ? word.from : context.pos;
    const typed = word ? word.text : "";
    const text = context.state.doc.toString();
    const voc = vocabulary() || {};
    const prefixes = new Map([...(voc.prefixes || [])]);
    const ours = declared(text);
    const terms = [...(voc.classes || []).map((t) => [t, "class"]), ...(voc.predicates || []).map((t) => [t, "property"])];

    if (typed.startsWith("?") || typed.startsWith("$")) {
      const rest = text.slice(0, from) + text.slice(context.pos);
      const vars = [...new Set([...rest.matchAll(/[?$]([A-Za-z_]\w*)/g)].map((m) => m[1]))];
      return {
        from,
        options: vars.map((v) => ({ label: typed[0] + v, type: "variable" })),
        validFor: /^[?$]\w*$/,
      };
    }

    // Prefixed terms: the store's classes and predicates under each prefix
    // (the server's, and the query's own declarations).
    const termOptions = [];
    const namespaces = new Map([...prefixes, ...ours]);
    for (const [p, ns] of namespaces) {
      for (const [iri, type] of terms) {
        const local = localName(iri, ns);
        if (local === null) continue;
        const label = `${p}:${local}`;
        const option = { label, type, detail: iri, boost: type === "class" ? 1 : 0 };
        if (!ours.has(p)) option.apply = declaringApply(p, ns, label);
        termOptions.push(option);
      }
    }
    if (typed.includes(":")) {
      return { from, options: termOptions, validFor: /^[A-Za-z_]?[\w.-]*:[\w-]*$/ };
    }
    const prefixOptions = [...prefixes].map(([p, iri]) => ({
      label: `${p}:`, type: "namespace", detail: iri, boost: 2,
      apply: ours.has(p) ? `${p}:` : declaringApply(p, iri, `${p}:`),
    }));
    return {
      from,
      options: [
        ...prefixOptions,
        ...KEYWORDS.map((k) => ({ label: k, type: "keyword", boost: 1 })),
        ...FUNCTIONS.map((f) => ({ label: f, type: "function" })),
        ...termOptions,
      ],
      validFor: /^[A-Za-z_][\w-]*$/,
    };
  };
}

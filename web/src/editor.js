// The SPARQL editor of `kld serve`'s page: CodeMirror 6 with the SPARQL
// grammar of codemirror-lang-sparql, bundled by esbuild (web/build.mjs) into
// crates/serve/src/page/editor.bundle.js, which the binary serves. Everything the
// editor knows comes from the page (the server's prefixes, the store's
// classes and predicates): nothing is fetched from elsewhere.
//
// The page's own code (crates/serve/src/page/editor.js) drives it through one
// global, `KldEditor.create(...)`, so that the page's logic stays plain
// script and only CodeMirror needs a build.

import { EditorState, Prec } from "@codemirror/state";
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
  drawSelection, highlightSpecialChars, placeholder,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import {
  syntaxHighlighting, HighlightStyle, bracketMatching, indentOnInput,
} from "@codemirror/language";
import { tags } from "@lezer/highlight";
import {
  autocompletion, completionKeymap, closeBrackets, closeBracketsKeymap,
} from "@codemirror/autocomplete";
import { setDiagnostics, lintGutter } from "@codemirror/lint";
import { sparql } from "codemirror-lang-sparql";
import { completionSource } from "./complete.js";

// The SPARQL grammar's token kinds, each in a colour of at least 7:1 on
// white (CodeMirror's default style puts prefixed names at 4.5:1).
const highlight = HighlightStyle.define([
  { tag: tags.keyword, color: "#708" },
  { tag: tags.variableName, color: "#1b48b8" },
  { tag: tags.string, color: "#a11" },
  { tag: tags.number, color: "#14613f" },
  { tag: [tags.bool, tags.url], color: "#219" },
  { tag: [tags.namespace, tags.typeName], color: "#0a5a44" },
  { tag: tags.annotation, color: "#6b4f00" },
  { tag: tags.comment, color: "#8a3f00", fontStyle: "italic" },
  { tag: tags.invalid, color: "#b00020" },
]);

const theme = EditorView.theme({
  "&": { fontSize: "13px", border: "1px solid #b9c1cf", borderRadius: "4px", background: "#fff" },
  "&.cm-focused": { outline: "2px solid #24324a", outlineOffset: "1px" },
  ".cm-content": { fontFamily: "ui-monospace, monospace", minHeight: "12em" },
  ".cm-scroller": { maxHeight: "28em", overflow: "auto" },
  ".cm-gutters": { background: "#f3f4f7", color: "#4f5868", borderRight: "1px solid #dde2ea" },
  ".cm-lintRange-error": { backgroundColor: "#ffd7d9" },
});

/**
 * Mounts an editor in `parent`.
 * - `doc`: the initial text; `label`: the accessible name of the text area;
 * - `onRun()`: called on Ctrl-Enter / Cmd-Enter (Meta-Enter);
 * - `onChange(text)`: called after each change of the text;
 * - `vocabulary()`: { prefixes: [[name, iri]], classes: [iri], predicates: [iri] },
 *   read at each completion (it may fill in after the editor is made).
 * Returns { view, get(), set(text), focus(), markError(line, column, message), clearError() }.
 */
export function create({ parent, doc = "", label = "SPARQL query", describedBy, onRun, onChange, vocabulary }) {
  const run = () => { if (onRun) onRun(); return true; };
  const attrs = { "aria-label": label, "aria-multiline": "true" };
  if (describedBy) attrs["aria-describedby"] = describedBy;
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(), highlightActiveLineGutter(), highlightSpecialChars(), history(), drawSelection(),
        indentOnInput(), syntaxHighlighting(highlight), bracketMatching(),
        closeBrackets(), autocompletion({ override: [completionSource(() => (vocabulary ? vocabulary() : {}))] }),
        highlightActiveLine(), lintGutter(), sparql(), theme, placeholder("SELECT * WHERE { ?s ?p ?o } LIMIT 10"),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of(attrs),
        // Ctrl-Enter and Cmd-Enter on every platform.
        Prec.highest(keymap.of([{ key: "Ctrl-Enter", run }, { key: "Meta-Enter", run }])),
        keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, ...completionKeymap]),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) {
            // An edit makes a marked error stale.
            if (u.transactions.some((t) => t.isUserEvent("input") || t.isUserEvent("delete"))) clear();
            if (onChange) onChange(u.state.doc.toString());
          }
        }),
      ],
    }),
  });
  function clear() {
    view.dispatch(setDiagnostics(view.state, []));
    delete view.dom.dataset.errorLine;
    delete view.dom.dataset.errorColumn;
  }
  return {
    view,
    get: () => view.state.doc.toString(),
    set(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
      clear();
    },
    focus: () => view.focus(),
    clearError: clear,
    // `line` and `column` are 1-based, the column counted in characters (as
    // the server's parser counts), not UTF-16 units.
    markError(line, column, message) {
      const doc = view.state.doc;
      const l = doc.line(Math.min(Math.max(line, 1), doc.lines));
      const chars = [...l.text];
      const offset = chars.slice(0, Math.max(column - 1, 0)).join("").length;
      const from = Math.min(l.from + offset, l.to);
      // The token at the place, else the rest of the line, else one place.
      const rest = l.text.slice(from - l.from);
      const word = /^[^\s{}()]+/.exec(rest);
      let to = from + (word ? word[0].length : rest.length);
      let start = from;
      if (to === start) {
        if (start > l.from) start -= 1; else to = Math.min(start + 1, doc.length);
      }
      view.dispatch(setDiagnostics(view.state, [{ from: start, to, severity: "error", message }]));
      view.dom.dataset.errorLine = String(l.number);
      view.dom.dataset.errorColumn = String(column);
    },
  };
}

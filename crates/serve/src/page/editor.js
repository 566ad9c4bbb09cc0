// The SPARQL editor area of `kld serve`'s page: mounts the CodeMirror editor
// (editor.bundle.js, built from web/) over the #query textarea, which stays
// the query's value for the rest of the page (and the editor when the
// bundle is missing); feeds its completion with the server's prefixes and
// the store's classes and predicates; marks the server's syntax errors;
// keeps queries: a permalink (#query=…&name=…) that reopens one in the
// editor (it runs when the user presses Run: a link, a popup or a frame
// from another site must not run queries or write the history), a local
// history of the queries the user ran, and each catalogue query's
// documentation beside the editor.
// Plain script: everything comes from this server's routes.
"use strict";

const kldEditor = (() => {
  const q = (sel) => document.querySelector(sel);
  const textarea = q("#query");
  const vocabulary = { prefixes: [], classes: [], predicates: [] };
  let catalogueList = [];
  let chosen = ""; // the catalogue query's name, while one is chosen

  // ---- the editor ----------------------------------------------------------
  let ed = null;
  if (window.KldEditor) {
    const host = document.createElement("div");
    host.id = "editor";
    textarea.after(host);
    textarea.hidden = true;
    q("#query-label").htmlFor = "";
    ed = window.KldEditor.create({
      parent: host,
      doc: textarea.value,
      label: "SPARQL query",
      describedBy: "editor-help",
      onRun: () => runByUser(),
      onChange: (text) => { textarea.value = text; },
      vocabulary: () => vocabulary,
    });
    q("#query-label").onclick = () => ed.focus();
    ed.view.contentDOM.addEventListener("focus", askTerms);
  }
  const text = () => (ed ? ed.get() : textarea.value);
  // True while the editor's own key (Ctrl-Enter) presses Run: a click made
  // by script is otherwise not the user's (`isTrusted` is false).
  // (app.js, which runs the query, reads the same flag.)
  function runByUser() {
    window.kldRunByUser = true;
    try { q("#run").click(); } finally { window.kldRunByUser = false; }
  }
  function setText(t) {
    textarea.value = t;
    if (ed) ed.set(t);
  }

  // The server's syntax error (`… at LINE:COLUMN: message`) marked there;
  // when its hint names a misspelled keyword (`hint: \`FILTR\` at 3:3 is
  // not a SPARQL keyword: did you mean FILTER?`), the word is marked
  // instead: the parser often stops later, where the typo's effect shows.
  function markError(body) {
    const m = /syntax error at (\d+):(\d+)/i.exec(body);
    if (!m || !ed) return false;
    const first = body.split("\n")[0];
    const hint = /^hint: `[^`\n]+` at (\d+):(\d+) is not a SPARQL keyword[^\n]*/m.exec(body);
    if (hint) {
      ed.markError(Number(hint[1]), Number(hint[2]), `${hint[0].slice(6)} (${first})`);
    } else {
      ed.markError(Number(m[1]), Number(m[2]), first);
    }
    return true;
  }

  // ---- what completion offers ---------------------------------------------
  // The store's classes and predicates (GET /vocabulary): computed by the
  // server with the catalogue's answers after each load and kept there, so
  // asking costs it nothing; asked when the editor is first focused.
  async function loadPrefixes() {
    const p = await fetch("/prefixes");
    if (p.ok) vocabulary.prefixes = (await p.json()).map((x) => [x.prefix, x.iri]);
  }

  let termsAsked = false;
  function askTerms() {
    if (termsAsked) return;
    termsAsked = true;
    loadTerms().catch(() => {});
  }

  async function loadTerms() {
    const r = await fetch("/vocabulary");
    if (!r.ok) return;
    const rows = (await r.json()).results.bindings.filter((b) => b.term && b.term.type === "uri");
    vocabulary.classes = rows.filter((b) => b.kind.value === "class").map((b) => b.term.value);
    vocabulary.predicates = rows.filter((b) => b.kind.value === "predicate").map((b) => b.term.value);
    q("#editor").dataset.vocabulary = `${vocabulary.classes.length} classes, ${vocabulary.predicates.length} predicates`;
  }

  // ---- the catalogue and its documentation --------------------------------
  function showDoc(entry) {
    const aside = q("#query-doc");
    aside.hidden = !entry;
    if (!entry) return;
    q("#query-doc-name").textContent = entry.name;
    q("#query-doc-text").textContent = entry.description;
    // One unbreakable piece per variable (`?` and its name stay together).
    q("#query-doc-returns").replaceChildren(...entry.returns.flatMap((v, i) => {
      const span = document.createElement("span");
      span.className = "var";
      span.textContent = "?" + v;
      return i ? [" ", span] : [span];
    }));
    // A browser's Accept would get SPARQL XML: format=json says JSON.
    q("#query-doc-link").href = "/queries/" + encodeURIComponent(entry.name) + "?format=json";
  }

  function choose(name, withText = true) {
    const entry = catalogueList.find((c) => c.name === name);
    chosen = entry ? entry.name : "";
    q("#catalogue").value = chosen;
    showDoc(entry);
    if (entry && withText) setText(entry.query);
  }

  async function loadCatalogue() {
    const r = await fetch("/queries");
    catalogueList = r.ok ? await r.json() : [];
    const select = q("#catalogue");
    for (const c of catalogueList) {
      const o = document.createElement("option");
      o.value = o.textContent = c.name;
      select.append(o);
    }
    select.onchange = () => choose(select.value);
  }

  // ---- permalinks ----------------------------------------------------------
  function permalink(query, name) {
    const p = new URLSearchParams({ query });
    if (name) p.set("name", name);
    return "#" + p.toString();
  }

  function showPermalink(query, name) {
    const a = q("#permalink");
    a.href = permalink(query, name);
    a.hidden = false;
    history.replaceState(null, "", a.href);
  }

  // Opens `#query=…&name=…` (the name alone opens that catalogue query) in
  // the editor, where it waits for the user's Run: whoever made the link
  // (another site, a popup, a frame) does not get to run it. Any other
  // fragment (#benchmarks…) is a place in the page.
  function openHash() {
    const hash = location.hash.slice(1);
    if (!/(^|&)(query|name)=/.test(hash)) return false;
    const p = new URLSearchParams(hash);
    const name = p.get("name") || "";
    choose(name, false);
    const query = p.get("query") ?? catalogueList.find((c) => c.name === name)?.query;
    if (query === undefined) return false;
    setText(query);
    q("#sparql").scrollIntoView();
    q("#status").textContent = "Opened from a link: press Run to run it.";
    return true;
  }

  // ---- history (localStorage) ---------------------------------------------
  const KEY = "kld-serve-history";
  const MAX = 30;
  function readHistory() {
    try {
      const h = JSON.parse(localStorage.getItem(KEY) || "[]");
      return Array.isArray(h) ? h.filter((e) => e && typeof e.query === "string") : [];
    } catch {
      return [];
    }
  }
  function remember(query, name) {
    const h = readHistory().filter((e) => e.query !== query);
    h.unshift({ query, name, at: new Date().toISOString() });
    try {
      localStorage.setItem(KEY, JSON.stringify(h.slice(0, MAX)));
    } catch {
      // Storage full or refused: the history is a convenience.
    }
    renderHistory();
  }
  function renderHistory() {
    const select = q("#history");
    const h = readHistory();
    const oneLine = (s) => s.replace(/^(\s*(#.*|PREFIX\b.*)?\n)*/i, "").replace(/\s+/g, " ").trim();
    select.replaceChildren(new Option(h.length ? `Recent queries (${h.length})` : "No recent queries", ""),
      ...h.map((e, i) => {
        const label = (e.name ? e.name + ": " : "") + oneLine(e.query);
        const o = new Option(label.length > 80 ? label.slice(0, 79) + "…" : label, String(i));
        o.title = e.query;
        return o;
      }));
    select.disabled = h.length === 0;
    q("#history-clear").disabled = h.length === 0;
  }

  function wire() {
    q("#history").onchange = (e) => {
      const entry = readHistory()[Number(e.target.value)];
      if (!entry || e.target.value === "") return;
      // The list stays on the entry (arrow keys walk it); Tab goes on to Run.
      choose(entry.name || "", false);
      setText(entry.query);
    };
    q("#history-clear").onclick = () => {
      try { localStorage.removeItem(KEY); } catch { /* nothing kept */ }
      renderHistory();
    };
    // Runs after the page's own handler (app.js), which reads #query.
    q("#run").addEventListener("click", (e) => {
      // Only the user's own runs are remembered.
      if (!e.isTrusted && !window.kldRunByUser) return;
      const query = text();
      if (ed) ed.clearError();
      const name = chosen && catalogueList.find((c) => c.name === chosen) ? chosen : "";
      remember(query, name);
      showPermalink(query, name);
    });
    window.addEventListener("hashchange", openHash);
  }

  wire();
  renderHistory();
  Promise.all([loadCatalogue(), loadPrefixes().catch(() => {})])
    .then(() => openHash())
    .catch((e) => { q("#status").textContent = String(e); });

  return { text, setText, markError, choose };
})();

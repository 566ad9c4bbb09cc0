// The page's results table: a SPARQL answer shown a page at a time (5,000
// rows would make the browser lay out 5,000 rows), sortable by any column
// (numbers as numbers), long cells cut with a button to expand them, IRIs
// shortened with kld's prefixes and opening kld's own view of them, numbers
// rounded for display (the full value on hover), and downloads in every
// format the endpoint writes.
// Plain JS, no dependencies; uses `el` from app.js (called after it loads).
// Its names stay inside it but for those it exports: showTable,
// downloadLinks, checkpointGraphs, roundNumber, postQuery.
(() => {
"use strict";

// kld's predefined prefixes (src/sparql/syntax.rs PREDEFINED; a unit test in
// crates/serve/src/board.rs checks the two agree).
const KLD_PREFIXES = [
  ["schema", "https://schema.org/"],
  ["karenina", "urn:karenina:vocab:"],
  ["rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"],
  ["rdfs", "http://www.w3.org/2000/01/rdf-schema#"],
  ["xsd", "http://www.w3.org/2001/XMLSchema#"],
  ["prov", "http://www.w3.org/ns/prov#"]
];

// The `format=` names the endpoint answers (crates/serve/src/negotiate.rs; the same
// test checks every one is answered, each in its own media type, and that
// none is missing): [name, label, file extension].
const SOLUTION_FORMATS = [
  ["json", "JSON", "srj"],
  ["xml", "XML", "srx"],
  ["csv", "CSV", "csv"],
  ["tsv", "TSV", "tsv"]
];
const GRAPH_FORMATS = [
  ["ttl", "Turtle", "ttl"],
  ["nt", "N-Triples", "nt"],
  ["nq", "N-Quads", "nq"],
  ["trig", "TriG", "trig"],
  ["rdfxml", "RDF/XML", "rdf"],
  ["jsonld", "JSON-LD", "jsonld"]
];

const XSD = "http://www.w3.org/2001/XMLSchema#";
const NUMERIC = new Set(["integer", "decimal", "double", "float", "int", "long", "short", "byte",
  "nonNegativeInteger", "positiveInteger", "negativeInteger", "nonPositiveInteger",
  "unsignedInt", "unsignedLong", "unsignedShort", "unsignedByte"].map((t) => XSD + t));
const CUT_AT = 160; // characters of a long cell shown before "more"
const PAGE_SIZES = [50, 100, 500];

// `schema:Question` for an IRI under a kld prefix, else the IRI in <>.
function shortIri(iri) {
  for (const [p, ns] of KLD_PREFIXES) {
    if (iri.startsWith(ns) && /^[\w.-]*$/.test(iri.slice(ns.length))) return `${p}:${iri.slice(ns.length)}`;
  }
  return `<${iri}>`;
}

const isNumber = (t) => t && t.type !== "uri" && t.type !== "bnode" && NUMERIC.has(t.datatype);

// A number as shown: integers whole, others to at most 4 decimals.
function roundNumber(value) {
  const x = Number(value);
  if (!Number.isFinite(x) || Number.isInteger(x)) return value;
  return String(Math.round(x * 1e4) / 1e4);
}

// Compares two terms of one column: unbound last, numbers as numbers (and
// before other terms), the rest by their text.
function compareTerms(a, b) {
  if (!a || !b) return !a && !b ? 0 : a ? -1 : 1;
  const na = isNumber(a), nb = isNumber(b);
  if (na && nb) return Number(a.value) - Number(b.value);
  if (na !== nb) return na ? -1 : 1;
  return a.value.localeCompare(b.value);
}

// Graph IRIs of the loaded checkpoints (filled from /checkpoints by app.js):
// such an IRI opens the benchmark view, any other IRI its DESCRIBE.
const checkpointGraphs = new Map();

function iriCell(iri) {
  const describe = `DESCRIBE <${iri}>`;
  const cp = checkpointGraphs.get(iri);
  const a = el("a", {
    className: "iri", title: iri,
    href: cp ? `/checkpoint?graph=${encodeURIComponent(iri)}` : `/sparql?format=ttl&query=${encodeURIComponent(describe)}`,
  }, shortIri(iri));
  a.onclick = (e) => {
    if (e.ctrlKey || e.metaKey || e.shiftKey) return; // a new tab gets the link itself
    e.preventDefault();
    if (cp && typeof openBenchmark === "function") openBenchmark(cp);
    else describeIri(iri);
  };
  return a;
}

// POSTs `query` to the endpoint asking for `accept`, over the named graphs
// `named` (the SPARQL Protocol's named-graph-uri; none: every graph).
function postQuery(query, accept, named = []) {
  const body = new URLSearchParams({ query });
  for (const g of named) body.append("named-graph-uri", g);
  return fetch("/sparql", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: accept },
    body,
  });
}

// Shows an IRI's DESCRIBE (Turtle) under the table, which stays as it was.
async function describeIri(iri) {
  const box = document.getElementById("describe");
  const r = await postQuery(`DESCRIBE <${iri}>`, "text/turtle");
  const close = el("button", { type: "button", className: "close" }, "close");
  close.onclick = () => { box.hidden = true; };
  box.replaceChildren(el("h3", {}, "DESCRIBE ", el("code", {}, shortIri(iri)), " "), close,
    el("pre", {}, (await r.text()) || "(nothing about it in the store)"));
  box.hidden = false;
  box.scrollIntoView({ block: "nearest" });
}

// One cell: a term as shown, its full value on hover.
function termCell(t) {
  const td = el("td");
  if (!t) return td;
  if (t.type === "uri") { td.append(iriCell(t.value)); return td; }
  if (t.type === "bnode") { td.append(`_:${t.value}`); return td; }
  const type = t["xml:lang"] ? `@${t["xml:lang"]}` : t.datatype ? ` (${shortIri(t.datatype)})` : "";
  if (isNumber(t)) {
    td.className = "num";
    td.append(roundNumber(t.value));
    td.title = t.value + type;
    return td;
  }
  if (type) td.title = type.trim(); // a literal's language or datatype
  if (t.value.length <= CUT_AT) { td.append(t.value); return td; }
  // A long value: cut, with a button that shows it whole (and cuts it again).
  const text = el("span", { className: "cut" }, t.value.slice(0, CUT_AT) + "…");
  const more = el("button", { type: "button", className: "more", ariaExpanded: "false" }, "more");
  more.onclick = () => {
    const open = more.getAttribute("aria-expanded") !== "true";
    text.textContent = open ? t.value : t.value.slice(0, CUT_AT) + "…";
    more.textContent = open ? "less" : "more";
    more.setAttribute("aria-expanded", String(open));
  };
  td.append(text, " ", more);
  return td;
}

// Links saving the answer to `query` in each format the endpoint writes.
function downloadLinks(query, graph) {
  return ["Download:", ...(graph ? GRAPH_FORMATS : SOLUTION_FORMATS).flatMap(([f, label, ext]) => [" ",
    el("a", { href: `/sparql?format=${f}&query=${encodeURIComponent(query)}`, download: `results.${ext}`, className: "dl", title: label }, label)])];
}

// Shows a SPARQL JSON answer in `box` as a table with the id `id`, paged
// and sortable; returns the number of rows.
function showTable(box, res, id = "results") {
  if ("boolean" in res) {
    box.replaceChildren(el("table", { id },
      el("thead", {}, el("tr", {}, el("th", {}, "ASK"))),
      el("tbody", {}, el("tr", {}, el("td", {}, String(res.boolean))))));
    return 1;
  }
  const vars = res.head.vars;
  const rows = res.results.bindings.slice();
  const state = { page: 0, size: 100, col: -1, asc: true };
  const table = el("table", { id });
  table.dataset.total = rows.length;
  const pager = el("nav", { className: "pager", ariaLabel: "result pages" });
  const head = el("tr", {}, ...vars.map((v, i) => {
    const b = el("button", { type: "button", className: "sort" }, v);
    b.onclick = () => {
      state.asc = state.col === i ? !state.asc : true;
      state.col = i;
      rows.sort((x, y) => (state.asc ? 1 : -1) * compareTerms(x[v], y[v]));
      state.page = 0;
      draw();
    };
    return el("th", { scope: "col" }, b);
  }));
  table.append(el("thead", {}, head), el("tbody"));
  function draw() {
    const pages = Math.max(1, Math.ceil(rows.length / state.size));
    state.page = Math.min(state.page, pages - 1);
    const from = state.page * state.size, to = Math.min(rows.length, from + state.size);
    [...head.cells].forEach((th, i) => {
      th.setAttribute("aria-sort", i === state.col ? (state.asc ? "ascending" : "descending") : "none");
      th.className = i === state.col ? (state.asc ? "asc" : "desc") : "";
    });
    table.tBodies[0].replaceChildren(...rows.slice(from, to).map((b) => el("tr", {}, ...vars.map((v) => termCell(b[v])))));
    const go = (label, cls, page, disabled) => {
      const b = el("button", { type: "button", className: cls, disabled }, label);
      b.onclick = () => { state.page = page; draw(); };
      return b;
    };
    const size = el("select", { className: "page-size", ariaLabel: "rows per page" },
      ...PAGE_SIZES.map((n) => el("option", { value: n, selected: n === state.size }, `${n} a page`)));
    size.onchange = () => { state.page = Math.floor(from / Number(size.value)); state.size = Number(size.value); draw(); };
    pager.replaceChildren(
      go("« first", "first", 0, state.page === 0), go("‹ previous", "prev", state.page - 1, state.page === 0),
      el("span", { className: "page-info", ariaLive: "polite" },
        rows.length ? `rows ${from + 1}–${to} of ${rows.length} · page ${state.page + 1} of ${pages}` : "no rows"),
      go("next ›", "next", state.page + 1, state.page >= pages - 1), go("last »", "last", pages - 1, state.page >= pages - 1),
      size);
    pager.hidden = rows.length <= PAGE_SIZES[0];
  }
  draw();
  box.replaceChildren(pager, el("div", { className: "table-scroll" }, table));
  return rows.length;
}

Object.assign(window, { showTable, downloadLinks, checkpointGraphs, roundNumber, postQuery });
})();

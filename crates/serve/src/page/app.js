// The page of `kld serve`: benchmarks, one benchmark's questions, the pass
// rates of verification results (an SVG chart) with the outcomes behind each
// bar, the SPARQL query's results (the editor itself is editor.js), and
// (under --watch) the current load errors.
// Plain JS, no dependencies: everything comes from this server's routes.
"use strict";

const $ = (sel) => document.querySelector(sel);
const el = (tag, props = {}, ...kids) => {
  const e = document.createElement(tag);
  Object.assign(e, props);
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k ?? "")));
  return e;
};

async function getJson(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(await r.text());
  return r.json();
}

// ---- sortable tables -------------------------------------------------------
// Each header becomes a button (reached and pressed from the keyboard) that
// sorts by its column; aria-sort says the order.
function makeSortable(table) {
  table.querySelectorAll("thead th").forEach((th, i) => {
    const button = el("button", { type: "button", className: "sort" }, ...th.childNodes);
    th.replaceChildren(button);
    th.scope = "col";
    button.onclick = () => {
      const asc = !th.classList.contains("asc");
      table.querySelectorAll("thead th").forEach((h) => { h.classList.remove("asc", "desc"); h.removeAttribute("aria-sort"); });
      th.classList.add(asc ? "asc" : "desc");
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      const num = th.dataset.type === "num";
      const rows = [...table.tBodies[0].rows];
      rows.sort((a, b) => {
        const x = a.cells[i]?.dataset.sort ?? a.cells[i]?.textContent ?? "";
        const y = b.cells[i]?.dataset.sort ?? b.cells[i]?.textContent ?? "";
        const c = num ? Number(x) - Number(y) : x.localeCompare(y);
        return asc ? c : -c;
      });
      rows.forEach((r) => table.tBodies[0].append(r));
    };
  });
}

// ---- benchmarks ------------------------------------------------------------
async function loadBenchmarks() {
  const list = await getJson("/checkpoints");
  const body = $("#benchmarks-table tbody");
  body.replaceChildren();
  for (const b of list) {
    const tr = el("tr", { className: "clickable" },
      el("td", {}, b.name), el("td", {}, b.version ?? ""),
      el("td", {}, b.questions), el("td", {}, b.finished), el("td", {}, b.traits),
      el("td", {}, Object.keys(b.keywords || {}).length),
      el("td", {}, b.source));
    tr.dataset.graph = b.graph;
    checkpointGraphs.set(b.graph, b);
    tr.onclick = () => openBenchmark(b);
    body.append(tr);
  }
}

const prop = (node, name) => (node.additionalProperty || []).find((p) => p.name === name)?.value;
const traitType = (r) => String(r.additionalType || "").replace(/^karenina:/, "");
// The filters follow the catalogue queries of the same name: `unfinished`
// (finished is not true), `questions-without-template` (empty, or Karenina's
// default placeholder), `keywords`, `traits` (question-specific trait types).
const PLACEHOLDER = "Default template: returns False";
const templateState = (t) => (!t.replace(/\s/g, "") ? "none" : t.includes(PLACEHOLDER) ? "placeholder" : "yes");

let current = null; // { info, questions: [...] }

async function openBenchmark(info) {
  const r = await fetch("/checkpoint?graph=" + encodeURIComponent(info.graph));
  const cp = await r.json();
  const questions = (cp.dataFeedElement || []).map((it, i) => {
    const q = it.item || {};
    const template = (q.hasPart && (Array.isArray(q.hasPart) ? q.hasPart[0] : q.hasPart)) || {};
    return {
      index: i + 1, id: it["@id"], text: q.text || "", answer: q.acceptedAnswer?.text ?? "",
      template: template.text || "", keywords: q.keywords || [], finished: prop(q, "finished") === true,
      traits: q.rating || [], metadata: q.additionalProperty || [],
    };
  });
  current = { info, cp, questions };
  $("#benchmark").hidden = false;
  $("#benchmark-title").textContent = `${info.name} (${info.version ?? "no version"}) — ${questions.length} questions`;
  benchmarkDownloads(info.graph);
  const kws = [...new Set(questions.flatMap((q) => q.keywords))].sort();
  $("#f-keyword").replaceChildren(el("option", { value: "" }, "any"), ...kws.map((k) => el("option", { value: k }, k)));
  // Global traits apply to every question: the filter is over question-specific ones.
  const kinds = [...new Set(questions.flatMap((q) => q.traits).map(traitType))].sort();
  $("#f-trait").replaceChildren(el("option", { value: "" }, "any"), ...kinds.map((k) => el("option", { value: k }, k)));
  $("#question-detail").hidden = true;
  renderQuestions();
  $("#benchmark").scrollIntoView();
}

// Downloads in the formats the field shares (docs/interop.md), from
// GET /export: Inspect and Croissant for a benchmark, EEE for a run.
const exportUrl = (graph, format, extra = "") =>
  `/export?graph=${encodeURIComponent(graph)}&format=${format}${extra}`;

// Saves the body of `url` as `name`, or shows the server's refusal in `status`.
async function saveAs(url, name, status) {
  const r = await fetch(url);
  if (!r.ok) { status.textContent = (await r.text()).trim(); return; }
  const href = URL.createObjectURL(await r.blob());
  const a = el("a", { href, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 60000);
  status.textContent = "";
}

// Croissant asks for the licence, which checkpoints do not carry (`unknown`
// writes an explicit note that it is not known).
function benchmarkDownloads(graph) {
  const status = el("span", { className: "refusal", id: "dl-status" });
  const croissant = el("a", { href: "#", id: "dl-croissant" }, "Croissant");
  croissant.onclick = (e) => {
    e.preventDefault();
    const license = prompt("Licence of this benchmark (SPDX identifier, e.g. CC-BY-4.0, a URL, or unknown)");
    if (license) saveAs(exportUrl(graph, "croissant", "&license=" + encodeURIComponent(license)), "croissant.json", status);
  };
  $("#benchmark-downloads").replaceChildren("Download: ",
    el("a", { href: exportUrl(graph, "inspect"), download: "inspect.jsonl", id: "dl-inspect" }, "Inspect (JSONL)"), " ",
    croissant, " ", status);
}

// A run's Every Eval Ever files (an aggregate JSON and its instance rows per
// answering model): listed by the server, one download link each.
function runDownloads(r) {
  if (r.source !== "export" || !r.checkpoint || !r.graph) return "-";
  const cell = el("span", { className: "eee" });
  const button = el("button", { type: "button", className: "dl-eee" }, "EEE files");
  button.onclick = async () => {
    const got = await fetch(exportUrl(r.graph, "eee"));
    if (!got.ok) { cell.replaceChildren((await got.text()).trim()); return; }
    const { files } = await got.json();
    cell.replaceChildren(...files.flatMap((f) => {
      const name = f.path.split("/").pop();
      return [el("a", { href: f.href, download: name, className: "dl-eee-file", title: f.path }, name), " "];
    }));
  };
  cell.append(button);
  return cell;
}

function renderQuestions() {
  if (!current) return;
  const kw = $("#f-keyword").value, unfinished = $("#f-unfinished").checked;
  const noTemplate = $("#f-notemplate").checked, kind = $("#f-trait").value;
  const shown = current.questions.filter((q) =>
    (!kw || q.keywords.includes(kw)) && (!unfinished || !q.finished) &&
    (!noTemplate || templateState(q.template) !== "yes") && (!kind || q.traits.some((t) => traitType(t) === kind)));
  const body = $("#questions-table tbody");
  body.replaceChildren();
  for (const q of shown) {
    const tr = el("tr", { className: "clickable" },
      el("td", {}, q.index), el("td", {}, q.text.length > 140 ? q.text.slice(0, 139) + "…" : q.text),
      el("td", {}, ...q.keywords.map((k) => el("span", { className: "tag" }, k))),
      el("td", {}, q.finished ? "yes" : "no"),
      el("td", {}, { yes: "yes", none: "no", placeholder: "default placeholder" }[templateState(q.template)]),
      el("td", {}, q.traits.length));
    tr.onclick = () => showQuestion(q);
    body.append(tr);
  }
  $("#question-count").textContent = `${shown.length} of ${current.questions.length} shown`;
}

function showQuestion(q) {
  const d = $("#question-detail");
  d.hidden = false;
  d.replaceChildren(
    el("h3", {}, `Question ${q.index}`), el("p", {}, el("code", {}, q.id || "")),
    el("h4", {}, "Text"), el("pre", {}, q.text),
    el("h4", {}, "Expected answer"), el("pre", {}, q.answer),
    el("h4", {}, "Answer template"), el("pre", {}, q.template || "(none)"),
    el("h4", {}, `Traits (${q.traits.length})`),
    ...q.traits.map((t) => el("div", {},
      el("strong", {}, t.name), " ", el("span", { className: "tag" }, traitType(t)), " ", t.description || "",
      el("pre", {}, JSON.stringify(Object.fromEntries((t.additionalProperty || []).map((p) => [p.name, p.value])), null, 2)))),
    el("h4", {}, "Metadata"),
    el("pre", {}, JSON.stringify(Object.fromEntries(q.metadata.map((p) => [p.name, p.value])), null, 2)));
  d.scrollIntoView();
}

// ---- SPARQL editor ---------------------------------------------------------
let catalogue = [];

async function loadCatalogue() {
  catalogue = await getJson("/queries");
}

function downloadsFor(query, graph) {
  $("#downloads").replaceChildren(...downloadLinks(query, graph));
}

async function runQuery() {
  const query = $("#query").value;
  const status = $("#status"), errorBox = $("#query-error");
  errorBox.hidden = true;
  status.textContent = "running…";
  const started = performance.now();
  const r = await fetch("/sparql", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/sparql-results+json, text/turtle;q=0.5" },
    body: new URLSearchParams({ query }),
  });
  const ms = Math.round(performance.now() - started);
  const box = $("#results-box");
  box.replaceChildren();
  $("#downloads").replaceChildren();
  if (!r.ok) {
    status.textContent = `error ${r.status} after ${ms} ms`;
    errorBox.textContent = await r.text();
    errorBox.hidden = false;
    if (typeof kldEditor !== "undefined") kldEditor.markError(errorBox.textContent);
    return;
  }
  const ctype = r.headers.get("Content-Type") || "";
  if (!ctype.includes("sparql-results+json")) {
    errorBox.hidden = false;
    errorBox.style.color = "inherit";
    errorBox.textContent = await r.text();
    downloadsFor(query, true);
    status.textContent = `graph in ${ms} ms`;
    return;
  }
  errorBox.style.color = "";
  const res = await r.json();
  const n = showTable(box, res);
  downloadsFor(query, false);
  status.textContent = "boolean" in res ? `answered in ${ms} ms` : `${n} rows in ${ms} ms`;
}

// ---- results view ----------------------------------------------------------
// Terms put into query text: a string literal with \ " and line breaks
// escaped; an IRI with the characters SPARQL forbids in one percent-encoded.
const sparqlString = (s) => '"' + String(s).replace(/[\\"\n\r]/g,
  (c) => ({ "\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r" })[c]) + '"';
const sparqlIri = (s) => "<" + String(s).replace(/[\u0000-\u0020<>"{}|^`\\]/g,
  (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")) + ">";

// `named`: the dataset's named graphs (the SPARQL Protocol's
// named-graph-uri; none: every graph).
async function select(query, named = []) {
  const r = await postQuery(query, "application/sparql-results+json", named);
  if (!r.ok) throw new Error(await r.text());
  const res = await r.json();
  return res.results.bindings.map((b) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v.value])));
}

const SVG = "http://www.w3.org/2000/svg";
const svg = (tag, attrs = {}, ...kids) => {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...kids);
  return e;
};

async function loadResults() {
  drawChart(await select(VERDICT_QUERY));
  await loadBoard();
  await loadRuns();
  await loadUnbound();
}

// Every run (export, run folder, database) with its status and source: the
// catalogue's `runs`.
async function loadRuns() {
  const q = catalogue.find((c) => c.name === "runs");
  if (!q) return;
  const rows = await select(q.query);
  $("#runs").hidden = rows.length === 0;
  $("#runs-table tbody").replaceChildren(...rows.map((r) => {
    const tr = el("tr", {}, el("td", {}, r.label ? `${r.run} (${r.label})` : r.run),
      el("td", {}, r.status || "-"), el("td", {}, r.source), el("td", {}, r.results),
      el("td", {}, r.started || "-"), el("td", {}, r.completed || "-"),
      el("td", {}, r.checkpoint ? el("code", {}, r.checkpoint) : (r.benchmark || "not bound")),
      el("td", {}, r.answering_models || ""), el("td", {}, runDownloads(r)));
    tr.dataset.status = r.status || "";
    tr.dataset.source = r.source;
    return tr;
  }));
}

// Verdicts: true, false, null (no verdict), and a CSV's empty cell, which is
// false or null. One class (and colour) each, as in the legend.
const VERDICTS = [
  ["passed", "fill", "true"], ["failed", "fail", "false"],
  ["no_verdict", "none", "null"], ["false_or_null", "unknown", "false or null"],
];

// The chart's bars: the verdicts (verify_result true, false, null, a CSV's
// "false or null") of each benchmark, run and combo (answering model ×
// judge × MCP servers), over the results of the benchmark's own questions
// (as pass-rate-by-benchmark joins them): one judge's and one run's results
// per bar, never pooled (issue 35). A bar's percentage is the share of rows
// passed (verify_result true over every result); the leaderboard's is the
// template pass rate (docs/numbers.md#the-rate-names).
const VERDICT_QUERY = `PREFIX karenina: <urn:karenina:vocab:>
PREFIX schema: <https://schema.org/>
SELECT ?benchmark ?graph ?results_graph (SAMPLE(?rn) AS ?run) ?combo ?answering_model ?parsing_model ?interface ?model_name
  (COUNT(?r) AS ?results)
  (SUM(IF(BOUND(?v) && ?v, 1, 0)) AS ?passed)
  (SUM(IF(BOUND(?v) && !?v, 1, 0)) AS ?failed)
  (SUM(IF(!BOUND(?v) && !?csv, 1, 0)) AS ?no_verdict)
  (SUM(IF(!BOUND(?v) && ?csv, 1, 0)) AS ?false_or_null)
  (IF(SUM(IF(BOUND(?v) || ?csv, 1, 0)) > 0, SUM(IF(BOUND(?v) && ?v, 1, 0)) / COUNT(?r), 1/0) AS ?pass_rate)
WHERE {
  ?rg karenina:forBenchmark ?graph .
  GRAPH ?graph { ?feed a schema:DataFeed ; schema:name ?benchmark }
  OPTIONAL { GRAPH ?rg { ?x a karenina:VerificationRun ; karenina:sourceFormat ?format } }
  BIND(COALESCE(?format = "csv", false) AS ?csv)
  {
    { SELECT DISTINCT ?graph ?qid WHERE { GRAPH ?graph { ?item a schema:DataFeedItem ; karenina:id ?qid } } }
    GRAPH ?rg { ?r karenina:questionId ?qid MINUS { ?r karenina:scenarioId ?sid } }
  } UNION {
    { SELECT DISTINCT ?graph ?sid ?nid WHERE {
        GRAPH ?graph { ?s a karenina:Scenario ; schema:name ?sid ; karenina:node/schema:nodeId ?nid } } }
    GRAPH ?rg { ?r karenina:scenarioId ?sid ; karenina:scenarioNode ?nid }
  }
  GRAPH ?rg {
    ?r karenina:combo ?combo ; karenina:answeringModel ?answering_model ; karenina:parsingModel ?parsing_model ;
       karenina:runName ?rn ; karenina:answeringInterface ?interface ; karenina:answeringModelName ?model_name .
    OPTIONAL { ?r karenina:verifyResult ?v }
  }
  BIND(?rg AS ?results_graph)
}
GROUP BY ?benchmark ?graph ?results_graph ?combo ?answering_model ?parsing_model ?interface ?model_name
ORDER BY ?benchmark ?graph ?results_graph ?combo`;

function drawChart(rows) {
  const box = $("#pass-chart");
  chartRows = rows;
  $("#results-empty").hidden = rows.length > 0;
  if (!rows.length) { box.replaceChildren(); $("#outcomes").hidden = true; return; }
  const barH = 22, gap = 8, labelW = 480, chartW = 400, top = 26;
  const height = top + rows.length * (barH + gap) + 4;
  const chart = svg("svg", { width: labelW + chartW + 230, height, viewBox: `0 0 ${labelW + chartW + 230} ${height}`, role: "img",
    "aria-label": "outcomes per answering model and benchmark" });
  for (const p of [0, 25, 50, 75, 100]) {
    const x = labelW + (chartW * p) / 100;
    chart.append(svg("line", { x1: x, x2: x, y1: top - 6, y2: height - 2, class: "grid" }),
      svg("text", { x, y: top - 10, "text-anchor": "middle", class: "axis" }, `${p}%`));
  }
  rows.forEach((r, i) => {
    const y = top + i * (barH + gap);
    const n = Number(r.results) || 0;
    const count = (k) => Number(r[k] || 0);
    const g = svg("g", { class: "bar", tabindex: 0 });
    Object.assign(g.dataset, { graph: r.graph, benchmark: r.benchmark, interface: r.interface,
      model: r.model_name, run: r.results_graph, judge: r.parsing_model, combo: r.combo, passed: r.passed, results: r.results, failed: count("failed"),
      noVerdict: count("no_verdict"), falseOrNull: count("false_or_null") });
    const counts = VERDICTS.map(([k, , name]) => `${count(k)} ${name}`).join(", ");
    // No pass rate when no result has a verdict (a scenario run): not 0 %.
    const label = r.pass_rate !== undefined
      ? `share of rows passed ${Math.round((100 * count("passed")) / n)}% (${r.passed}/${r.results})`
      : `no verdict (${count("no_verdict")} of ${r.results} null)`;
    g.append(svg("title", {}, `${r.combo} on ${benchmarkLabel(r.graph, r.benchmark)}, run ${r.run} (${r.results_graph}): ${counts}`),
      svg("text", { x: labelW - 8, y: y + barH * 0.72, "text-anchor": "end", class: "label" }, barLabel(r, 28, 20)),
      svg("rect", { x: labelW, y, width: chartW, height: barH, class: "track" }));
    let x = labelW;
    for (const [k, cls] of VERDICTS) {
      const w = n ? (chartW * count(k)) / n : 0;
      g.append(svg("rect", { x, y, width: w, height: barH, class: cls }));
      x += w;
    }
    g.append(svg("text", { x: labelW + chartW + 8, y: y + barH * 0.72, class: "value" }, label));
    g.onclick = () => showOutcomes(r);
    g.onkeydown = (e) => { if (e.key === "Enter") showOutcomes(r); };
    chart.append(g);
  });
  box.replaceChildren(chart);
  // Cut by characters, a label can still be wider than its column (wide
  // glyphs, punctuation) and lose its start at the chart's left edge: once
  // drawn, each is cut shorter until it fits.
  chart.querySelectorAll("text.label").forEach((t, i) => {
    for (let name = 24, model = 18; t.getComputedTextLength() > labelW - 12 && (name > 8 || model > 10); name = Math.max(8, name - 4), model = Math.max(10, model - 2)) {
      t.textContent = barLabel(rows[i], name, model);
    }
  });
}

// A bar's label: the benchmark (told apart by file), the answering model,
// the judge (without its interface) and, when the benchmark has several
// runs, the run's file; the first two cut to at most `name` and `model`
// characters, the judge and the file in their middle (their ends tell them
// apart).
const barLabel = (r, name, model) => {
  const runs = new Set(chartRows.filter((x) => x.graph === r.graph).map((x) => x.results_graph));
  const run = runs.size > 1 ? ` · ${cutMiddle(baseName(r.results_graph), Math.max(10, model - 4))}` : "";
  const judge = String(r.parsing_model).replace(/^[^:]*:/, "");
  return `${shortBenchmarkLabel(r.graph, r.benchmark, name)} · ${cutText(r.answering_model, model)} · `
    + `${cutMiddle(judge, Math.max(8, model - 6))}${run}`;
};
const cutMiddle = (text, max) => (text.length > max
  ? `${text.slice(0, Math.ceil((max - 1) / 2))}…${text.slice(text.length - Math.floor((max - 1) / 2))}` : text);
let chartRows = [];
const baseName = (path) => String(path).split(/[\\/]/).pop();

// Runs bound to no benchmark (orphan, ambiguous, a refused --for), with why.
async function loadUnbound() {
  const rows = await select(`PREFIX karenina: <urn:karenina:vocab:>
SELECT ?graph ?source ?reason (COUNT(?r) AS ?results) WHERE {
  ?graph a karenina:ResultsGraph ; karenina:source ?source .
  FILTER NOT EXISTS { ?graph karenina:forBenchmark ?c }
  OPTIONAL { ?graph karenina:bindingNote ?reason }
  OPTIONAL { GRAPH ?graph { ?r a karenina:VerificationResult } }
} GROUP BY ?graph ?source ?reason ORDER BY ?source`);
  $("#unbound").hidden = rows.length === 0;
  $("#unbound-table tbody").replaceChildren(...rows.map((u) => {
    const tr = el("tr", {}, el("td", {}, el("code", {}, u.source)), el("td", {}, u.results),
      el("td", {}, u.reason || "not bound"));
    tr.dataset.graph = u.graph;
    return tr;
  }));
}

const verdictOf = (o) => (o.verify_result === "true" ? ["true", "true"]
  : o.verify_result === "false" ? ["false", "false"]
  : o.format === "csv" ? ["unknown", "false or null"] : ["null", "null (no verdict)"]);

// `named`: the leaderboard's filter (the dataset its cell was counted over).
async function showOutcomes(r, named = []) {
  const g = sparqlIri(r.graph);
  // The results behind the bar: as pass-rate-by-benchmark counts them.
  const rows = await select(`PREFIX karenina: <urn:karenina:vocab:>
PREFIX schema: <https://schema.org/>
SELECT ?question_id ?question_text ?replicate ?verify_result ?format ?failure_category ?run WHERE {
  ?rg karenina:forBenchmark ${g} .
  {
    { SELECT DISTINCT ?question_id WHERE { GRAPH ${g} { ?item a schema:DataFeedItem ; karenina:id ?question_id } } }
    GRAPH ?rg { ?r karenina:questionId ?question_id MINUS { ?r karenina:scenarioId ?sid } }
  } UNION {
    { SELECT DISTINCT ?sid ?nid WHERE {
        GRAPH ${g} { ?s a karenina:Scenario ; schema:name ?sid ; karenina:node/schema:nodeId ?nid } } }
    GRAPH ?rg { ?r karenina:scenarioId ?sid ; karenina:scenarioNode ?nid ; karenina:questionId ?question_id }
  }
  GRAPH ?rg {
    ?r a karenina:VerificationResult ; karenina:runName ?run ;
       karenina:answeringInterface ${sparqlString(r.interface)} ;
       karenina:answeringModelName ${sparqlString(r.model_name)} .
    ${r.combo ? `?r karenina:combo ${sparqlString(r.combo)} .` : ""}
    OPTIONAL { ?r karenina:replicate ?replicate }
    OPTIONAL { ?r karenina:verifyResult ?verify_result }
    OPTIONAL { ?r karenina:failureCategory ?failure_category }
  }
  OPTIONAL { GRAPH ?rg { ?x a karenina:VerificationRun ; karenina:sourceFormat ?format } }
  ${r.results_graph ? `FILTER(?rg = ${sparqlIri(r.results_graph)})` : ""}
  OPTIONAL {
    SELECT ?question_id (SAMPLE(?text) AS ?question_text) WHERE {
      GRAPH ${g} { ?item a schema:DataFeedItem ; karenina:id ?question_id ; schema:item/schema:text ?text }
    } GROUP BY ?question_id
  }
} ORDER BY ?question_id ?run ?replicate`, named);
  $("#outcomes").hidden = false;
  $("#outcomes-title").textContent =
    `${r.interface}:${r.model_name}${r.parsing_model ? `, judge ${r.parsing_model}, run ${r.run}` : ""} on ${benchmarkLabel(r.graph, r.benchmark)}: ${r.passed} of ${r.results} passed`;
  $("#outcomes-table tbody").replaceChildren(...rows.map((o) => {
    const [cls, text] = verdictOf(o);
    const tr = el("tr", {},
      el("td", {}, el("code", {}, o.question_id)),
      el("td", {}, (o.question_text || "").slice(0, 160)),
      el("td", {}, o.replicate ?? ""),
      el("td", { className: `verdict-${cls}` }, text),
      el("td", {}, o.failure_category ?? ""),
      el("td", {}, o.run));
    return tr;
  }));
  $("#outcomes").scrollIntoView();
}

// ---- load errors (--watch) -------------------------------------------------
async function loadErrors() {
  const e = await getJson("/errors");
  $("#errors").hidden = e.errors.length === 0;
  $("#error-list").replaceChildren(...e.errors.map((x) => el("li", {}, el("pre", {}, x.message))));
  return e.watching;
}

async function main() {
  makeSortable($("#benchmarks-table"));
  makeSortable($("#questions-table"));
  for (const id of ["#f-keyword", "#f-unfinished", "#f-notemplate", "#f-trait"]) $(id).onchange = renderQuestions;
  // Only a click the user made (or the editor's Ctrl-Enter, which says so)
  // runs a query: no script, no other site's, presses Run for them.
  $("#run").onclick = (e) => { if (e.isTrusted || window.kldRunByUser) runQuery(); };
  for (const id of ["#board-view", "#board-run", "#board-benchmark"]) $(id).onchange = drawBoard;
  makeSortable($("#outcomes-table"));
  makeSortable($("#unbound-table"));
  makeSortable($("#runs-table"));
  await Promise.all([loadBenchmarks(), loadCatalogue()]);
  await loadResults();
  if (await loadErrors()) {
    setInterval(() => { loadErrors(); loadBenchmarks(); loadResults(); }, 2000);
  }
}

main().catch((e) => { document.body.prepend(el("pre", { id: "fatal" }, String(e))); });

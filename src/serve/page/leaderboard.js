// The page's leaderboard: answering models × benchmarks, the pass rate of
// each (with n, no-verdict counts apart, a colour scale that always comes
// with its text), or the per-trait scores; sortable by any column,
// filterable by run and by benchmark, each cell opening what is behind it
// (a pass rate its outcomes, a trait score each result's score).
// Every number comes from a catalogue query run by the server
// (/queries/pass-rate-by-benchmark, /queries/scores-by-trait), so the board
// shows what `kld query` shows. A filter is the SPARQL Protocol's dataset
// (`named-graph-uri`: the run's results graph and its checkpoint, or a
// checkpoint and the runs bound to it): the same query over fewer graphs,
// as `kld query` over those files would answer it.
// Plain JS, no dependencies; uses `el`, `select`, `showOutcomes`,
// `sparqlIri` and `sparqlString` from app.js, and `showTable`,
// `roundNumber` and `postQuery` from table.js.
// Its names stay inside it but for those it exports: loadBoard, drawBoard,
// benchmarkLabel, shortBenchmarkLabel, cutText.
(() => {
"use strict";

// ---- unique labels ---------------------------------------------------------
// A checkpoint graph's label: its benchmark's name, and where two loaded
// checkpoints share that name, the file it was loaded from (its whole path
// when the file names clash too).
const baseName = (path) => String(path).split(/[\\/]/).pop();

function benchmarkParts(graph, name) {
  const cp = checkpointGraphs.get(graph);
  const own = cp?.name ?? name ?? graph;
  const same = [...checkpointGraphs.values()].filter((c) => c.name === own);
  if (!cp || same.length < 2) return { name: own, file: "" };
  const file = baseName(cp.source);
  return { name: own, file: same.filter((c) => baseName(c.source) === file).length > 1 ? cp.source : file };
}

function benchmarkLabel(graph, name) {
  const p = benchmarkParts(graph, name);
  return p.file ? `${p.name} (${p.file})` : p.name;
}

// The label cut to about `max` characters, the file kept (cut last).
function shortBenchmarkLabel(graph, name, max) {
  const p = benchmarkParts(graph, name);
  if (!p.file) return cutText(p.name, max);
  const file = cutText(p.file, Math.max(12, Math.floor(max / 2)));
  return `${cutText(p.name, Math.max(8, max - file.length - 3))} (${file})`;
}

// `text` cut to `max` characters with an ellipsis (the full text goes in a
// title beside it).
const cutText = (text, max) => (text.length > max ? text.slice(0, max - 1) + "…" : text);

// ---- data ------------------------------------------------------------------
async function catalogueRows(name, named = []) {
  const params = new URLSearchParams(named.map((g) => ["named-graph-uri", g]));
  const r = await fetch(`/queries/${name}?${params}`, { headers: { Accept: "application/sparql-results+json" } });
  if (!r.ok) throw new Error(await r.text());
  const res = await r.json();
  return res.results.bindings.map((b) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v.value])));
}

const board = { runs: [], view: "pass", sort: { col: -1, asc: false } };

// The runs bound to a benchmark (the catalogue's `runs`), for the run
// filter, then the board. Under --watch the page calls this every 2 s: the
// board is drawn again only when the store changed (a graph, checkpoint or
// results, came, went or was loaded again: the digests, load times and
// bindings of the provenance differ), so a cell keeps the keyboard focus
// and an open list stays open.
async function loadBoard() {
  const signature = JSON.stringify(await select(`PREFIX karenina: <urn:karenina:vocab:>
SELECT ?g ?sha ?at ?for WHERE {
  ?g karenina:sha256 ?sha ; karenina:loadedAt ?at OPTIONAL { ?g karenina:forBenchmark ?for }
} ORDER BY ?g`));
  if (signature === board.signature) return;
  board.signature = signature;
  board.runs = (await catalogueRows("runs")).filter((r) => r.checkpoint);
  const runSelect = document.getElementById("board-run");
  const keep = runSelect.value;
  runSelect.replaceChildren(el("option", { value: "" }, "all runs"), ...board.runs.map((r) =>
    el("option", { value: r.graph, title: r.graph },
      `${r.run}${r.label ? ` (${r.label})` : ""} · ${baseName(r.graph)}`)));
  runSelect.value = keep;
  const graphs = [...new Set(board.runs.map((r) => r.checkpoint))];
  const benchSelect = document.getElementById("board-benchmark");
  const keepB = benchSelect.value;
  benchSelect.replaceChildren(el("option", { value: "" }, "all benchmarks"), ...graphs
    .map((g) => [g, benchmarkLabel(g)]).sort((a, b) => a[1].localeCompare(b[1]))
    .map(([g, label]) => el("option", { value: g, title: label }, cutText(label, 80))));
  benchSelect.value = keepB;
  document.getElementById("board").hidden = graphs.length === 0;
  await drawBoard();
}

// The datasets the filters stand for, one per checkpoint shown: [checkpoint,
// [named graphs]] (no filter: one dataset, every graph).
function datasets(perCheckpoint) {
  const run = document.getElementById("board-run").value;
  const bench = document.getElementById("board-benchmark").value;
  let cps = [...new Set(board.runs.map((r) => r.checkpoint))];
  if (bench) cps = cps.filter((g) => g === bench);
  if (run) cps = cps.filter((g) => board.runs.some((r) => r.graph === run && r.checkpoint === g));
  if (!run && !bench && !perCheckpoint) return [[null, []]];
  return cps.map((g) => [g, [g, ...board.runs.filter((r) => r.checkpoint === g && (!run || r.graph === run)).map((r) => r.graph)]]);
}

// ---- cells -----------------------------------------------------------------
// The colour of a rate: red (0) through yellow to green (1), light enough
// for dark text on it; the text says the same.
const rateColour = (rate) => `hsl(${Math.round(rate * 120)}, 70%, 84%)`;

function passCell(r, named) {
  const n = Number(r.results), passed = Number(r.passed);
  const noVerdict = Number(r.no_verdict || 0), csv = Number(r.false_or_null || 0);
  const rate = r.pass_rate === undefined ? null : Number(r.pass_rate);
  const b = el("button", { type: "button", className: "board-cell" },
    el("strong", {}, rate === null ? "no verdict" : `${Math.round(rate * 100)}%`), " ",
    el("span", { className: "n" }, `${passed}/${n}`));
  if (noVerdict) b.append(el("span", { className: "extra" }, `${noVerdict} no verdict`));
  if (csv) b.append(el("span", { className: "extra" }, `${csv} false or null`));
  b.title = `${r.interface}:${r.model_name} on ${benchmarkLabel(r.graph, r.benchmark)}: ${passed} passed, `
    + `${r.failed} failed, ${noVerdict} no verdict, ${csv} false or null, of ${n}`
    + (rate === null ? "" : `; pass rate ${r.pass_rate}`);
  Object.assign(b.dataset, { graph: r.graph, benchmark: r.benchmark, interface: r.interface,
    model: r.model_name, results: r.results, passed: r.passed, failed: r.failed,
    noVerdict: r.no_verdict, falseOrNull: r.false_or_null, passRate: r.pass_rate ?? "" });
  b.onclick = () => showOutcomes(r, named);
  return { node: b, sort: rate ?? -1, colour: rate === null ? "#e6e9ef" : rateColour(rate) };
}

// The scores behind a trait cell: each result's score of that trait and
// key, joined as scores-by-trait joins them (so as many scores as its n).
function traitScoresQuery(r, graph) {
  const g = sparqlIri(graph), lit = sparqlString;
  return `PREFIX karenina: <urn:karenina:vocab:>
PREFIX schema: <https://schema.org/>
SELECT ?question_id ?value ?run ?replicate WHERE {
  ?rg karenina:forBenchmark ${g} .
  {
    { SELECT DISTINCT ?question_id WHERE { GRAPH ${g} { ?member a schema:DataFeedItem ; karenina:id ?question_id } } }
    GRAPH ?rg { ?r karenina:questionId ?question_id MINUS { ?r karenina:scenarioId ?sid } }
  } UNION {
    { SELECT DISTINCT ?sid ?nid WHERE { GRAPH ${g} { ?sc a karenina:Scenario ; schema:name ?sid ; karenina:node/schema:nodeId ?nid } } }
    GRAPH ?rg { ?r karenina:scenarioId ?sid ; karenina:scenarioNode ?nid ; karenina:questionId ?question_id }
  }
  GRAPH ?rg {
    ?r karenina:answeringInterface ${lit(r.interface)} ; karenina:answeringModelName ${lit(r.model_name)} ;
       karenina:runName ?run ; karenina:score ?s .
    ?s karenina:trait/karenina:traitName ${lit(r.trait)} ; karenina:scoreKey ${lit(r.score_key)} .
    OPTIONAL { ?s schema:value ?value }
    OPTIONAL { ?r karenina:replicate ?replicate }
  }
  GRAPH ${g} {
    ?feed a schema:DataFeed .
    {
      ?feed schema:contentRating ?rating .
      BIND("global" AS ?scope)
    } UNION {
      ?item a schema:DataFeedItem ; karenina:id ?question_id ; schema:item/schema:contentRating ?rating .
      BIND("question" AS ?scope)
    }
    ?rating schema:name ${lit(r.trait)} .
  }
  FILTER(?scope = ${lit(r.scope)})
} ORDER BY ?question_id ?run ?replicate`;
}

async function showTraitScores(r, graph, named) {
  const got = await postQuery(traitScoresQuery(r, graph), "application/sparql-results+json", named);
  const box = document.getElementById("trait-scores");
  const title = el("h3", { id: "trait-scores-title" },
    `${r.interface}:${r.model_name}, ${r.trait} ${r.score_key} on ${benchmarkLabel(graph, r.benchmark)}`);
  if (!got.ok) { box.replaceChildren(title, el("pre", { className: "refusal" }, await got.text())); box.hidden = false; return; }
  const table = el("div");
  box.replaceChildren(title, table);
  box.hidden = false;
  showTable(table, await got.json(), "trait-scores-table");
  box.scrollIntoView({ block: "nearest" });
}

function traitCell(r, graph, named) {
  const n = Number(r.n), trues = Number(r.true_count);
  const mean = r.mean === undefined ? null : Number(r.mean);
  // Boolean traits have no mean: their share of true is the rate coloured.
  const rate = mean === null ? (n ? trues / n : null) : null;
  const b = el("button", { type: "button", className: "board-cell" },
    el("strong", {}, mean !== null ? roundNumber(r.mean) : `${trues}/${n} true`), " ",
    el("span", { className: "n" }, `n=${n}`));
  b.title = `${r.interface}:${r.model_name}, ${r.trait} (${r.type}, ${r.scope}) ${r.score_key}: `
    + (mean !== null ? `mean ${r.mean}` : `${trues} true`) + ` over ${n} scores`;
  Object.assign(b.dataset, { graph, benchmark: r.benchmark, model: r.model_name, interface: r.interface,
    scope: r.scope, trait: r.trait, scoreKey: r.score_key, n: r.n, trueCount: r.true_count, mean: r.mean ?? "" });
  b.onclick = () => showTraitScores(r, graph, named);
  return { node: b, sort: mean ?? rate ?? -1, colour: rate === null ? "" : rateColour(rate) };
}

// scores-by-trait for each checkpoint shown: [graph, named graphs, rows].
// The query groups by benchmark *name*, so a checkpoint whose name another
// loaded checkpoint shares gets a query of its own (over it and its runs);
// unfiltered, all the others share one query over every graph (its rows
// are theirs by name): 2 requests rather than 120 for 120 checkpoints of
// distinct names.
async function traitAnswers() {
  const sets = datasets(true);
  const filtered = document.getElementById("board-run").value || document.getElementById("board-benchmark").value;
  const named = (g) => [...checkpointGraphs.values()].filter((c) => c.name === checkpointGraphs.get(g)?.name).length;
  const alone = filtered ? [] : sets.filter(([g]) => named(g) === 1);
  const apart = sets.filter((s) => !alone.includes(s));
  const [shared, ...own] = await Promise.all([
    alone.length ? catalogueRows("scores-by-trait") : [],
    ...apart.map(([, graphs]) => catalogueRows("scores-by-trait", graphs)),
  ]);
  const byName = new Map(alone.map(([g]) => [checkpointGraphs.get(g).name, g]));
  return [
    ...alone.map(([g]) => [g, [], shared.filter((r) => byName.get(r.benchmark) === g)]),
    ...apart.map(([g, graphs], i) => [g, graphs, own[i]]),
  ];
}

// ---- the table -------------------------------------------------------------
// Asks the server for the view's answers under the filters, then draws them.
async function drawBoard() {
  const view = document.getElementById("board-view").value;
  // Another view has other columns: its sort starts again.
  if (board.view !== view) Object.assign(board, { view, sort: { col: -1, asc: false } });
  for (const p of document.querySelectorAll(".board-legend")) p.hidden = p.dataset.view !== view;
  const status = document.getElementById("board-status");
  status.textContent = "loading…";
  const columns = new Map(); // key -> { label, title }
  const models = new Map(); // "interface:model" -> Map(key -> cell)
  const put = (r, key, label, title, cell, parts) => {
    columns.set(key, { label, title, parts });
    const m = `${r.interface}:${r.model_name}`;
    if (!models.has(m)) models.set(m, new Map());
    models.get(m).set(key, cell);
  };
  if (view === "pass") {
    for (const [, named] of datasets(false)) {
      for (const r of await catalogueRows("pass-rate-by-benchmark", named)) {
        const label = benchmarkLabel(r.graph, r.benchmark);
        put(r, r.graph, label, `${label}\n${r.graph}`, passCell(r, named), benchmarkParts(r.graph, r.benchmark));
      }
    }
  } else {
    for (const [g, named, rows] of await traitAnswers()) {
      for (const r of rows) {
        const label = `${benchmarkLabel(g, r.benchmark)} · ${r.score_key}`;
        const parts = benchmarkParts(g, r.benchmark);
        put(r, `${g}\u0000${r.scope}\u0000${r.trait}\u0000${r.score_key}`, label, `${label} (${r.type}, ${r.scope} trait)`, traitCell(r, g, named),
          { name: parts.name, file: [parts.file, r.score_key].filter(Boolean).join(" · ") });
      }
    }
  }
  board.data = { columns, models, view };
  renderBoard();
}

// Draws the board's answers (board.data) in its order; sorting draws again
// without asking the server, the pressed header keeping the focus.
function renderBoard(focus = -1) {
  const { columns, models, view } = board.data;
  const status = document.getElementById("board-status");
  const keys = [...columns.keys()].sort((a, b) => columns.get(a).label.localeCompare(columns.get(b).label));
  const table = document.getElementById("leaderboard");
  const { sort } = board;
  if (sort.col > keys.length) sort.col = -1;
  // A column's header: the name (cut to three lines) and, apart, what tells
  // it from another of that name; the whole label on hover.
  const header = (parts, title, i) => {
    const button = el("button", { type: "button", className: "sort", title },
      el("span", { className: "label" }, cutText(parts.name, 120)));
    if (parts.file) button.append(el("span", { className: "file" }, parts.file));
    // A benchmark column sorts highest first, then lowest first.
    button.onclick = () => { sort.asc = sort.col === i ? !sort.asc : i === 0; sort.col = i; renderBoard(i); };
    const th = el("th", { scope: "col" }, button);
    th.setAttribute("aria-sort", sort.col === i ? (sort.asc ? "ascending" : "descending") : "none");
    if (sort.col === i) th.className = sort.asc ? "asc" : "desc";
    return th;
  };
  table.tHead.replaceChildren(el("tr", {}, header({ name: "Answering model" }, "interface:model", 0),
    ...keys.map((k, i) => header(columns.get(k).parts, columns.get(k).title, i + 1))));
  const rows = [...models.entries()];
  rows.sort(([ma, ca], [mb, cb]) => {
    if (sort.col <= 0) return (sort.col === 0 && !sort.asc ? -1 : 1) * ma.localeCompare(mb);
    const k = keys[sort.col - 1];
    // Models without results there go last either way.
    const x = ca.get(k)?.sort, y = cb.get(k)?.sort;
    if (x === undefined || y === undefined) return (x === undefined) - (y === undefined) || ma.localeCompare(mb);
    return (sort.asc ? 1 : -1) * (x - y) || ma.localeCompare(mb);
  });
  table.tBodies[0].replaceChildren(...rows.map(([m, cells]) => el("tr", {},
    el("th", { scope: "row", className: "model" }, m),
    ...keys.map((k) => {
      const c = cells.get(k);
      const td = el("td", {}, c ? c.node : "–");
      if (c?.colour) td.style.background = c.colour;
      if (!c) td.title = "no results of this model on this benchmark";
      return td;
    }))));
  status.textContent = `${rows.length} models × ${keys.length} ${view === "pass" ? "benchmarks" : "trait scores"}`;
  if (focus >= 0) table.tHead.querySelectorAll("button.sort")[focus]?.focus();
}

Object.assign(window, { loadBoard, drawBoard, benchmarkLabel, shortBenchmarkLabel, cutText });
})();

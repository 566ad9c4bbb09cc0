// The page's leaderboard: answering models × benchmarks, in three views.
// - pass rate: Karenina's template_pass_by_combo (passed / results whose
//   template verification was performed) of each answering model on each
//   run of each benchmark (or, asked, over the latest result per question),
//   one judge (parsing model) at a time or every judge side by side with
//   their mean and spread: never a count pooled over judges or over two
//   runs. Every cell shows its n and its other results by outcome, an
//   infrastructure failure (retry, system) apart from a wrong answer
//   (content). The numbers are the server's (GET /leaderboard, the library's
//   results::board), not computed here.
// - matrix: question × model × replicate, each result's outcome (GET
//   /matrix), as Karenina's GUI shows it.
// - trait scores: the catalogue's scores-by-trait per benchmark; a filter is
//   the SPARQL Protocol's dataset (`named-graph-uri`).
// Plain JS, no dependencies; uses `el`, `select`, `sparqlIri` and
// `sparqlString` from app.js, and `showTable`, `roundNumber` and `postQuery`
// from table.js.
// Its names stay inside it but for those it exports: loadBoard, drawBoard,
// benchmarkLabel, shortBenchmarkLabel, cutText, openMatrix. With every
// judge (the default), the pass-rate view is figures.js's model × judge
// grid; the matrix is drawn by figures.js too, the comparison by
// compare.js (drawCompare).
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
const byId = (id) => document.getElementById(id);

// The filters as the server's board routes take them (GET /leaderboard,
// /matrix); `extra` overrides (an empty value drops one).
function boardParams(extra = {}) {
  const p = new URLSearchParams();
  for (const [k, id] of [["judge", "board-judge"], ["run", "board-run"], ["benchmark", "board-benchmark"], ["label", "board-label"]]) {
    if (byId(id).value) p.set(k, byId(id).value);
  }
  if (byId("board-latest").checked) p.set("latest", "1");
  for (const [k, v] of Object.entries(extra)) { if (v) p.set(k, v); else p.delete(k); }
  return p;
}

async function boardJson(path, params) {
  const r = await fetch(`${path}?${params}`, { headers: { Accept: "application/json" } });
  if (!r.ok) throw new Error(await r.text());
  return r.json();
}

// A select's options: `first` (no filter), then `values`; the choice kept
// when it is still there.
function fillSelect(id, first, values, label = (v) => v) {
  const s = byId(id);
  const keep = s.value;
  s.replaceChildren(el("option", { value: "" }, first),
    ...values.map((v) => el("option", { value: v, title: label(v) }, cutText(label(v), 80))));
  s.value = values.includes(keep) ? keep : "";
}

// The runs bound to a benchmark (the catalogue's `runs`), the judges and
// the run labels, for the filters, then the board. Under --watch the page
// calls this every 2 s: the board is drawn again only when the store
// changed (a graph, checkpoint or results, came, went or was loaded again:
// the digests, load times and bindings of the provenance differ), so a cell
// keeps the keyboard focus and an open list stays open.
async function loadBoard() {
  const signature = JSON.stringify(await select(`PREFIX karenina: <urn:karenina:vocab:>
SELECT ?g ?sha ?at ?for WHERE {
  ?g karenina:sha256 ?sha ; karenina:loadedAt ?at OPTIONAL { ?g karenina:forBenchmark ?for }
} ORDER BY ?g`));
  if (signature === board.signature) return;
  board.signature = signature;
  for (const id of ["board-judge", "board-label", "board-latest"]) byId(id).onchange = drawBoard;
  board.runs = (await catalogueRows("runs")).filter((r) => r.checkpoint);
  const runLabel = (g) => {
    const r = board.runs.find((x) => x.graph === g);
    return `${r.run}${r.label ? ` (${r.label})` : ""} · ${baseName(r.graph)}`;
  };
  fillSelect("board-run", "all runs", board.runs.map((r) => r.graph), runLabel);
  const graphs = [...new Set(board.runs.map((r) => r.checkpoint))];
  fillSelect("board-benchmark", "all benchmarks",
    graphs.sort((a, b) => benchmarkLabel(a).localeCompare(benchmarkLabel(b))), (g) => benchmarkLabel(g));
  const all = await boardJson("/leaderboard", new URLSearchParams());
  fillSelect("board-judge", "all judges, each apart", all.judges);
  fillSelect("board-label", "any label", all.labels);
  byId("board-label").closest("label").hidden = all.labels.length === 0;
  byId("board").hidden = graphs.length === 0;
  await drawBoard();
}

// The datasets the filters stand for, one per checkpoint shown: [checkpoint,
// [named graphs]] (no filter: one dataset, every graph). For the trait view.
function datasets(perCheckpoint) {
  const run = byId("board-run").value;
  const bench = byId("board-benchmark").value;
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

// What the board calls each outcome (Karenina's failure groups).
const OUTCOME_NAMES = { passed: "passed", content: "wrong", abstained: "abstained", autofail: "auto-fail",
  retry: "infra: retries exhausted", system: "infra: system error", no_verdict: "no verdict",
  unclassified: "failed, unclassified (CSV)" };

// A row's head: the answering model, with its MCP servers when its name
// does not already list them.
const modelLabel = (m) => (m.mcp.length && !m.answering.includes("+[") ? `${m.answering} · MCP ${m.mcp.join(", ")}` : m.answering);

// One judge's cell of a model on a column: the rate, passed/n (n: the
// results whose template verification was performed), then wrong answers
// and infrastructure failures apart, and the rest by outcome. Opens the
// matrix behind it.
function passCell(c, col, model, withJudge) {
  const pct = c.pass_pct;
  const o = c.outcomes;
  const infra = o.retry + o.system;
  const b = el("button", { type: "button", className: "board-cell" });
  if (withJudge) b.append(el("span", { className: "judge" }, c.judge), " ");
  b.append(el("strong", {}, pct === null ? "no rate" : `${Math.round(pct)}%`), " ",
    el("span", { className: "n" }, `${c.passed} of n=${c.total}`));
  const extra = [`${o.content} wrong`, `${infra} infra`];
  for (const k of ["abstained", "autofail", "no_verdict", "unclassified"]) if (o[k]) extra.push(`${o[k]} ${OUTCOME_NAMES[k]}`);
  if (c.undetermined) extra.push(`${c.undetermined} not recorded (CSV)`);
  b.append(el("span", { className: "extra" }, extra.join(" · ")));
  b.title = `${c.combo}\non ${col.label}\n`
    + `template pass rate ${pct === null ? "none" : `${pct}%`}: ${c.passed} passed of ${c.total} results with template verification `
    + `(Karenina's template_pass_by_combo)\n${c.results} results of ${c.questions} questions: `
    + Object.entries(o).map(([k, v]) => `${v} ${OUTCOME_NAMES[k] ?? k}`).join(", ")
    + (c.undetermined ? `; ${c.undetermined} whose file does not record whether the template was verified` : "");
  Object.assign(b.dataset, { judge: c.judge, combo: c.combo, answering: model.answering, mcp: model.mcp.join(", "),
    checkpoint: col.checkpoint, run: col.run ?? "", passed: c.passed, total: c.total, passPct: pct ?? "",
    results: c.results, questions: c.questions, mostPerQuestion: c.most_per_question, content: o.content,
    retry: o.retry, system: o.system, abstained: o.abstained, autofail: o.autofail, noVerdict: o.no_verdict,
    unclassified: o.unclassified });
  b.onclick = () => openMatrix(col, c.judge);
  return b;
}

// The matrix behind a cell: that benchmark, run (or the latest results) and judge.
function openMatrix(col, judge) {
  byId("board-view").value = "matrix";
  byId("board-judge").value = judge;
  byId("board-benchmark").value = col.checkpoint;
  byId("board-run").value = col.run ?? "";
  drawBoard().then(() => byId("matrix").scrollIntoView({ block: "nearest" }));
}

// The pass-rate view's columns and rows from GET /leaderboard: one judge's
// cell, or each judge's with their mean and spread (never a pooled count).
async function passAnswers(put) {
  const lb = await boardJson("/leaderboard", boardParams());
  const cols = lb.columns.map((c) => {
    const parts = benchmarkParts(c.checkpoint, c.benchmark);
    const run = c.run ? `${c.run_name} · ${baseName(c.run)}` : "latest result per question";
    const label = `${benchmarkLabel(c.checkpoint, c.benchmark)} · ${run}`;
    return { ...c, label, title: `${label}${c.labels.length ? ` [${c.labels.join(", ")}]` : ""}\n${c.run ?? c.checkpoint}`,
      parts: { name: parts.name, file: [parts.file, run, ...c.labels].filter(Boolean).join(" · ") } };
  });
  const groups = new Map();
  for (const c of lb.cells) {
    const k = `${c.model}\u0000${c.column}`;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(c);
  }
  const one = Boolean(byId("board-judge").value);
  for (const cells of groups.values()) {
    const col = cols[cells[0].column], model = lb.models[cells[0].model];
    const spread = lb.spreads.find((s) => s.column === cells[0].column && s.model === cells[0].model);
    let node, rate;
    if (one) {
      node = passCell(cells[0], col, model, false);
      rate = cells[0].pass_pct;
    } else {
      node = el("div", { className: "judges" }, ...cells.map((c) => passCell(c, col, model, true)));
      if (spread && spread.judges > 1) {
        node.append(el("span", { className: "spread", title: "the judges' template pass rates: their mean (mean of judges' template pass rates), sample standard deviation (points), lowest to highest" },
          `mean ${spread.mean.toFixed(1)}%` + (spread.sd === null ? "" : ` · sd ${spread.sd.toFixed(1)}`)
          + ` · ${Math.round(spread.min)}–${Math.round(spread.max)}% · ${spread.judges} judge${spread.judges > 1 ? "s" : ""}`));
      }
      if (spread) Object.assign(node.dataset, { mean: spread.mean, sd: spread.sd ?? "", judges: spread.judges });
      rate = spread ? spread.mean : null;
    }
    put(modelLabel(model), `c${cells[0].column}`, col, { node, sort: rate ?? -1, colour: rate === null ? "#e6e9ef" : rateColour(rate / 100) });
  }
  return `${lb.latest ? "latest result per question" : "one column per run"}, `
    + (one ? `judge ${byId("board-judge").value}` : `${lb.judges.length} judges, each apart`);
}

// ---- the matrix ------------------------------------------------------------
// Question × model × replicate of one benchmark under one judge: one run's
// results, or the latest of each question across runs; figures.js draws it
// with its totals, order and heatmap.
const matrixAnswer = () => boardJson("/matrix", boardParams({ latest: "" }));

// The scores behind a trait cell: each result's score of that trait and
// key under its judge, joined as scores-by-trait-and-judge joins them (so as
// many scores as its n).
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
       karenina:parsingModel ${lit(r.parsing_model)} ; karenina:runName ?run ; karenina:score ?s .
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
    `${r.interface}:${r.model_name} judged by ${r.parsing_model}, ${r.trait} ${r.score_key} on ${benchmarkLabel(graph, r.benchmark)}`);
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
  b.title = `${r.interface}:${r.model_name} judged by ${r.parsing_model}, ${r.trait} (${r.type}, ${r.scope}) ${r.score_key}: `
    + (mean !== null ? `mean ${r.mean}` : `${trues} true`) + ` over ${n} scores`;
  Object.assign(b.dataset, { graph, benchmark: r.benchmark, model: r.model_name, interface: r.interface, judge: r.parsing_model,
    scope: r.scope, trait: r.trait, scoreKey: r.score_key, n: r.n, trueCount: r.true_count, mean: r.mean ?? "" });
  b.onclick = () => showTraitScores(r, graph, named);
  return { node: b, sort: mean ?? rate ?? -1, colour: rate === null ? "" : rateColour(rate) };
}

// scores-by-trait-and-judge for each checkpoint shown: [graph, named
// graphs, rows]. Each judge's scores apart (never pooled over parsing
// models), as the pass-rate views keep them.
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
    alone.length ? catalogueRows("scores-by-trait-and-judge") : [],
    ...apart.map(([, graphs]) => catalogueRows("scores-by-trait-and-judge", graphs)),
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
  // A later draw (the user changed a filter meanwhile) wins: this one stops
  // at its next step rather than drawing stale answers over it.
  const mine = (board.drawing = (board.drawing ?? 0) + 1);
  const current = () => mine === board.drawing;
  const view = byId("board-view").value;
  // Another view has other columns: its sort starts again.
  if (board.view !== view) Object.assign(board, { view, sort: { col: -1, asc: false } });
  // "columns": the pass rates as models × benchmark columns, every judge
  // apart in each cell (one judge chosen, the pass view is that too).
  const pass = view === "pass" || view === "columns";
  for (const p of document.querySelectorAll(".board-legend")) p.hidden = p.dataset.view !== (pass ? "pass" : view);
  // Every judge, each apart, is the model × judge grid (figures.js).
  const gridView = view === "pass" && !byId("board-judge").value;
  byId("matrix").hidden = view !== "matrix";
  byId("grid").hidden = !gridView;
  byId("leaderboard").closest(".table-scroll").hidden = view === "matrix" || gridView;
  byId("board-latest").closest("label").hidden = !pass;
  const status = byId("board-status");
  status.textContent = "loading…";
  // The comparison of the one run the filters leave (compare.js), apart
  // from the view: it draws again only when its run or the store changed.
  drawCompare(boardParams(), board);
  if (view === "matrix") {
    const m = await matrixAnswer();
    if (!current()) return;
    const line = await drawMatrixView(m, boardParams({ latest: "" }));
    if (current()) status.textContent = line;
    return;
  }
  if (gridView) {
    const line = await drawGrid(boardParams());
    if (current()) status.textContent = line;
    return;
  }
  const columns = new Map(); // key -> { label, title, parts }
  const models = new Map(); // row label -> Map(key -> cell)
  const put = (m, key, col, cell) => {
    columns.set(key, { label: col.label, title: col.title, parts: col.parts });
    if (!models.has(m)) models.set(m, new Map());
    models.get(m).set(key, cell);
  };
  let how = "";
  if (pass) {
    how = await passAnswers(put);
  } else {
    // A row per answering model and judge; one judge chosen, its rows.
    const judge = byId("board-judge").value;
    for (const [g, named, rows] of await traitAnswers()) {
      for (const r of rows) {
        if (judge && r.parsing_model !== judge) continue;
        const label = `${benchmarkLabel(g, r.benchmark)} · ${r.score_key}`;
        const parts = benchmarkParts(g, r.benchmark);
        put(`${r.interface}:${r.model_name}${judge ? "" : ` · judge ${r.parsing_model}`}`, `${g}\u0000${r.scope}\u0000${r.trait}\u0000${r.score_key}`,
          { label, title: `${label} (${r.type}, ${r.scope} trait)`,
            parts: { name: parts.name, file: [parts.file, r.score_key].filter(Boolean).join(" · ") } },
          traitCell(r, g, named));
      }
    }
  }
  if (!current()) return;
  board.data = { columns, models, view, how };
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
  status.textContent = `${rows.length} models × ${keys.length} ${view !== "traits" ? `benchmark columns (${board.data.how})` : "trait scores"}`;
  if (focus >= 0) table.tHead.querySelectorAll("button.sort")[focus]?.focus();
}

Object.assign(window, { loadBoard, drawBoard, benchmarkLabel, shortBenchmarkLabel, cutText, openMatrix });
})();

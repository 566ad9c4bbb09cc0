// The page's model × judge grid (the leaderboard's default: every judge,
// each apart), its figures, and the matrix's heatmap, totals and order.
// Every number is the server's: GET /grid and GET /figure answer the
// library's manuscript module over results::board (the numbers of
// GET /leaderboard and /matrix, and of `kld leaderboard` and `kld figure`);
// this script lays them out, colours them over their range, sorts them and
// offers the downloads: the table as CSV, Markdown, LaTeX and an HTML
// report; each figure as SVG (kld's), PNG (drawn from that SVG by the
// browser, at 300 dpi) and its data as CSV.
// Plain JS, no dependencies; uses `el` from app.js and `benchmarkLabel`,
// `cutText` and `openMatrix` from leaderboard.js. Exports drawGrid,
// drawMatrixView and figureBlock (compare.js draws its figures with it).
(() => {
"use strict";

const byId = (id) => document.getElementById(id);

// A rate's colour on a scale stretched over [lo, hi]: red (lo) through
// yellow to green (hi), light enough for dark text; the text says the rate.
const stretched = (rate, lo, hi) => `hsl(${Math.round((hi > lo ? (rate - lo) / (hi - lo) : 0.5) * 120)}, 70%, 84%)`;

const OUTCOME_NAMES = { passed: "passed", content: "wrong", abstained: "abstained", autofail: "auto-fail",
  retry: "infra: retries exhausted", system: "infra: system error", no_verdict: "no verdict",
  unclassified: "failed, unclassified (CSV)" };

const grid = { sorts: [], data: null, params: "" };

// A link that downloads `href` as `name`.
const download = (href, name, label) => el("a", { href, download: name, className: "download" }, label);

// The PNG of `svgText`, drawn by the browser on a canvas `scale` times the
// SVG's size (300 dpi for an SVG at 96 px per inch).
async function svgToPng(svgText, scale) {
  const img = new Image();
  const url = URL.createObjectURL(new Blob([svgText], { type: "image/svg+xml" }));
  try {
    await new Promise((ok, bad) => { img.onload = ok; img.onerror = () => bad(new Error("the SVG did not draw")); img.src = url; });
    const c = document.createElement("canvas");
    c.width = Math.round(img.width * scale);
    c.height = Math.round(img.height * scale);
    const g = c.getContext("2d");
    g.fillStyle = "#fff";
    g.fillRect(0, 0, c.width, c.height);
    g.scale(scale, scale);
    g.drawImage(img, 0, 0);
    return await new Promise((ok) => c.toBlob(ok, "image/png"));
  } finally {
    URL.revokeObjectURL(url);
  }
}

// A figure from GET /figure (`params` its filters and kind; or from `path`,
// GET /compare's figure=): the SVG inline (scaled to the page's width),
// then its downloads.
async function figureBlock(params, name, caption, path = "/figure") {
  const url = `${path}?${params}`;
  const r = await fetch(`${url}&format=svg`);
  const text = await r.text();
  const fig = el("figure", { className: "kld-figure" });
  if (!r.ok) { fig.append(el("pre", { className: "refusal" }, text)); return fig; }
  const holder = el("div", { className: "figure-svg" });
  holder.innerHTML = text; // kld's own SVG, every text in it escaped by the server
  const png = el("button", { type: "button", className: "download-png" }, "PNG");
  png.onclick = async () => {
    const blob = await svgToPng(text, 300 / 96);
    const a = el("a", { href: URL.createObjectURL(blob), download: `${name}.png` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  };
  fig.append(holder, el("figcaption", {}, caption, " Download: ",
    download(`${url}&format=svg`, `${name}.svg`, "SVG"), " · ", png, " · ",
    download(`${url}&format=csv`, `${name}.csv`, "CSV (its data)")));
  return fig;
}

// ---- the grid ----------------------------------------------------------------
// One judge's cell: the rate and its n; the rest of its results by outcome
// on hover. Opens the matrix of its run and judge.
function gridCell(c, judge, g, model) {
  const b = el("button", { type: "button", className: "board-cell grid-cell" },
    el("strong", {}, c.rate === null ? "no rate" : c.rate.toFixed(1)), el("span", { className: "n" }, `n=${c.n}`));
  const o = c.outcomes;
  b.title = `${c.combo}\ntemplate pass rate ${c.rate === null ? "none" : `${c.rate.toFixed(2)} %`}: ${c.passed} passed of n = ${c.n} `
    + `results whose template verification was performed (Karenina's template_pass_by_combo)\n${c.results} results of ${c.questions} questions: `
    + `${o.content ?? 0} wrong, ${(o.retry ?? 0) + (o.system ?? 0)} infra (retries exhausted or a system error)`
    + Object.entries(o).filter(([k, v]) => v && !["content", "retry", "system"].includes(k)).map(([k, v]) => `, ${v} ${OUTCOME_NAMES[k] ?? k}`).join("")
    + (c.interval ? `\n${Math.round(c.interval.level * 100)} % interval ${c.interval.lower.toFixed(1)}–${c.interval.upper.toFixed(1)} (${c.interval.method})` : "");
  Object.assign(b.dataset, { judge, combo: c.combo, answering: model.answering, mcp: model.mcp.join(", "),
    checkpoint: g.column.checkpoint, run: g.column.run ?? "", passed: c.passed, total: c.n, passPct: c.rate ?? "",
    results: c.results, questions: c.questions, mostPerQuestion: c.most_per_question, content: o.content ?? 0,
    retry: o.retry ?? 0, system: o.system ?? 0 });
  b.onclick = () => openMatrix(g.column, judge);
  return b;
}

function meanCell(m, judges) {
  const s = el("span", { className: "board-mean" }, el("strong", {}, m.mean.toFixed(1)),
    el("span", { className: "n" }, m.judges < judges ? `k=${m.judges}` : `${m.judges} judges`));
  s.title = `the unweighted mean of ${m.judges} judges' template pass rates (never pooled): ${m.mean.toFixed(2)} %`
    + (m.sd === null ? "" : `, sample SD ${m.sd.toFixed(2)} points`) + `, lowest ${m.min.toFixed(1)} %, highest ${m.max.toFixed(1)} %`
    + (m.interval ? `\n${Math.round(m.interval.level * 100)} % interval ${m.interval.lower.toFixed(1)}–${m.interval.upper.toFixed(1)} (${m.interval.method})` : "");
  Object.assign(s.dataset, { mean: m.mean, sd: m.sd ?? "", judges: m.judges });
  return s;
}

// The grid's title: its benchmark (named once, here) and its run.
function gridTitle(g) {
  const c = g.column;
  const run = c.run ? `run ${c.run_name}` : "latest result per question";
  return `${benchmarkLabel(c.checkpoint, c.benchmark)} · ${run}${c.labels.length ? ` · ${c.labels.join(", ")}` : ""}`;
}

// Rows in the chosen order: column 0 the model's name, 1..k a judge,
// k + 1 the mean; -1 the server's order (highest mean first).
function ordered(g, sort) {
  const rows = [...g.rows];
  if (sort.col < 0) return rows;
  const k = g.judges.length;
  const key = (r) => (sort.col === 0 ? r.label : sort.col <= k ? r.cells[sort.col - 1]?.rate ?? null : r.mean?.mean ?? null);
  return rows.sort((a, b) => {
    if (sort.col === 0) return (sort.asc ? 1 : -1) * a.label.localeCompare(b.label);
    const x = key(a), y = key(b);
    if (x === null || y === null) return (x === null) - (y === null) || a.label.localeCompare(b.label);
    return (sort.asc ? 1 : -1) * (x - y) || a.label.localeCompare(b.label);
  });
}

// A judge's header: its interface on one line, its model on the next, each
// cut with an ellipsis (the whole name on hover).
function judgeLabel(j) {
  const at = j.indexOf(":");
  return at > 0
    ? [el("span", { className: "cut iface" }, j.slice(0, at + 1)), el("span", { className: "cut" }, j.slice(at + 1))]
    : [el("span", { className: "cut" }, j)];
}

function gridTable(g, gi, focus) {
  const sort = (grid.sorts[gi] ??= { col: -1, asc: false });
  const [lo, hi] = (() => {
    const v = [...g.rows.flatMap((r) => r.cells.map((c) => c?.rate)), ...g.rows.map((r) => r.mean?.mean)].filter((x) => x !== null && x !== undefined);
    return v.length ? [Math.min(...v), Math.max(...v)] : [0, 100];
  })();
  const head = (content, title, i) => {
    const button = el("button", { type: "button", className: "sort", title }, el("span", { className: "label" }, ...[content].flat()));
    // The model column sorts A to Z first; a rate column highest first.
    button.onclick = () => { sort.asc = sort.col === i ? !sort.asc : i === 0; sort.col = i; drawGridTables(gi * 100 + i); };
    const th = el("th", { scope: "col" }, button);
    th.setAttribute("aria-sort", sort.col === i ? (sort.asc ? "ascending" : "descending") : "none");
    if (sort.col === i) th.className = sort.asc ? "asc" : "desc";
    return th;
  };
  const k = g.judges.length;
  const table = el("table", { className: "grid-table", id: `grid-${gi}` },
    el("thead", {}, el("tr", {}, head("Answering model", "interface:model (sort)", 0),
      ...g.judges.map((j, i) => head(judgeLabel(j), `judge (parsing model): ${j}`, i + 1)),
      head([el("span", { className: "cut" }, "Mean of"), el("span", { className: "cut" }, "judges")],
        "the unweighted mean of the judges' rates; never one pooled count", k + 1))),
    el("tbody", {}, ...ordered(g, sort).map((r) => el("tr", {},
      el("th", { scope: "row", className: "model", title: r.label }, el("span", { className: "cut" }, r.label)),
      ...r.cells.map((c, ji) => {
        const td = el("td", {}, c ? gridCell(c, g.judges[ji], g, r.model) : "–");
        if (c?.rate !== null && c?.rate !== undefined) td.style.background = stretched(c.rate, lo, hi);
        if (!c) td.title = `no results of this model under ${g.judges[ji]}`;
        return td;
      }),
      (() => {
        const td = el("td", { className: "mean" }, r.mean ? meanCell(r.mean, k) : "no rate");
        if (r.mean) td.style.background = stretched(r.mean.mean, lo, hi);
        return td;
      })()))));
  const scale = el("p", { className: "grid-scale" },
    el("span", { className: "swatch", style: `background:${stretched(lo, lo, hi)}` }), ` ${lo.toFixed(1)} % `,
    el("span", { className: "swatch", style: `background:${stretched((lo + hi) / 2, lo, hi)}` }), ` ${((lo + hi) / 2).toFixed(1)} % `,
    el("span", { className: "swatch", style: `background:${stretched(hi, lo, hi)}` }), ` ${hi.toFixed(1)} %: the colours span this table's range.`);
  if (focus >= 0 && Math.floor(focus / 100) === gi) setTimeout(() => table.tHead.querySelectorAll("button.sort")[focus % 100]?.focus());
  return [el("div", { className: "table-scroll" }, table), scale];
}

// Draws the grids (grid.data) again in their order, keeping the figures.
function drawGridTables(focus = -1) {
  grid.data.forEach((g, gi) => {
    const box = byId(`grid-box-${gi}`);
    if (box) box.replaceChildren(...gridTable(g, gi, focus));
  });
}

// The model × judge grids of the board under `params` (URLSearchParams of
// the filters), their downloads and each one's dot plot. Returns the
// status line.
async function drawGrid(params) {
  const box = byId("grid");
  const r = await fetch(`/grid?${params}`, { headers: { Accept: "application/json" } });
  if (!r.ok) throw new Error(await r.text());
  const grids = await r.json();
  if (grid.params !== String(params)) grid.sorts = [];
  grid.params = String(params);
  grid.data = grids;
  const dl = (format, ext) => download(`/grid?${params}&format=${format}&digits=1`, `leaderboard.${ext}`, ext === "html" ? "HTML report" : format === "markdown" ? "Markdown" : format === "latex" ? "LaTeX" : "CSV");
  const parts = [el("p", { className: "grid-downloads" }, "The leaderboard for a manuscript: ",
    dl("csv", "csv"), " · ", dl("markdown", "md"), " · ", dl("latex", "tex"), " · ", dl("html", "html"),
    " (one decimal; `kld leaderboard --digits N` for others).")];
  const figures = [];
  grids.forEach((g, gi) => {
    const [n0, n1] = (() => {
      const ns = g.rows.flatMap((x) => x.cells.filter((c) => c && c.rate !== null).map((c) => c.n));
      return [Math.min(...ns), Math.max(...ns)];
    })();
    const section = el("section", { className: "grid", id: `grid-section-${gi}` },
      el("h4", { title: `${gridTitle(g)}\n${g.column.run ?? g.column.checkpoint}` }, gridTitle(g)),
      el("div", { id: `grid-box-${gi}` }),
      el("p", { className: "caption" }, `Template pass rate (%) of each answering model (rows) under each judge (parsing model, columns): `
        + `${g.definition}; n = ${n0 === n1 ? n0 : `${n0} to ${n1}`} results per cell. Mean of judges: ${g.mean_definition}.`));
    parts.push(section);
    const p = new URLSearchParams(params);
    p.set("kind", "dots");
    p.set("column", gi);
    figures.push(figureBlock(p, `dots-${gi + 1}`, `Each model's template pass rate under each judge (points) and their mean (bar), ${gridTitle(g)}.`)
      .then((f) => section.append(f)));
  });
  box.replaceChildren(...parts);
  drawGridTables();
  await Promise.all(figures);
  const cells = grids.reduce((s, g) => s + g.rows.reduce((t, x) => t + x.cells.filter(Boolean).length, 0), 0);
  const models = new Set(grids.flatMap((g) => g.rows.map((x) => x.label))).size;
  const judges = new Set(grids.flatMap((g) => g.judges)).size;
  return `${models} models × ${judges} judges, each apart: ${cells} cells with n in ${grids.length} table${grids.length === 1 ? "" : "s"}`;
}

// ---- the matrix ----------------------------------------------------------------
const MATRIX_TEXT = { passed: "✓ pass", content: "✗ wrong", abstained: "abstained", autofail: "auto-fail",
  retry: "infra: retry", system: "infra: system", no_verdict: "no verdict", unclassified: "failed (CSV)" };
const matrixState = { order: "hardest", compact: true };
const rateText = (c) => (c.rate === null ? "–" : `${Math.round(c.rate)}%`);

// The results of one question (every judge, model and replicate) under the
// matrix, from the store (SPARQL over the benchmark's runs).
async function showQuestionResults(q, checkpoint) {
  const box = byId("question-results");
  const lit = sparqlString;
  const query = `PREFIX karenina: <urn:karenina:vocab:>
SELECT ?answering ?judge ?replicate ?verify_result ?outcome ?run WHERE {
  ?rg karenina:forBenchmark ${sparqlIri(checkpoint)} .
  GRAPH ?rg {
    ?r karenina:questionId ${lit(q.id)} ; karenina:answeringModelName ?answering ; karenina:parsingModelName ?judge .
    OPTIONAL { ?r karenina:replicate ?replicate } OPTIONAL { ?r karenina:verifyResult ?verify_result }
    OPTIONAL { ?r karenina:outcome ?outcome } OPTIONAL { ?r karenina:runName ?run }
  }
} ORDER BY ?answering ?judge ?replicate ?run`;
  const got = await postQuery(query, "application/sparql-results+json", []);
  const title = el("h4", { id: "question-results-title", title: q.id }, `Results of “${cutText(q.text ?? q.id, 120)}”, every judge`);
  const table = el("div");
  box.replaceChildren(title, table);
  box.hidden = false;
  if (!got.ok) { table.append(el("pre", { className: "refusal" }, await got.text())); return; }
  showTable(table, await got.json(), "question-results-table");
  box.scrollIntoView({ block: "nearest" });
}

// Draws the matrix `m` (GET /matrix) with the rates of GET /figure
// (kind=heatmap: each question's and each model's totals, the order by
// difficulty) under `params`; returns the status line.
async function drawMatrixView(m, params) {
  const box = byId("matrix");
  const p = new URLSearchParams(params);
  p.set("kind", "heatmap");
  const rates = await (await fetch(`/figure?${p}&format=json`)).json();
  const cells = new Map();
  for (const c of m.cells) {
    const k = `${c.question}\u0000${c.model}\u0000${c.replicate}`;
    if (!cells.has(k)) cells.set(k, []);
    cells.get(k).push(c);
  }
  const reps = m.replicates;
  const repName = (r) => (r === null ? "result" : `rep ${r}`);
  const total = new Map(rates.questions.map((q) => [q.id, q]));
  const modelAt = (x) => rates.models.findIndex((y) => y.answering === x.answering && y.mcp.join() === x.mcp.join());
  const order = m.questions.map((q, qi) => [q, qi]);
  if (matrixState.order === "hardest") {
    const rank = new Map(rates.questions.map((q, i) => [q.id, i]));
    order.sort(([a], [b]) => (rank.get(a.id) ?? 1e9) - (rank.get(b.id) ?? 1e9));
  }
  const compact = matrixState.compact;
  const totalCell = (c, extra = {}) => {
    const td = el("td", { className: "total", title: `template pass rate ${c.rate === null ? "none" : `${c.rate.toFixed(1)} %`}: ${c.passed} of n = ${c.n}` , ...extra },
      el("strong", {}, rateText(c)), el("span", { className: "n" }, ` n=${c.n}`));
    if (c.rate !== null) td.style.background = stretched(c.rate, 0, 100);
    return td;
  };
  const table = el("table", { id: "matrix-table", className: compact ? "compact" : "" },
    el("thead", {},
      el("tr", {}, el("th", { scope: "col", rowSpan: 2, className: "question" }, "Question"),
        ...m.models.map((x) => el("th", { scope: "colgroup", colSpan: reps.length, title: modelLabel(x) }, el("span", { className: "cut" }, modelLabel(x)))),
        el("th", { scope: "col", rowSpan: 2, title: "every model together: the question's template pass rate (its difficulty)" }, "all models")),
      el("tr", {}, ...m.models.flatMap(() => reps.map((r) => el("th", { scope: "col", title: repName(r) }, compact ? (r === null ? "" : String(r)) : repName(r)))))),
    el("tbody", {}, ...order.map(([q, qi]) => {
      const head = el("button", { type: "button", className: "question-link" }, cutText(q.text ?? q.id, 90));
      head.onclick = () => showQuestionResults(q, m.checkpoint);
      return el("tr", {},
        el("th", { scope: "row", title: `${q.id}${q.text ? `\n${q.text}` : ""}` }, head),
        ...m.models.flatMap((x, mi) => reps.map((r) => {
          const here = cells.get(`${qi}\u0000${mi}\u0000${r}`) ?? [];
          const td = el("td", {}, ...here.map((c) => el("span", {
            className: `outcome outcome-${c.outcome}`, title: `${modelLabel(x)} · ${repName(r)}: ${c.outcome} · verify_result ${c.verify} · ${c.run}` }, compact ? "" : MATRIX_TEXT[c.outcome] ?? c.outcome)));
          if (!here.length) td.append(compact ? "" : "–");
          if (compact && here.length) td.className = `heat outcome-${here[0].outcome}`;
          Object.assign(td.dataset, { question: q.id, model: x.answering, replicate: r ?? "", count: here.length,
            outcome: here.map((c) => c.outcome).join(" ") });
          return td;
        })),
        total.has(q.id) ? totalCell(total.get(q.id).total, { className: "total row-total" }) : el("td", {}, "–"));
    })),
    el("tfoot", {}, el("tr", {}, el("th", { scope: "row", title: "each model over every question: its template pass rate under this judge (its grid cell)" }, "all questions"),
      ...m.models.map((x) => {
        const i = modelAt(x);
        const td = i < 0 ? el("td", {}, "–") : totalCell(rates.totals[i], { className: "total col-total" });
        td.colSpan = reps.length;
        td.dataset.model = x.answering;
        return td;
      }), el("td", {}))));
  const orderSel = el("select", { id: "matrix-order" },
    el("option", { value: "hardest" }, "hardest question first"), el("option", { value: "id" }, "by question ID"));
  orderSel.value = matrixState.order;
  orderSel.onchange = () => { matrixState.order = orderSel.value; drawBoard(); };
  const compactBox = el("input", { type: "checkbox", id: "matrix-compact", checked: compact });
  compactBox.onchange = () => { matrixState.compact = compactBox.checked; drawBoard(); };
  const controls = el("div", { className: "filters" },
    el("label", {}, "Order ", orderSel), el("label", {}, compactBox, " compact: colour only (the outcome on hover)"));
  const legend = el("p", { className: "matrix-legend" }, ...Object.entries(MATRIX_TEXT).map(([k, v]) =>
    el("span", { className: `legend-item` }, el("span", { className: `swatch outcome-${k}` }), ` ${v} `)));
  const fig = await figureBlock(p, "heatmap", `Template pass rate per question and answering model under ${rates.judge ?? "the judge"}, hardest first (the figure of this matrix).`);
  fig.open = false;
  const details = el("details", { className: "matrix-figure" }, el("summary", {}, "Heatmap figure (SVG, PNG, CSV)"), fig);
  box.replaceChildren(controls, legend, el("div", { className: "table-scroll matrix-scroll" }, table), details,
    el("div", { id: "question-results", hidden: true }));
  const run = byId("board-run").value;
  return `${m.questions.length} questions × ${m.models.length} models × ${reps.length} replicates · judge ${m.judge ?? "none"}`
    + (byId("board-judge").value ? "" : " (the first; choose one above)")
    + ` · ${m.latest ? "latest result per question" : `run ${run.split(/[\\/]/).pop()}`}`;
}

const modelLabel = (m) => (m.mcp.length && !m.answering.includes("+[") ? `${m.answering} · MCP ${m.mcp.join(", ")}` : m.answering);

Object.assign(window, { drawGrid, drawMatrixView, figureBlock });
})();

// The page's "Compare models": `kld compare` of one run, under the board's
// run, benchmark and label filters. Every number is the server's
// (GET /compare: the library's stats over the served results table, the
// bytes `kld compare` writes for the run's file); this script lays out its
// rounded tables (the paired differences, judges averaged and under each
// judge; the judges' agreement and Cohen's κ), draws its figures (the
// forest plot, the κ heatmap; kld's SVG) and offers the downloads: each
// table as CSV, Markdown, LaTeX and the HTML report; each figure as SVG,
// PNG and its data as CSV. Runs are never pooled: with several runs and
// none chosen the server says so and the section offers a choice.
// Plain JS, no dependencies; uses `el` (app.js), `cutText` (leaderboard.js)
// and `figureBlock` (figures.js). Exports drawCompare, which the board calls
// with its filters and its state (its runs, the store's signature).
(() => {
"use strict";

const byId = (id) => document.getElementById(id);
// The run chosen here when the board's filter leaves several.
const state = { key: null, run: "" };

const link = (href, name, label) => el("a", { href, download: name, className: "download" }, label);

// The downloads of one table: CSV (unrounded, `kld compare --format csv`),
// Markdown, LaTeX and the whole HTML report (rounded to one decimal).
function tableDownloads(p, table) {
  const u = (format, more = { table }) => `/compare?${new URLSearchParams({ ...Object.fromEntries(p), ...more, format, digits: 1 })}`;
  return el("p", { className: "compare-downloads" }, "Download: ",
    link(u("csv"), `${table}.csv`, "CSV"), " · ", link(u("markdown"), `${table}.md`, "Markdown"), " · ",
    link(u("latex"), `${table}.tex`, "LaTeX"), " · ",
    link(u("html", {}), "compare.html", "HTML report"));
}

// A model's name: `interface:` apart (a narrow window hides it, the whole
// name is on hover), then the rest.
function nameParts(x) {
  const at = x.indexOf(":");
  return at > 0 && !x.slice(0, at).includes(" ") ? [el("span", { className: "iface" }, x.slice(0, at + 1)), x.slice(at + 1)] : [x];
}

// One rounded table of the server's (Layout JSON): long names cut with the
// whole name on hover; it scrolls in its box, never the page.
function layoutTable(t, i) {
  const table = el("table", { className: "compare-table", id: `compare-table-${t.label}` },
    el("thead", {}, el("tr", {}, ...t.head.map((h, c) => el("th", { scope: "col", className: t.align[c] }, h)))),
    el("tbody", {}, ...t.rows.map((r) => el("tr", {}, ...r.map((x, c) => (t.align[c] === "left"
      ? el("th", { scope: "row", title: x }, el("span", { className: "cut" }, ...nameParts(x)))
      : el("td", { className: "num" }, x)))))));
  return el("div", { className: "compare-block" },
    el("h5", {}, t.title),
    el("div", { className: "table-scroll" }, table),
    el("p", { className: "caption" }, `Table ${i}. ${t.caption}`));
}

async function layouts(p, table) {
  const r = await fetch(`/compare?${new URLSearchParams({ ...Object.fromEntries(p), table, format: "json", digits: 1 })}`);
  if (!r.ok) throw Object.assign(new Error(await r.text()), { status: r.status });
  return r.json();
}

// When the filters leave several runs: the server's reason and a choice.
function chooseRun(message, params, board) {
  const sel = el("select", { id: "compare-run" }, el("option", { value: "" }, "choose a run…"),
    ...board.runs.filter((r) => (!params.get("benchmark") || r.checkpoint === params.get("benchmark"))
      && (!params.get("label") || (r.label ?? "").split(", ").includes(params.get("label"))))
      .map((r) => el("option", { value: r.graph, title: r.graph }, cutText(`${r.run} · ${r.graph.split(/[\\/]/).pop()}`, 80))));
  sel.onchange = () => { state.run = sel.value; state.key = null; drawCompare(params, board); };
  return [el("p", { className: "refusal" }, message), el("label", {}, "Run ", sel)];
}

// Draws the section for the board's filters (`params`: URLSearchParams;
// `board`: its runs and the store's signature); again only when the run,
// benchmark, label or the store changed.
async function drawCompare(params, board) {
  const box = byId("compare");
  const body = byId("compare-body");
  const p = new URLSearchParams();
  for (const k of ["run", "benchmark", "label"]) if (params.get(k)) p.set(k, params.get(k));
  if (!p.get("run") && state.run) p.set("run", state.run);
  const key = `${p}\u0000${board.signature}`;
  if (key === state.key) return;
  state.key = key;
  // No run bound to a benchmark: nothing the board shows to compare.
  box.hidden = !board.runs.length;
  if (box.hidden) return;
  const status = byId("compare-status");
  status.textContent = "comparing…";
  try {
    // The first answer computes the comparison (the server keeps it for
    // the rest): one query slot busy meanwhile, not four.
    const pairs = await layouts(p, "pairs");
    const agreement = await layouts(p, "agreement");
    if (state.key !== key) return;
    const [averaged, ...perJudge] = pairs;
    const forest = new URLSearchParams(p);
    forest.set("figure", "forest");
    const kappa = new URLSearchParams(p);
    kappa.set("figure", "kappa");
    const [forestFig, kappaFig] = await Promise.all([
      figureBlock(forest, "forest", "Paired differences between answering models (judges averaged) with their intervals: each question's score the mean of its rows; kld compare --figure forest.", "/compare"),
      figureBlock(kappa, "kappa", "Cohen's κ of each pair of judges on the template verdicts of the answers both rated; the colours span this figure's κs (its legend); kld compare --figure kappa.", "/compare"),
    ]);
    if (state.key !== key) return;
    // Tables numbered in the order they stand.
    let n = 0;
    const first = layoutTable(averaged, ++n);
    const judges = perJudge.length
      ? [el("details", { className: "compare-judges" }, el("summary", {}, `The same under each of the ${perJudge.length} judges`),
        ...perJudge.map((t) => layoutTable(t, ++n)))]
      : [];
    const agree = agreement.map((t) => layoutTable(t, ++n));
    body.replaceChildren(
      el("section", { className: "compare-part", id: "compare-pairs" }, el("h4", {}, "Paired differences"),
        first, tableDownloads(p, "pairs"), forestFig, ...judges),
      el("section", { className: "compare-part", id: "compare-agreement" }, el("h4", {}, "Judge agreement"),
        ...agree, tableDownloads(p, "agreement"), kappaFig));
    const run = p.get("run");
    status.textContent = `${averaged.rows.length} pairs of answering models · ${run ? `run ${run.split(/[\\/]/).pop()}` : "the one run loaded"}`;
  } catch (e) {
    if (state.key !== key) return;
    status.textContent = "";
    body.replaceChildren(...(e.status === 400 && /never pooled/.test(e.message)
      ? chooseRun(e.message, params, board)
      : [el("p", { className: "refusal" }, e.message)]));
  }
}

Object.assign(window, { drawCompare });
})();

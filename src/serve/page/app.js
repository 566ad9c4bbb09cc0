// The page of `kld serve`: benchmarks, one benchmark's questions, a SPARQL
// editor over the catalogue, and (under --watch) the current load errors.
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
function makeSortable(table) {
  table.querySelectorAll("thead th").forEach((th, i) => {
    th.onclick = () => {
      const asc = !th.classList.contains("asc");
      table.querySelectorAll("thead th").forEach((h) => h.classList.remove("asc", "desc"));
      th.classList.add(asc ? "asc" : "desc");
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
    tr.onclick = () => openBenchmark(b);
    body.append(tr);
  }
}

const prop = (node, name) => (node.additionalProperty || []).find((p) => p.name === name)?.value;
const traitType = (r) => String(r.additionalType || "").replace(/^karenina:/, "");

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
  const kws = [...new Set(questions.flatMap((q) => q.keywords))].sort();
  $("#f-keyword").replaceChildren(el("option", { value: "" }, "any"), ...kws.map((k) => el("option", { value: k }, k)));
  const kinds = [...new Set([...(cp.rating || []), ...questions.flatMap((q) => q.traits)].map(traitType))].sort();
  $("#f-trait").replaceChildren(el("option", { value: "" }, "any"), ...kinds.map((k) => el("option", { value: k }, k)));
  $("#question-detail").hidden = true;
  renderQuestions();
  $("#benchmark").scrollIntoView();
}

function renderQuestions() {
  if (!current) return;
  const kw = $("#f-keyword").value, unfinished = $("#f-unfinished").checked;
  const noTemplate = $("#f-notemplate").checked, kind = $("#f-trait").value;
  const shown = current.questions.filter((q) =>
    (!kw || q.keywords.includes(kw)) && (!unfinished || !q.finished) &&
    (!noTemplate || !q.template.trim()) && (!kind || q.traits.some((t) => traitType(t) === kind)));
  const body = $("#questions-table tbody");
  body.replaceChildren();
  for (const q of shown) {
    const tr = el("tr", { className: "clickable" },
      el("td", {}, q.index), el("td", {}, q.text.length > 140 ? q.text.slice(0, 139) + "…" : q.text),
      el("td", {}, ...q.keywords.map((k) => el("span", { className: "tag" }, k))),
      el("td", {}, q.finished ? "yes" : "no"), el("td", {}, q.template.trim() ? "yes" : "no"),
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
  $("#catalogue").append(...catalogue.map((q) => el("option", { value: q.name }, q.name)));
}

function downloadsFor(query) {
  const span = $("#downloads");
  span.replaceChildren("Download: ",
    ...["csv", "tsv", "json"].map((f) => {
      const a = el("a", { href: `/sparql?format=${f}&query=${encodeURIComponent(query)}`, download: `results.${f}` }, f.toUpperCase());
      return el("span", {}, a, " ");
    }));
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
  const thead = $("#results thead"), tbody = $("#results tbody");
  thead.replaceChildren(); tbody.replaceChildren();
  if (!r.ok) {
    status.textContent = `error ${r.status} after ${ms} ms`;
    errorBox.textContent = await r.text();
    errorBox.hidden = false;
    return;
  }
  const ctype = r.headers.get("Content-Type") || "";
  if (!ctype.includes("sparql-results+json")) {
    errorBox.hidden = false;
    errorBox.style.color = "inherit";
    errorBox.textContent = await r.text();
    status.textContent = `graph in ${ms} ms`;
    return;
  }
  errorBox.style.color = "";
  const res = await r.json();
  if ("boolean" in res) {
    thead.append(el("tr", {}, el("th", {}, "ASK")));
    tbody.append(el("tr", {}, el("td", {}, String(res.boolean))));
    status.textContent = `answered in ${ms} ms`;
    return;
  }
  const vars = res.head.vars;
  thead.append(el("tr", {}, ...vars.map((v) => {
    const th = el("th", {}, v);
    th.dataset.type = "auto";
    return th;
  })));
  for (const b of res.results.bindings) {
    tbody.append(el("tr", {}, ...vars.map((v) => {
      const t = b[v];
      const td = el("td", {}, t ? (t.type === "uri" ? `<${t.value}>` : t.value) : "");
      if (t && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(t.value)) td.dataset.sort = t.value.padStart(24, "0");
      return td;
    })));
  }
  makeSortable($("#results"));
  downloadsFor(query);
  status.textContent = `${res.results.bindings.length} rows in ${ms} ms`;
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
  $("#catalogue").onchange = () => {
    const q = catalogue.find((c) => c.name === $("#catalogue").value);
    if (q) { $("#query").value = q.query; $("#query-description").textContent = q.description; }
  };
  $("#run").onclick = runQuery;
  await Promise.all([loadBenchmarks(), loadCatalogue()]);
  if (await loadErrors()) {
    setInterval(() => { loadErrors(); loadBenchmarks(); }, 2000);
  }
}

main().catch((e) => { document.body.prepend(el("pre", { id: "fatal" }, String(e))); });

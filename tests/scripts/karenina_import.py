"""Karenina's side of `kld import` (issue 37): generated sheets, and what
Karenina writes from them.

Run with the Karenina venv's python (it has pandas and openpyxl):

    VENV/bin/python karenina_import.py gen --seed S --cases N OUT
        N cases under OUT/NNNN/: the input files (CSV, TSV, XLSX with several
        sheets, a `.txt` read as TSV; now and then a CSV/TSV with pandas'
        implicit index, each data row a label longer than the header), `args.json` (the `kld import`
        arguments, files relative to the case directory, without `-o`/`--into`'s
        value: the test adds its own), `spec.json` (the tables, to rebuild a
        case row by row), an `existing.jsonld` when the case imports `--into`
        a checkpoint, and Karenina's outcome: `karenina.jsonld` (bytes as
        Karenina's `save` writes them) or `karenina.error`. Where `save` raises
        because a custom metadata cell is a date or time (pandas' `Timestamp`,
        which `json.dump` cannot write), the dates are given as their
        `isoformat()` text and saved again, as kld writes them; `karenina.note`
        says so. OUT/cases.jsonl has
        one line per case: {"case", "args", "outcome", "duplicates",
        "features"}.

    VENV/bin/python karenina_import.py rows CASE_DIR OUT
        The case rebuilt with one data row per sub-case (OUT/rNNN/, same files,
        sheets and options, that row alone in every table): where kld and
        Karenina disagree on a whole case, the first row that disagrees alone
        is a minimal reproduction.

    VENV/bin/python karenina_import.py subset CASE_DIR OUT --keep 0,3,4
        The case with only those data rows in every table (for shrinking a
        case whose rows disagree only together).

    VENV/bin/python karenina_import.py karenina [KLD IMPORT ARGS…]
        Karenina run on `kld import`'s own arguments (FILE… -o OUT | --into
        CHECKPOINT, the column options, --name/--description/--version/
        --creator, --sheet, --format csv|tsv|xlsx): `extract_questions_from_file`
        per file, `Benchmark.create(...)` (or `Benchmark.load` of --into),
        `add_question` for each question in order (a question whose ID is
        already in the benchmark makes `add_question` raise: it is skipped and
        listed, as kld reports it), then `save`. Prints the outcome as JSON.

    VENV/bin/python karenina_import.py extract [KLD IMPORT ARGS…]
        The same, `extract_questions_from_file` alone (no Benchmark, no save).

    VENV/bin/python karenina_import.py sheet N PATH
        A Karenina-style CSV sheet of N rows (every column option used), for the
        benchmark; prints the `kld import` column options for it as JSON.

Timestamps: Karenina takes `dateCreated`/`dateModified` (benchmark and each
item) and the benchmark's `@id` (`urn:uuid:karenina-checkpoint-<epoch>`) from
the clock; everything else is deterministic. They are left as Karenina writes
them; the comparison masks exactly those lines (crates/cli/tests/cli/differential/import.rs).
"""

import argparse
import csv
import datetime as dt
import json
import os
import random
import shutil
import sys
import time
from pathlib import Path

# ---------------------------------------------------------------------------
# The oracle: Karenina on kld import's arguments.


def kld_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kld import")
    p.add_argument("files", nargs="+")
    p.add_argument("-o", "--output")
    p.add_argument("--into")
    p.add_argument("--question-column", default="Question")
    p.add_argument("--answer-column", default="Answer")
    p.add_argument("--sheet")
    p.add_argument("--author-name-column")
    p.add_argument("--author-email-column")
    p.add_argument("--author-affiliation-column")
    p.add_argument("--url-column")
    p.add_argument("--keywords-column", action="append", default=[])
    p.add_argument("--answer-notes-column")
    p.add_argument("--custom-metadata-column", action="append", default=[])
    p.add_argument("--name")
    p.add_argument("--description")
    p.add_argument("--version")
    p.add_argument("--creator")
    p.add_argument("--format")
    return p


def keyword_config(arg: str) -> dict:
    """`COL[:SEP]` as Karenina's keywords_columns entry (separator "," when absent)."""
    col, colon, sep = arg.partition(":")
    return {"column": col, "separator": sep if colon else ","}


def run_karenina(argv: list[str], cwd: Path, extract_only: bool = False) -> dict:
    """Karenina's extractor + Benchmark + save on kld's arguments; the outcome
    (with the seconds each step took). `extract_only`: the extractor alone."""
    from karenina.benchmark import Benchmark
    from karenina.benchmark.authoring.questions import extract_questions_from_file

    a = kld_parser().parse_args(argv)
    out = Path(cwd, a.output or a.into)
    timings = {}
    t0 = time.perf_counter()
    stage = "extract"
    duplicates = []
    try:
        questions = []
        for f in a.files:
            path = Path(cwd, f)
            if a.format:
                # Karenina reads by extension; kld's --format names it.
                ext = {"csv": ".csv", "tsv": ".tsv", "xlsx": ".xlsx", "xls": ".xls"}[a.format]
                if path.suffix.lower() != ext:
                    link = path.with_name(path.name + ext)
                    shutil.copyfile(path, link)
                    path = link
            qs = extract_questions_from_file(
                str(path),
                a.question_column,
                a.answer_column,
                sheet_name=a.sheet,
                author_name_column=a.author_name_column,
                author_email_column=a.author_email_column,
                author_affiliation_column=a.author_affiliation_column,
                url_column=a.url_column,
                keywords_columns=[keyword_config(k) for k in a.keywords_column] or None,
                answer_notes_column=a.answer_notes_column,
                custom_metadata_columns=a.custom_metadata_column or None,
            )
            questions.extend((f, q) for q in qs)
        timings["extract"] = time.perf_counter() - t0
        if extract_only:
            return {"ok": True, "questions": len(questions), "duplicates": [], "seconds": timings}
        stage = "add"
        if a.into:
            b = Benchmark.load(out)
        else:
            kw = {k: v for k, v in [("description", a.description), ("version", a.version), ("creator", a.creator)] if v is not None}
            b = Benchmark.create(a.name, **kw)
        for f, q in questions:
            try:
                b.add_question(q)
            except ValueError as e:
                if "already exists" not in str(e):
                    raise
                duplicates.append({"file": f, "id": q.id, "question": q.question})
        timings["add"] = time.perf_counter() - t0 - timings["extract"]
        stage = "save"
        dates_as_text = None
        try:
            b.save(out)
        except TypeError as e:
            # Karenina's save cannot write a date or time cell of custom
            # metadata (`Timestamp is not JSON serializable`); kld writes its
            # ISO 8601 text instead, which is what Karenina writes when the
            # value is that text.
            if "not JSON serializable" not in str(e) or not dates_to_text(b):
                raise
            dates_as_text = f"{type(e).__name__}: {e}"
            b.save(out)
        timings["save"] = time.perf_counter() - t0 - timings["extract"] - timings["add"]
    except Exception as e:  # noqa: BLE001 - the outcome is what raised
        if stage == "save" and out.exists() and not a.into:
            out.unlink()  # json.dump leaves the part it wrote
        return {"ok": False, "stage": stage, "error": f"{type(e).__name__}: {e}", "duplicates": duplicates}
    outcome = {"ok": True, "questions": len(questions) - len(duplicates), "duplicates": duplicates, "seconds": timings}
    if dates_as_text:
        outcome["dates_as_text"] = dates_as_text
    return outcome


def dates_to_text(b) -> bool:
    """Custom metadata dates and times as their `isoformat()`; whether any was."""
    changed = False
    for item in b._base._checkpoint.dataFeedElement:
        for prop in item.item.additionalProperty or []:
            if isinstance(prop.value, (dt.datetime, dt.date, dt.time)):
                prop.value = prop.value.isoformat()
                changed = True
    return changed


# ---------------------------------------------------------------------------
# Cell pools.

TEXT = [
    "What is the capital of France?",
    "Qu'est-ce que l'été ?",
    "日本の首都はどこですか？",
    "Τι είναι το DNA;",
    "🧪 Which reagent? 🧬",
    "مرحبا بالعالم",
    "Cafe\u0301 or café?",
    "Comma, inside, a cell",
    'She said "hello"',
    "Line one\nline two",
    "semi;colon|pipe/slash",
    "  padded  ",
    "\u00a0no-break space\u00a0",
    "\u3000ideographic\u3000",
    "tab\tinside",
    "A very long question " + "that keeps going " * 6 + "until it ends?",
    "x" * 60,
    "Ünïcödé ßtrasse",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 astral 😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀",
    "TRUE",
    "1.0",
    "2024-01-02",
    "#hash 'single' `back`",
    "question? with. dots, and spaces",
]
NA_TOKENS = ["", "NA", "N/A", "null", "None", "nan", "#N/A", "NaN", "<NA>", "n/a", "  "]
KW_WORDS = ["biology", "chemistry", "física", "数学", "genetics", " spaced ", "DNA", "dna", "x-ray", "α-helix", "🧬"]
SEPARATORS = [",", ";", "|", "/", " ", " & ", "\t", "،"]
HEADER_WORDS = ["Notes", "Area", "Level", "Frage", "Réponse", "質問", "回答", "Author", "E-mail", "Org", "Link",
                "Tags", "Topics", "Complexity", "Score", "Date", "Flag", "Extra", "Ünit", "col with space", "Kw, quoted"]
DATES = ["2024-01-02", "01/02/2024", "2024-01-02T03:04:05", "2023-12-31 23:59:59", "31.12.2023"]
FLOATS = ["2.5", "0.1", "1e3", "1E-7", "3.0", "-0.0", "123456.789", "1.5e+20", "0.30000000000000004", "  4.25 "]
INTS = ["1", "007", "-3", "42", "+5", "9007199254740993", "0", " 17 "]


def pick(r: random.Random, xs):
    return xs[r.randrange(len(xs))]


def maybe_na(r: random.Random, v, p: float):
    return pick(r, NA_TOKENS) if r.random() < p else v


def text_cell(r: random.Random, kind: str, sep: str = ","):
    """A CSV/TSV cell (text) of a column kind."""
    if kind == "text":
        v = pick(r, TEXT)
        if r.random() < 0.3:
            v = f"{v} #{r.randrange(1000)}"
        return v
    if kind == "int":
        return pick(r, INTS)
    if kind == "float":
        return pick(r, FLOATS + INTS[:3])
    if kind == "bool":
        return pick(r, ["True", "False", "TRUE", "false"])
    if kind == "date":
        return pick(r, DATES)
    if kind == "email":
        return pick(r, ["ana@example.org", "bø@example.dk", " pad@example.com ", "x+y@ex.io"])
    if kind == "url":
        return pick(r, ["https://example.org/a?b=1,2", "http://ex.io/ü", " https://x.y/z ", "doi:10.1000/182"])
    if kind == "kw":
        n = r.randrange(0, 5)
        parts = [pick(r, KW_WORDS) for _ in range(n)]
        if r.random() < 0.2:
            parts.insert(r.randrange(len(parts) + 1), "")
        return sep.join(parts)
    if kind == "mixed":
        return text_cell(r, pick(r, ["text", "int", "float", "bool", "date"]))
    raise ValueError(kind)


def typed_cell(r: random.Random, kind: str, sep: str = ","):
    """An XLSX cell (typed) of a column kind."""
    if kind == "int":
        # 2**63: only uint64 holds it (exact as a double, so every reader
        # of the file gets the same integer).
        return pick(r, [1, 7, -3, 42, 0, 2**53 + 1, 10**15, 2**63])
    if kind == "float":
        return pick(r, [2.5, 0.1, 1000.0, 1e-7, 3.0, 123456.789, 1.5e20, 0.30000000000000004, -0.5])
    if kind == "bool":
        return pick(r, [True, False])
    if kind == "date":
        return pick(r, [dt.datetime(2024, 1, 2), dt.datetime(2023, 12, 31, 23, 59, 59), dt.date(2020, 2, 29)])
    if kind == "numtext":
        return pick(r, ["42", "1.0", "007"])
    if kind == "mixed":
        return typed_cell(r, pick(r, ["text", "int", "float", "bool", "numtext"]))
    return text_cell(r, kind, sep)


# ---------------------------------------------------------------------------
# Cases.


def gen_case(r: random.Random, idx: int, ri: random.Random | None = None) -> dict:
    """One case: files (tables), options and what it exercises. `ri` draws
    what was added to the generator later (an implicit index), so that the
    cases `r` alone draws stay those of earlier runs of the same seed."""
    features = set()
    fmt = r.choices(["csv", "tsv", "xlsx", "txt"], weights=[40, 20, 35, 5])[0]
    features.add(fmt)
    headers = r.sample(HEADER_WORDS, 12)
    q_col = pick(r, ["Question", "Frage", "質問", "Q (text)"])
    a_col = pick(r, ["Answer", "Réponse", "回答", "raw answer"])
    opts = {"question": q_col, "answer": a_col}
    cols = {q_col: ("text" if r.random() < 0.85 else pick(r, ["int", "float", "mixed"])),
            a_col: pick(r, ["text", "text", "int", "float", "mixed", "date", "bool"])}
    hi = iter(headers)
    if r.random() < 0.5:
        c = next(hi); opts["author_name"] = c; cols[c] = "text"; features.add("author")
    if r.random() < 0.4:
        c = next(hi); opts["author_email"] = c; cols[c] = "email"; features.add("author")
    if r.random() < 0.3:
        c = next(hi); opts["author_affiliation"] = c; cols[c] = pick(r, ["text", "int"]); features.add("author")
    if r.random() < 0.4:
        c = next(hi); opts["url"] = c; cols[c] = pick(r, ["url", "url", "int"]); features.add("url")
    if r.random() < 0.4:
        c = next(hi); opts["notes"] = c; cols[c] = pick(r, ["text", "text", "float"]); features.add("notes")
    kws = []
    for _ in range(r.choices([0, 1, 2, 3], weights=[30, 40, 20, 10])[0]):
        c = next(hi)
        sep = pick(r, SEPARATORS)
        if fmt != "xlsx" and sep == "\t" and fmt != "csv":
            sep = ";"
        default = sep == "," and r.random() < 0.5
        kws.append((c, None if default else sep))
        cols[c] = "kw" if r.random() < 0.85 else pick(r, ["int", "float"])
        features.add("keywords")
    opts["keywords"] = kws
    custom = []
    for _ in range(r.choices([0, 1, 2, 3], weights=[25, 35, 25, 15])[0]):
        c = next(hi)
        kinds = ["text", "int", "float", "bool", "mixed"] + (["date"] if fmt != "xlsx" or r.random() < 0.15 else [])
        if fmt == "xlsx":
            kinds.append("numtext")
        cols[c] = pick(r, kinds)
        custom.append(c)
        features.add("custom")
        features.add(f"custom-{cols[c]}")
    opts["custom"] = custom
    for _ in range(r.randrange(0, 3)):
        c = next(hi)
        cols[c] = pick(r, ["text", "int", "mixed"])
    names = list(cols)
    r.shuffle(names)
    na_p = pick(r, [0.0, 0.1, 0.25])
    if na_p:
        features.add("empty-cells")

    def table(nrows: int, typed: bool) -> dict:
        rows = []
        seen = []
        for _ in range(nrows):
            row = []
            for c in names:
                kind = cols[c]
                sep = dict((k, s) for k, s in kws).get(c) or ","
                v = typed_cell(r, kind, sep) if typed else text_cell(r, kind, sep)
                if c == q_col and kind == "text":
                    v = f"{v} [{idx}.{len(rows)}]" if r.random() < 0.7 else v
                    if seen and r.random() < 0.08:
                        v = pick(r, seen) + pick(r, ["", " ", "  "])
                        features.add("duplicates")
                    seen.append(v)
                v = maybe_na(r, v, na_p if c not in (q_col, a_col) else na_p / 2)
                if typed and isinstance(v, str) and v.strip() == "" and r.random() < 0.5:
                    v = None
                row.append(v)
            rows.append(row)
        return {"header": names, "rows": rows}

    files = []
    sheet = None
    nfiles = 1 if r.random() < 0.85 else 2
    for fi in range(nfiles):
        f_fmt = fmt if fi == 0 else pick(r, ["csv", "tsv", "xlsx"]) if fmt not in ("xlsx", "txt") else fmt
        nrows = r.choices([0, 1, 3, 8, 15], weights=[3, 10, 30, 40, 17])[0]
        if f_fmt == "xlsx":
            sheets = []
            nsheets = r.choice([1, 1, 2, 3])
            sheet_names = r.sample(["Sheet1", "Questions", "Données", "日本語", "Q & A", "Blatt 2"], nsheets)
            for s in sheet_names:
                sheets.append({"name": s, **table(nrows if s == sheet_names[0] else r.randrange(1, 4), True)})
            if nsheets > 1:
                features.add("several-sheets")
                if sheet is None and r.random() < 0.7:
                    # the sheet asked for by name, not the first one
                    sheet = pick(r, sheet_names[1:])
                    for s in sheets:
                        if s["name"] == sheet:
                            s.update(table(nrows, True))
            files.append({"name": f"sheet{fi}.xlsx", "format": "xlsx", "sheets": sheets})
        else:
            quoting = pick(r, ["minimal", "minimal", "all"])
            if quoting == "all":
                features.add("quoted")
            files.append({
                "name": f"sheet{fi}.{f_fmt}", "format": f_fmt, "quoting": quoting,
                "newline": pick(r, ["\n", "\n", "\r\n"]), "bom": r.random() < 0.1,
                "sheets": [{"name": None, **table(nrows, False)}],
            })
    if any(s.get("name") == sheet for f in files for s in f["sheets"]) and sheet is not None:
        # every xlsx file of the case has it (kld and Karenina take --sheet for all)
        for f in files:
            if f["format"] == "xlsx" and not any(s["name"] == sheet for s in f["sheets"]):
                f["sheets"].append({"name": sheet, **table(2, True)})
    args = [f["name"] for f in files]
    if fmt == "txt":
        args += ["--format", "tsv"]
    args += ["--question-column", q_col, "--answer-column", a_col]
    if sheet is not None:
        args += ["--sheet", sheet]
    for key, flag in [("author_name", "--author-name-column"), ("author_email", "--author-email-column"),
                      ("author_affiliation", "--author-affiliation-column"), ("url", "--url-column"),
                      ("notes", "--answer-notes-column")]:
        if key in opts:
            args += [flag, opts[key]]
    for c, sep in kws:
        args += ["--keywords-column", c if sep is None else f"{c}:{sep}"]
    for c in custom:
        args += ["--custom-metadata-column", c]
    into = r.random() < 0.1
    if into:
        features.add("into")
    else:
        args += ["--name", pick(r, ["Imported", "Banc d'essai ü", "ベンチ", "Sheet import #" + str(idx)])]
        if r.random() < 0.5:
            args += ["--description", pick(r, ["From a sheet", "Descripción: ñ"])]
        if r.random() < 0.4:
            args += ["--version", pick(r, ["1.2.3", "2026.11"])]
        if r.random() < 0.4:
            args += ["--creator", pick(r, ["Ada Lovelace", "Équipe Karenina"])]
    if r.random() < 0.03:
        # a missing required column: Karenina raises, kld must write nothing
        i = args.index("--question-column")
        args[i + 1] = "No such column"
        features.add("missing-column")
    if ri is not None:
        for f in files:
            rows = f["sheets"][0]["rows"]
            if f["format"] != "xlsx" and rows and ri.random() < 0.08:
                add_implicit_index(ri, f["sheets"][0])
                features.add("implicit-index")
            for sh in f["sheets"]:
                if ri.random() < 0.25:
                    renamed = add_header_twists(ri, sh)
                    features.add("header-twists")
                    if len(files) == 1 and len(f["sheets"]) == 1 and renamed:
                        # select columns by the names pandas gave them
                        for name in ri.sample(renamed, min(2, len(renamed))):
                            args += ["--custom-metadata-column", name]
                        features.add("renamed-columns")
    return {"files": files, "args": args, "into": into, "features": sorted(features)}


def add_header_twists(ri: random.Random, sheet: dict) -> list[str]:
    """Adds one to three columns, anywhere, whose headers pandas renames: a
    copy of a name the sheet has (before it, the original is the one
    renamed), that name with `.1`/`.2` (which pandas' renaming skips), an
    empty header (`Unnamed: N`) or a literal `Unnamed: 0`. Returns the
    names pandas gives the columns it renames (`mangle_dupe_names`, what
    `read_csv` and `read_excel` apply)."""
    header = list(sheet["header"])
    rows = [list(r) for r in sheet["rows"]]

    def insert(at: int, name: str) -> None:
        header.insert(at, name)
        for r in rows:
            r.insert(at, ri.choice([None, "filler", "7", "x, y"]))

    for _ in range(ri.randint(1, 3)):
        base = ri.choice([h for h in header if h] or ["Question"])
        if base not in header:
            insert(0, base)
        pattern = ri.choice(["one", "skip", "skip", "unnamed"])
        if pattern == "skip":
            # base, base, base.1: pandas names the copy base.2
            at = ri.randint(header.index(base) + 1, len(header))
            insert(at, base)
            insert(ri.randint(at + 1, len(header)), base + ".1")
        elif pattern == "unnamed":
            # an empty header at N and a literal "Unnamed: N" after it
            at = ri.randint(0, len(header))
            insert(at, "")
            insert(ri.randint(at + 1, len(header)), f"Unnamed: {at}")
        else:
            name = ri.choice([base, base, base + ".1", base + ".2", "", "Unnamed: 0"])
            insert(ri.randint(0, len(header)), name)
    sheet["header"] = header
    sheet["rows"] = rows
    from pandas.io.common import mangle_dupe_names

    unnamed = [i for i, h in enumerate(header) if h == ""]
    named = [f"Unnamed: {i}" if h == "" else h for i, h in enumerate(header)]
    mangled = mangle_dupe_names(named, unnamed)
    return [m for m, h in zip(mangled, named) if m != h]


def add_implicit_index(ri: random.Random, sheet: dict) -> None:
    """Gives a CSV/TSV table pandas' implicit index: each data row starts
    with one field more than the header has (its index label), which
    `read_csv` takes as the index. Now and then a later row lacks its label
    (pandas then reads its first field as the label and the last column as
    missing). The labels are `sheet["index"]`, one per row, None where the
    row has none."""
    kind = ri.choice(["int", "int", "text", "mixed"])
    labels = []
    for i in range(len(sheet["rows"])):
        if i > 0 and ri.random() < 0.15:
            labels.append(None)
        elif kind == "int":
            labels.append(str(i))
        elif kind == "text":
            labels.append(ri.choice(["row", "q", "Frage", "行"]) + f"-{i}")
        else:
            labels.append(ri.choice([str(i), f"r{i}", "", "1.5"]))
    sheet["index"] = labels


def cell_json(v):
    if isinstance(v, dt.datetime):
        return {"datetime": v.isoformat()}
    if isinstance(v, dt.date):
        return {"date": v.isoformat()}
    return v


def cell_py(v):
    if isinstance(v, dict):
        if "datetime" in v:
            return dt.datetime.fromisoformat(v["datetime"])
        return dt.date.fromisoformat(v["date"])
    return v


def write_files(case: dict, d: Path) -> None:
    import openpyxl

    for f in case["files"]:
        path = d / f["name"]
        if f["format"] == "xlsx":
            wb = openpyxl.Workbook()
            wb.remove(wb.active)
            for s in f["sheets"]:
                ws = wb.create_sheet(s["name"])
                ws.append(s["header"])
                for row in s["rows"]:
                    ws.append([cell_py(v) for v in row])
            wb.save(path)
        else:
            s = f["sheets"][0]
            delim = "," if f["format"] == "csv" else "\t"
            quoting = csv.QUOTE_ALL if f["quoting"] == "all" else csv.QUOTE_MINIMAL
            with open(path, "w", encoding="utf-8-sig" if f["bom"] else "utf-8", newline="") as fh:
                w = csv.writer(fh, delimiter=delim, quoting=quoting, lineterminator=f["newline"])
                w.writerow(s["header"])
                labels = s.get("index") or [None] * len(s["rows"])
                for label, row in zip(labels, s["rows"]):
                    w.writerow(([] if label is None else [label]) + ["" if v is None else v for v in row])


def existing_args(case: dict) -> list[str]:
    """The --into case's base checkpoint: Karenina's import of a fixed two-row sheet."""
    return ["base.csv", "--question-column", "Question", "--answer-column", "Answer",
            "--name", "Existing", "--keywords-column", "Kw:;", "-o", "existing.jsonld"]


BASE_CSV = "Question,Answer,Kw\nAlready here?,yes,a;b\nÉtat initial ?,ok,\n"


def materialize(case: dict, d: Path) -> dict:
    """Writes a case's files and Karenina's outcome into d; the outcome."""
    d.mkdir(parents=True, exist_ok=True)
    write_files(case, d)
    spec = {**case, "files": [{**f, "sheets": [{**s, "rows": [[cell_json(v) for v in row] for row in s["rows"]]}
                                               for s in f["sheets"]]} for f in case["files"]]}
    (d / "spec.json").write_text(json.dumps(spec, ensure_ascii=False, indent=1), encoding="utf-8")
    (d / "args.json").write_text(json.dumps(case["args"], ensure_ascii=False), encoding="utf-8")
    if case["into"]:
        (d / "base.csv").write_text(BASE_CSV, encoding="utf-8")
        base = run_karenina(existing_args(case), d)
        assert base["ok"], base
        (d / "base.csv").unlink()
        shutil.copyfile(d / "existing.jsonld", d / "karenina.jsonld")
        outcome = run_karenina(case["args"] + ["--into", "karenina.jsonld"], d)
    else:
        outcome = run_karenina(case["args"] + ["-o", "karenina.jsonld"], d)
    for p in d.iterdir():
        # --format's copies with Karenina's extension
        if p.name.endswith((".txt.tsv",)):
            p.unlink()
    if not outcome["ok"]:
        if (d / "karenina.jsonld").exists():
            (d / "karenina.jsonld").unlink()
        (d / "karenina.error").write_text(outcome["stage"] + ": " + outcome["error"] + "\n", encoding="utf-8")
    if outcome.get("dates_as_text"):
        (d / "karenina.note").write_text("save: " + outcome["dates_as_text"] + "; compared with the dates as ISO 8601 text\n",
                                         encoding="utf-8")
    outcome.pop("seconds", None)
    return outcome


def subset(spec: dict, keep: list[int]) -> dict:
    """The case with only the data rows numbered `keep` in every table."""
    one = json.loads(json.dumps(spec, default=str))  # deep copy; rows replaced below
    for f, f0 in zip(one["files"], spec["files"]):
        for s, s0 in zip(f["sheets"], f0["sheets"]):
            s["rows"] = [s0["rows"][i] for i in keep if i < len(s0["rows"])]
            if "index" in s0:
                s["index"] = [s0["index"][i] for i in keep if i < len(s0["index"])]
    return one


def load_spec(d: Path) -> dict:
    spec = json.loads((d / "spec.json").read_text(encoding="utf-8"))
    for f in spec["files"]:
        for s in f["sheets"]:
            s["rows"] = [[cell_py(v) for v in row] for row in s["rows"]]
    return spec


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("out", type=Path)
    g.add_argument("--seed", type=int, default=37)
    g.add_argument("--cases", type=int, default=240)
    rw = sub.add_parser("rows")
    rw.add_argument("case", type=Path)
    rw.add_argument("out", type=Path)
    sb = sub.add_parser("subset")
    sb.add_argument("case", type=Path)
    sb.add_argument("out", type=Path)
    sb.add_argument("--keep", required=True)
    sub.add_parser("karenina", add_help=False)
    sub.add_parser("extract", add_help=False)
    sh = sub.add_parser("sheet")
    sh.add_argument("n", type=int)
    sh.add_argument("path", type=Path)
    if len(sys.argv) > 1 and sys.argv[1] == "karenina":
        print(json.dumps(run_karenina(sys.argv[2:], Path.cwd()), ensure_ascii=False))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "extract":
        print(json.dumps(run_karenina(sys.argv[2:], Path.cwd(), extract_only=True), ensure_ascii=False))
        return
    a = ap.parse_args()
    if a.cmd == "gen":
        r = random.Random(a.seed)
        a.out.mkdir(parents=True, exist_ok=True)
        with open(a.out / "cases.jsonl", "w", encoding="utf-8") as log:
            for i in range(a.cases):
                case = gen_case(r, i, random.Random(a.seed * 100_003 + i))
                name = f"{i:04d}"
                outcome = materialize(case, a.out / name)
                log.write(json.dumps({"case": name, "args": case["args"], "into": case["into"],
                                      "outcome": ("ok-dates-as-text" if outcome.get("dates_as_text") else "ok")
                                      if outcome["ok"] else outcome["stage"] + "-raises",
                                      "duplicates": outcome["duplicates"], "features": case["features"]},
                                     ensure_ascii=False) + "\n")
    elif a.cmd == "rows":
        spec = load_spec(a.case)
        n = max(len(s["rows"]) for f in spec["files"] for s in f["sheets"])
        for i in range(n):
            materialize(subset(spec, [i]), a.out / f"r{i:03d}")
    elif a.cmd == "subset":
        keep = [int(i) for i in a.keep.split(",") if i]
        materialize(subset(load_spec(a.case), keep), a.out)
    elif a.cmd == "sheet":
        write_bench_sheet(a.n, a.path)


def write_bench_sheet(n: int, path: Path) -> None:
    """N rows with every column option; prints kld's column options."""
    r = random.Random(100_000)
    header = ["Question", "Answer", "Author", "Email", "Org", "URL", "Tags", "Topics", "Notes", "Level", "Score"]
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        for i in range(n):
            w.writerow([
                f"{pick(r, TEXT)} (#{i})", text_cell(r, "mixed"), pick(r, ["Ana", "Bø", ""]),
                text_cell(r, "email"), pick(r, ["Lab A", "Équipe B", ""]), text_cell(r, "url"),
                text_cell(r, "kw", ";"), text_cell(r, "kw", "|"), maybe_na(r, pick(r, TEXT), 0.5),
                r.randrange(1, 6), f"{r.random():.4f}",
            ])
    print(json.dumps([
        "--question-column", "Question", "--answer-column", "Answer", "--author-name-column", "Author",
        "--author-email-column", "Email", "--author-affiliation-column", "Org", "--url-column", "URL",
        "--keywords-column", "Tags:;", "--keywords-column", "Topics:|", "--answer-notes-column", "Notes",
        "--custom-metadata-column", "Level", "--custom-metadata-column", "Score", "--name", "Bench sheet",
    ]))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()

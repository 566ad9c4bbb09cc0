"""The manuscript exports in the tools a reader uses (tests/cli/manuscript.rs):
markdown-it-py parses `kld leaderboard -f markdown` (one table, its cells the
CSV's), and headless Chromium opens the HTML report from disk with every
figure drawn and nothing requested elsewhere. Prints one JSON line.

usage: manuscript_formats.py TABLE.md TABLE.csv REPORT.html SHOTS
       manuscript_formats.py --tables FILE.md
           (each table markdown-it-py finds, as lists of rows of cells)
       manuscript_formats.py --report REPORT.html SHOTS NAME
           (the report opened offline: its figures' sizes on screen)"""
import csv
import json
import os
import sys

from markdown_it import MarkdownIt


def markdown_tables(path):
    """Each table of the Markdown file, as rows of cell texts (head first)."""
    tokens = MarkdownIt("commonmark").enable("table").parse(open(path, encoding="utf-8").read())
    tables, row, cell = [], None, None
    for t in tokens:
        if t.type == "table_open":
            tables.append([])
        elif t.type == "tr_open":
            row = []
        elif t.type == "tr_close":
            tables[-1].append(row)
        elif t.type == "inline" and row is not None and cell:
            row.append(t.content)
        cell = t.type in ("th_open", "td_open")
    return tables


def open_report(html_path, shots, name, seen):
    """Opens the report from disk in headless Chromium: the SVGs, their
    sizes, screenshots at 1280 and 700 px, requests that left the disk."""
    from browser import chromium, requested_urls

    os.makedirs(shots, exist_ok=True)
    driver = chromium("1280,800", network_log=True)
    try:
        driver.get("file://" + os.path.abspath(html_path))
        sizes = driver.execute_script("""return [...document.querySelectorAll('svg')].map((s) => {
          const b = s.getBoundingClientRect(); return [b.width, b.height, s.querySelectorAll('*').length]; });""")
        seen["svgs"] = len(sizes)
        seen["drawn"] = sum(1 for w, h, n in sizes if w > 100 and h > 100 and n > 20)
        seen["tables_on_page"] = driver.execute_script("return document.querySelectorAll('table').length")
        driver.save_screenshot(os.path.join(shots, f"{name}-1280.png"))
        driver.set_window_size(700, 900)
        seen["scroll_700"] = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        driver.save_screenshot(os.path.join(shots, f"{name}-700.png"))
        seen["requests_elsewhere"] = len([u for u in requested_urls(driver) if not u.startswith("file://")])
    finally:
        driver.quit()


if sys.argv[1] == "--tables":
    print(json.dumps(markdown_tables(sys.argv[2])))
    sys.exit(0)
if sys.argv[1] == "--report":
    seen = {}
    open_report(sys.argv[2], sys.argv[3], sys.argv[4], seen)
    print(json.dumps(seen))
    sys.exit(0)

md_path, csv_path, html_path, shots = sys.argv[1:5]
seen = {}

# Markdown: the tokens of each table, cell by cell.
tables = markdown_tables(md_path)
seen["tables"] = len(tables)
head, *body = tables[0]
rows = list(csv.DictReader(open(csv_path, encoding="utf-8")))
ok, cells = True, 0
for r in body:
    model = r[0].replace("\\|", "|")
    crow = next(c for c in rows if c["answering model"] == model or model.startswith(c["answering model"] + " · MCP"))
    for judge, text in zip(head[1:-1], r[1:-1]):
        judge = judge.replace("\\|", "|")
        rate, n = crow[f"{judge}: template pass rate (%)"], crow[f"{judge}: n"]
        if not rate:
            continue
        cells += 1
        lo, hi = crow.get(f"{judge}: interval lower (%)"), crow.get(f"{judge}: interval upper (%)")
        want = f"{rate} [{lo}, {hi}] (n={n})" if lo else f"{rate} (n={n})"
        if text != want:
            ok = False
            seen.setdefault("mismatch", []).append([model, judge, text, rate, n])
    if not r[-1].startswith(crow["mean of judges (%)"]):
        ok = False
        seen.setdefault("mismatch", []).append([model, "mean", r[-1], crow["mean of judges (%)"]])
seen["md_equals_csv"] = ok
seen["cells"] = cells

open_report(html_path, shots, "report", seen)
print(json.dumps(seen))

"""Drives the page's results table and leaderboard of `kld serve` in headless
Chromium (selenium + chromedriver) at 1280x800.

Table: runs QUERY (a 5,000-row answer), pages through every page reading
each row's first cell, sorts by ?n both ways and by ?label, reads a rounded
number, a shortened IRI and a long cell (expanded by its button), and reads
the download links (fetched from the page: their status and media type).
Leaderboard: reads every cell (its data attributes and text) and the column
labels, sorts by a benchmark column, picks a run in the run filter and reads
the cells again, opens one cell's outcomes, narrows to a 400 px window.
Screenshots of both views go to SHOTS. Every URL the browser requested is
listed (Chromium's network log). Prints what it saw as one JSON line.

usage: browser_board.py BASE QUERY SHOTS"""
import json
import os
import sys

from browser import chromium, requested_urls
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

base, query, shots = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(shots, exist_ok=True)
driver = chromium("1280,800", network_log=True)
# Generous: a debug build on a busy machine answers the page's first
# queries slowly.
wait = WebDriverWait(driver, 120)
seen = {}
urls = []

FIRST_COLUMN = """return [...document.querySelectorAll('#results tbody tr')]
  .map((tr) => tr.cells[0].textContent);"""


def page_info():
    return driver.find_element(By.CSS_SELECTOR, "#results-box .page-info").text


def click(css):
    driver.find_element(By.CSS_SELECTOR, css).click()


def downloads():
    """The download links of the answer shown: label, address, and what
    fetching it gives (status, media type, lines)."""
    return [
        {"label": a.text, "href": a.get_attribute("href"),
         "got": driver.execute_script("""const r = await fetch(arguments[0]);
           return [r.status, r.headers.get('Content-Type'), (await r.text()).split('\\n').filter(Boolean).length];""", a.get_attribute("href"))}
        for a in driver.find_elements(By.CSS_SELECTOR, "#downloads a.dl")]


def table():
    """The results table: paging, sorting, cells, downloads."""
    driver.get(base + "/#sparql")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#catalogue option[value=runs]"))
    driver.execute_script("document.getElementById('query').value = arguments[0]", query)
    click("#run")
    wait.until(lambda d: "rows in" in d.find_element(By.ID, "status").text
               or d.find_element(By.ID, "query-error").is_displayed())
    seen["error"] = driver.find_element(By.ID, "query-error").text
    seen["status"] = driver.find_element(By.ID, "status").text
    seen["total_attr"] = driver.find_element(By.ID, "results").get_attribute("data-total")
    seen["vars"] = [th.text for th in driver.find_elements(By.CSS_SELECTOR, "#results thead th")]
    seen["headers_are_buttons"] = all(th.find_elements(By.CSS_SELECTOR, "button.sort")
                                      for th in driver.find_elements(By.CSS_SELECTOR, "#results thead th"))
    # Every page, first to last, by the "next" button (and the keyboard:
    # focus it, press Enter).
    pages, infos = [], []
    while True:
        pages.append(driver.execute_script(FIRST_COLUMN))
        infos.append(page_info())
        nxt = driver.find_element(By.CSS_SELECTOR, "#results-box .next")
        if not nxt.is_enabled():
            break
        before = page_info()
        if len(pages) % 2:
            nxt.click()
        else:
            driver.execute_script("arguments[0].focus()", nxt)
            nxt.send_keys(Keys.ENTER)
        wait.until(lambda d: page_info() != before)
    seen["pages"] = pages
    seen["page_infos"] = [infos[0], infos[-1]]
    # Sorting: ?n ascending (numbers as numbers), then descending; ?label as text.
    col = {v: i for i, v in enumerate(seen["vars"])}
    sort_button = lambda v: driver.find_elements(By.CSS_SELECTOR, "#results thead th button.sort")[col[v]]
    sort_button("n").click()
    seen["n_asc"] = driver.execute_script(FIRST_COLUMN)
    seen["n_asc_aria"] = driver.find_elements(By.CSS_SELECTOR, "#results thead th")[col["n"]].get_attribute("aria-sort")
    sort_button("n").click()
    seen["n_desc"] = driver.execute_script(FIRST_COLUMN)
    sort_button("label").click()
    seen["label_asc"] = driver.execute_script(
        "return [...document.querySelectorAll('#results tbody tr')].map((tr) => tr.cells[arguments[0]].textContent)",
        col["label"])
    # Back to ?n ascending: row 0 (the long cell), row 1 ...
    sort_button("n").click()
    rows = driver.find_elements(By.CSS_SELECTOR, "#results tbody tr")
    second = rows[1].find_elements(By.TAG_NAME, "td")
    seen["x_shown"], seen["x_title"] = second[col["x"]].text, second[col["x"]].get_attribute("title")
    iri = second[col["iri"]].find_element(By.CSS_SELECTOR, "a.iri")
    seen["iri_text"], seen["iri_href"], seen["iri_title"] = iri.text, iri.get_attribute("href"), iri.get_attribute("title")
    long_cell = rows[0].find_elements(By.TAG_NAME, "td")[col["text"]]
    seen["long_cut"] = long_cell.find_element(By.CSS_SELECTOR, ".cut").text
    long_cell.find_element(By.CSS_SELECTOR, "button.more").click()
    seen["long_full"] = long_cell.find_element(By.CSS_SELECTOR, ".cut").text
    seen["widths"] = driver.execute_script(
        "return [document.getElementById('results').offsetWidth, document.getElementById('results-box').clientWidth]")
    seen["downloads"] = downloads()
    driver.execute_script("window.scrollTo(0, 0); document.getElementById('sparql').scrollIntoView()")
    driver.save_screenshot(os.path.join(shots, "results-table.png"))
    # IRIs of the store: a question's opens its DESCRIBE, a checkpoint
    # graph's the benchmark view.
    driver.execute_script("document.getElementById('query').value = arguments[0]",
                          "SELECT ?graph ?item WHERE { GRAPH ?graph { ?item a schema:DataFeedItem FILTER(isIRI(?item)) } } ORDER BY ?item LIMIT 1")
    click("#run")
    wait.until(lambda d: d.find_element(By.ID, "status").text.startswith("1 rows in"))
    item, graph = (driver.find_elements(By.CSS_SELECTOR, "#results tbody a.iri")[i] for i in (1, 0))
    seen["item"] = item.get_attribute("title")
    item.click()
    wait.until(lambda d: d.find_element(By.ID, "describe").is_displayed())
    seen["describe"] = driver.find_element(By.CSS_SELECTOR, "#describe pre").text
    seen["graph_link"] = [graph.get_attribute("title"), graph.get_attribute("href")]
    graph.click()
    wait.until(lambda d: d.find_element(By.ID, "benchmark").is_displayed()
               and d.find_elements(By.CSS_SELECTOR, "#questions-table tbody tr"))
    seen["graph_opened"] = driver.find_element(By.ID, "benchmark-title").text
    # A graph answer: its downloads are the RDF formats.
    driver.execute_script("document.getElementById('query').value = arguments[0]",
                          "CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } } LIMIT 5")
    click("#run")
    wait.until(lambda d: d.find_element(By.ID, "status").text.startswith("graph in"))
    seen["graph_downloads"] = downloads()


CELLS = """return [...document.querySelectorAll('#leaderboard tbody td .board-cell')].map((b) => ({
  ...b.dataset, text: b.textContent, row: b.closest('tr').querySelector('th').textContent}));"""


# The lowest WCAG contrast ratio of any text in a leaderboard cell against
# the cell's background.
CONTRAST = """
const lum = (c) => {
  const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map((v) => {
    const x = Number(v) / 255;
    return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
let worst = 21;
for (const td of document.querySelectorAll('#leaderboard tbody td')) {
  let bg = getComputedStyle(td).backgroundColor;
  if (bg === 'rgba(0, 0, 0, 0)') bg = 'rgb(255, 255, 255)';
  for (const t of [td, ...td.querySelectorAll('*')]) {
    const [a, b] = [lum(getComputedStyle(t).color), lum(bg)].sort((x, y) => y - x);
    worst = Math.min(worst, (a + 0.05) / (b + 0.05));
  }
}
return worst;"""


# Controls of the results view and the results table with no accessible
# name (a label, aria-label or text).
UNNAMED = """return [...document.querySelectorAll(
  '#results-view select, #results-view input, #results-view button, #results-box select, #results-box button')]
  .filter((c) => !(c.labels?.length || c.getAttribute('aria-label') || c.textContent.trim()))
  .map((c) => c.outerHTML.slice(0, 120));"""


def board_cells():
    return driver.execute_script(CELLS)


def board_status_after(change):
    """Runs `change` and waits for the board to be drawn again."""
    driver.execute_script("document.getElementById('board-status').textContent = ''")
    change()
    wait.until(lambda d: "models" in d.find_element(By.ID, "board-status").text)


def leaderboard():
    """The leaderboard: every cell, the labels, sorting, the run filter."""
    driver.get(base + "/#board")
    wait.until(lambda d: "models" in d.find_element(By.ID, "board-status").text)
    # The models × benchmark columns, every judge apart in each cell (the
    # default is the model × judge grid: page_figures.rs).
    board_status_after(lambda: Select(driver.find_element(By.ID, "board-view")).select_by_value("columns"))
    seen["cells"] = board_cells()
    seen["contrast"] = driver.execute_script(CONTRAST)
    heads = driver.find_elements(By.CSS_SELECTOR, "#leaderboard thead th")
    seen["columns"] = [{"label": th.text, "title": th.find_element(By.TAG_NAME, "button").get_attribute("title"),
                        "width": th.size["width"]} for th in heads]
    seen["bar_labels"] = [t.text for t in driver.find_elements(By.CSS_SELECTOR, "#pass-chart .bar text.label")]
    # How far a row's model name sits from its cells' first line (px, the
    # most over the rows): the name once sat at the bottom of a tall row.
    seen["row_head_offset"] = driver.execute_script("""
      const top = (e) => { const r = document.createRange(); r.selectNodeContents(e); return r.getBoundingClientRect().top; };
      return Math.max(...[...document.querySelectorAll('#leaderboard tbody tr')].map(
        (tr) => Math.abs(top(tr.cells[0]) - Math.min(...[...tr.cells].slice(1).map(top)))));""")
    # The leftmost point of any bar's label, in the chart's own units: below
    # 0 a label has lost its start at the chart's left edge.
    seen["bar_label_left"] = driver.execute_script(
        "return Math.min(...[...document.querySelectorAll('#pass-chart text.label')].map((t) => t.getBBox().x))")
    seen["bar_titles"] = driver.execute_script(
        "return [...document.querySelectorAll('#pass-chart .bar title')].map((t) => t.textContent)")
    driver.execute_script("document.getElementById('board').scrollIntoView()")
    driver.save_screenshot(os.path.join(shots, "leaderboard.png"))
    # Sort by the first benchmark column, highest first (a second press).
    button = lambda: driver.find_elements(By.CSS_SELECTOR, "#leaderboard thead th button.sort")[1]
    board_status_after(lambda: button().send_keys(Keys.ENTER))
    # A cell's sort key: its judges' mean rate (every judge apart).
    seen["sorted_column"] = driver.execute_script(
        "return [...document.querySelectorAll('#leaderboard tbody tr')].map((tr) => tr.cells[1].querySelector('.judges')?.dataset.mean ?? null)")
    seen["sorted_aria"] = driver.find_elements(By.CSS_SELECTOR, "#leaderboard thead th")[1].get_attribute("aria-sort")
    seen["sort_focus"] = driver.execute_script("return document.activeElement.closest('th')?.cellIndex ?? -1")
    # The run filter: each run bound to a benchmark, its cells.
    runs = Select(driver.find_element(By.ID, "board-run"))
    seen["run_options"] = [o.get_attribute("value") for o in runs.options]
    seen["by_run"] = {}
    for value in seen["run_options"][1:]:
        board_status_after(lambda: Select(driver.find_element(By.ID, "board-run")).select_by_value(value))
        seen["by_run"][value] = board_cells()
    board_status_after(lambda: Select(driver.find_element(By.ID, "board-run")).select_by_value(""))
    # The benchmark filter: one column.
    bench = Select(driver.find_element(By.ID, "board-benchmark"))
    first = bench.options[1].get_attribute("value")
    board_status_after(lambda: bench.select_by_value(first))
    seen["by_benchmark"] = {"graph": first, "cells": board_cells()}
    board_status_after(lambda: Select(driver.find_element(By.ID, "board-benchmark")).select_by_value(""))
    # A cell opens its matrix: the results behind it.
    cell = driver.find_element(By.CSS_SELECTOR, "#leaderboard tbody .board-cell")
    seen["opened"] = {k: cell.get_attribute("data-" + k) for k in ["checkpoint", "run", "combo", "judge", "answering"]}
    board_status_after(lambda: cell.send_keys(Keys.ENTER))
    seen["opened"]["status"] = driver.find_element(By.ID, "board-status").text
    seen["opened"]["matrix"] = driver.execute_script(
        "return [...document.querySelectorAll('#matrix-table tbody td')].map((td) => ({ ...td.dataset }))")
    # Back to the pass rates, every judge, every run.
    board_status_after(lambda: Select(driver.find_element(By.ID, "board-view")).select_by_value("columns"))
    Select(driver.find_element(By.ID, "board-judge")).select_by_value("")
    board_status_after(lambda: Select(driver.find_element(By.ID, "board-run")).select_by_value(""))
    board_status_after(lambda: Select(driver.find_element(By.ID, "board-benchmark")).select_by_value(""))
    # Trait scores: every cell.
    board_status_after(lambda: Select(driver.find_element(By.ID, "board-view")).select_by_value("traits"))
    seen["traits"] = board_cells()
    # A trait cell opens the scores behind it.
    cell = driver.find_element(By.CSS_SELECTOR, "#leaderboard tbody .board-cell")
    seen["trait_opened"] = {k: cell.get_attribute("data-" + k) for k in
                            ["graph", "interface", "model", "trait", "scope", "score-key", "n"]}
    cell.send_keys(Keys.ENTER)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#trait-scores-table"))
    seen["trait_opened"]["total"] = driver.find_element(By.ID, "trait-scores-table").get_attribute("data-total")
    seen["trait_opened"]["values"] = driver.execute_script(
        "return [...document.querySelectorAll('#trait-scores-table tbody tr')].map((tr) => tr.cells[1].textContent)")
    driver.execute_script("document.getElementById('board').scrollIntoView()")
    driver.save_screenshot(os.path.join(shots, "leaderboard-traits.png"))
    # Every control of the results view has a name a screen reader says.
    seen["unnamed"] = driver.execute_script(UNNAMED)
    # The runs table sorts from the keyboard too: its header is a button.
    runs_header = driver.find_element(By.CSS_SELECTOR, "#runs-table thead th button.sort")
    runs_header.send_keys(Keys.ENTER)
    seen["runs_sorted"] = [driver.find_element(By.CSS_SELECTOR, "#runs-table thead th").get_attribute("aria-sort"),
                           driver.execute_script("return [...document.querySelectorAll('#runs-table tbody tr')]"
                                                 ".map((tr) => tr.cells[0].textContent)")]
    # A narrow window: the page is no wider than it.
    driver.set_window_size(400, 800)
    seen["narrow"] = driver.execute_script(
        "return [window.innerWidth, document.documentElement.scrollWidth]")
    driver.execute_script("document.getElementById('board').scrollIntoView()")
    driver.save_screenshot(os.path.join(shots, "leaderboard-400px.png"))
    # The chart on it: drawn at its own size (12 px labels), not scaled down.
    seen["narrow_chart_scale"] = driver.execute_script(
        "const s = document.querySelector('#pass-chart svg');"
        "return s.getBoundingClientRect().width / s.width.baseVal.value")
    driver.execute_script("document.getElementById('pass-chart').scrollIntoView()")
    driver.save_screenshot(os.path.join(shots, "chart-400px.png"))


try:
    table()
    urls.extend(requested_urls(driver))
    leaderboard()
    urls.extend(requested_urls(driver))
finally:
    driver.quit()
seen["urls"] = urls
print(json.dumps(seen))

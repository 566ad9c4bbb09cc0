"""The model × judge grid, its figures and the matrix in headless Chromium
(tests/cli/page_figures.rs), on a server at BASE holding a paper-size run: at
1280 × 800 and 700 px, the grid's cells (each with its n) and how far down
the last one is, whether the page scrolls sideways, a sort by a judge's
column; the dot plot's and the grid's downloads (SVG, PNG drawn by the
browser, CSV); the matrix's question column when scrolled sideways, its
order by difficulty and its heatmap's CSV. Screenshots go to SHOTS; downloads
land in DOWNLOADS. Prints one JSON line.

usage: browser_figures.py BASE SHOTS DOWNLOADS"""
import base64
import json
import os
import struct
import sys
import time

from browser import chromium, downloaded, requested_urls
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

base, shots, downloads = sys.argv[1:4]
os.makedirs(shots, exist_ok=True)
os.makedirs(downloads, exist_ok=True)
driver = chromium("1280,800", downloads=downloads, network_log=True)
wait = WebDriverWait(driver, 180)
seen = {}


def settle(change, word):
    driver.execute_script("document.getElementById('board-status').textContent = ''")
    change()
    wait.until(lambda d: word in d.find_element(By.ID, "board-status").text)
    return driver.find_element(By.ID, "board-status").text


GRID = """const g = document.getElementById('grid');
const top = g.getBoundingClientRect().top + window.scrollY;
const cells = [...g.querySelectorAll('.grid-cell')];
const bottom = Math.max(...cells.map((c) => c.getBoundingClientRect().bottom + window.scrollY));
return { cells: cells.map((c) => ({ ...c.dataset, text: c.textContent })), top, bottom,
  means: [...g.querySelectorAll('.board-mean')].map((m) => ({ ...m.dataset, text: m.textContent })),
  heads: [...g.querySelectorAll('thead th')].map((t) => t.textContent),
  headTitles: [...g.querySelectorAll('thead th button')].map((t) => t.title),
  h4: [...g.querySelectorAll('h4')].map((h) => h.textContent),
  scroll: [document.documentElement.scrollWidth, window.innerWidth],
  cut: [...g.querySelectorAll('th.model')].map((t) => [t.title, t.querySelector('.cut').scrollWidth > t.querySelector('.cut').clientWidth]) };"""


def grid(size):
    # (A page already at /#board would not load again.)
    driver.get("about:blank")
    driver.get(base + "/#board")
    status = wait.until(lambda d: (t := d.find_element(By.ID, "board-status").text) and "cells" in t and t)
    seen[f"status_{size}"] = status
    seen[f"grid_{size}"] = driver.execute_script(GRID)
    driver.execute_script("document.getElementById('board').scrollIntoView()")
    driver.save_screenshot(os.path.join(shots, f"figures-grid-{size}.png"))
    driver.execute_script("document.querySelector('#grid .kld-figure').scrollIntoView()")
    driver.save_screenshot(os.path.join(shots, f"figures-dots-{size}.png"))


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:8]
    return list(struct.unpack(">II", data[16:24]))


try:
    grid("1280")
    # Sort by the first judge's column: highest first.
    driver.find_elements(By.CSS_SELECTOR, "#grid-0 thead button.sort")[1].click()
    seen["sorted"] = driver.execute_script(
        "return [...document.querySelectorAll('#grid-0 tbody tr')].map((r) => r.querySelectorAll('td')[0].querySelector('.grid-cell')?.dataset.passPct ?? '')")
    # Downloads: the dot plot's SVG, PNG and CSV; the grid's CSV.
    fig = driver.find_element(By.CSS_SELECTOR, "#grid .kld-figure")
    links = {a.text: a for a in fig.find_elements(By.CSS_SELECTOR, "a.download")}
    name, svg = downloaded(links["SVG"].click, downloads)
    seen["svg"] = {"name": name, "starts": svg[:40].decode(), "points": svg.count(b'<g class="point">')}
    name, png = downloaded(fig.find_element(By.CSS_SELECTOR, "button.download-png").click, downloads)
    seen["png"] = {"name": name, "size": png_size(png), "svg_width": driver.execute_script(
        "return document.querySelector('#grid .kld-figure svg').width.baseVal.value")}
    name, csv = downloaded(links["CSV (its data)"].click, downloads)
    seen["dots_csv"] = csv.decode()
    grid_links = {a.text: a for a in driver.find_elements(By.CSS_SELECTOR, "#grid .grid-downloads a")}
    seen["grid_csv"] = downloaded(grid_links["CSV"].click, downloads)[1].decode()
    seen["grid_downloads"] = sorted(grid_links)
    # The matrix: sticky question column, order by difficulty, totals, heatmap.
    settle(lambda: Select(driver.find_element(By.ID, "board-view")).select_by_value("matrix"), "questions")
    seen["matrix_compact"] = driver.execute_script(
        "return document.getElementById('matrix-table').classList.contains('compact')")
    driver.execute_script("document.getElementById('matrix').scrollIntoView()")
    driver.save_screenshot(os.path.join(shots, "figures-matrix-1280.png"))
    # Compact, ten questions fit the box; every outcome written out, the
    # matrix is wider than its box and scrolls sideways inside it.
    settle(lambda: driver.find_element(By.ID, "matrix-compact").click(), "questions")
    box = driver.find_element(By.CSS_SELECTOR, "#matrix .matrix-scroll")
    before = driver.execute_script("return document.querySelector('#matrix-table tbody th').getBoundingClientRect().left")
    driver.execute_script("arguments[0].scrollLeft = 600", box)
    time.sleep(0.2)
    seen["matrix"] = driver.execute_script("""const s = document.querySelector('#matrix .matrix-scroll');
      const th = document.querySelector('#matrix-table tbody th');
      return { scrolled: s.scrollLeft, wide: s.scrollWidth > s.clientWidth,
        left_after: th.getBoundingClientRect().left, box_left: s.getBoundingClientRect().left,
        rows: document.querySelectorAll('#matrix-table tbody tr').length,
        totals: [...document.querySelectorAll('#matrix-table td.row-total')].map((t) => t.title),
        col_totals: [...document.querySelectorAll('#matrix-table td.col-total')].map((t) => ({ model: t.dataset.model, title: t.title })),
        compact: document.getElementById('matrix-table').classList.contains('compact'),
        scroll: [document.documentElement.scrollWidth, window.innerWidth] };""")
    seen["matrix"]["left_before"] = before
    driver.execute_script("document.getElementById('matrix').scrollIntoView()")
    driver.save_screenshot(os.path.join(shots, "figures-matrix-1280-scrolled.png"))
    driver.execute_script("document.querySelector('#matrix details').open = true")
    links = {a.text: a for a in driver.find_elements(By.CSS_SELECTOR, "#matrix .kld-figure a.download")}
    seen["heatmap_csv"] = downloaded(links["CSV (its data)"].click, downloads)[1].decode()
    name, png = downloaded(driver.find_element(By.CSS_SELECTOR, "#matrix .kld-figure button.download-png").click, downloads)
    seen["heatmap_png"] = png_size(png)
    # A question opens its results under every judge.
    driver.find_element(By.CSS_SELECTOR, "#matrix-table .question-link").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#question-results table"))
    # (The results table pages 100 rows at a time: its total says all.)
    seen["question_results"] = int(driver.find_element(By.ID, "question-results-table").get_attribute("data-total"))
    # 700 px: the grid and the matrix within the window.
    driver.set_window_size(700, 900)
    grid("700")
    settle(lambda: Select(driver.find_element(By.ID, "board-view")).select_by_value("matrix"), "questions")
    seen["matrix_700"] = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    driver.execute_script("document.getElementById('matrix').scrollIntoView()")
    driver.save_screenshot(os.path.join(shots, "figures-matrix-700.png"))
    seen["elsewhere"] = [u for u in requested_urls(driver) if not u.startswith((base, "data:", "blob:"))]
finally:
    driver.quit()
print(json.dumps(seen))

"""The leaderboard's judges, runs and matrix in headless Chromium
(crates/cli/tests/cli/page_leaderboard.rs): a server at BASE holding a benchmark run
twice with two judges and three replicates. Reads every pass-rate cell (its
data attributes and text) in the "all judges" view, for each judge alone, with
the latest result per question, and under each run label; the matrix of each
judge, per run and latest; and the benchmarks table's width with a long name
(issue 40), at two window sizes. Prints what it saw as one JSON line.

usage: browser_judges.py BASE SHOTS [fits]   (fits: only the benchmarks table)"""
import json
import os
import sys

from browser import chromium
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

base, shots = sys.argv[1], sys.argv[2]
only_fits = sys.argv[3:] == ["fits"]
os.makedirs(shots, exist_ok=True)
driver = chromium("1280,900")
wait = WebDriverWait(driver, 120)
seen = {}

# Every judge (the default) is the model × judge grid (#grid): each cell a
# judge's, the row's mean of judges beside; one judge, the models × benchmark
# columns table (#leaderboard).
CELLS = """const grid = document.getElementById('grid');
if (!grid.hidden) return [...grid.querySelectorAll('.grid-cell')].map((b) => {
  const tr = b.closest('tr'); const m = tr.querySelector('.board-mean');
  return { ...b.dataset, text: b.textContent, title: b.title, row: tr.querySelector('th').textContent,
    column: b.closest('td').cellIndex, spread: m ? { ...m.dataset, text: m.textContent } : null };
});
return [...document.querySelectorAll('#leaderboard tbody td')].flatMap((td) => {
  const judges = td.querySelector('.judges');
  return [...td.querySelectorAll('.board-cell')].map((b) => ({
    ...b.dataset, text: b.textContent, title: b.title, row: td.closest('tr').querySelector('th').textContent,
    column: td.cellIndex, spread: judges ? { ...judges.dataset, text: judges.querySelector('.spread')?.textContent ?? '' } : null }));
});"""

MATRIX = """return [...document.querySelectorAll('#matrix-table tbody td[data-question]')].map((td) => ({ ...td.dataset, text: td.textContent }));"""


def settle(change):
    """Runs `change` and waits for the board to be drawn again."""
    driver.execute_script("document.getElementById('board-status').textContent = ''")
    change()
    wait.until(lambda d: "models" in d.find_element(By.ID, "board-status").text)
    return driver.find_element(By.ID, "board-status").text


def choose(select_id, value):
    """Chooses `value` (the board is drawn again when that changes it)."""
    if driver.find_element(By.ID, select_id).get_attribute("value") == value:
        return driver.find_element(By.ID, "board-status").text
    return settle(lambda: Select(driver.find_element(By.ID, select_id)).select_by_value(value))


def options(select_id):
    return [o.get_attribute("value") for o in Select(driver.find_element(By.ID, select_id)).options]


def fits():
    """The benchmarks table against the window: [table right edge, window
    width, document scroll width, the rightmost header cell's right edge]."""
    return driver.execute_script("""const t = document.getElementById('benchmarks-table');
      const ths = [...t.querySelectorAll('thead th')];
      return [t.getBoundingClientRect().right, window.innerWidth, document.documentElement.scrollWidth,
              Math.max(...ths.map((th) => th.getBoundingClientRect().right)),
              document.getElementById('benchmarks').clientWidth, t.offsetWidth];""")


def board():
    driver.get(base + "/#board")
    wait.until(lambda d: "models" in d.find_element(By.ID, "board-status").text)
    seen["status_all"] = driver.find_element(By.ID, "board-status").text
    seen["judges"] = options("board-judge")
    seen["labels"] = options("board-label")
    seen["runs"] = options("board-run")
    seen["all"] = driver.execute_script(CELLS)
    driver.execute_script("document.getElementById('board').scrollIntoView()")
    driver.save_screenshot(os.path.join(shots, "judges-all.png"))
    seen["by_judge"] = {}
    for j in seen["judges"][1:]:
        choose("board-judge", j)
        seen["by_judge"][j] = driver.execute_script(CELLS)
    choose("board-judge", "")
    settle(lambda: driver.find_element(By.ID, "board-latest").click())
    seen["latest_status"] = driver.find_element(By.ID, "board-status").text
    seen["latest"] = driver.execute_script(CELLS)
    driver.save_screenshot(os.path.join(shots, "judges-latest.png"))
    settle(lambda: driver.find_element(By.ID, "board-latest").click())
    seen["by_label"] = {}
    for label in seen["labels"][1:]:
        choose("board-label", label)
        seen["by_label"][label] = driver.execute_script(CELLS)
    if len(seen["labels"]) > 1:
        choose("board-label", "")
    # A cell opens its matrix: that run, that judge.
    cell = driver.find_element(By.CSS_SELECTOR, "#grid .grid-cell")
    seen["opened"] = {"judge": cell.get_attribute("data-judge"), "run": cell.get_attribute("data-run")}
    settle(cell.click)
    seen["opened"]["view"] = Select(driver.find_element(By.ID, "board-view")).first_selected_option.get_attribute("value")
    seen["opened"]["status"] = driver.find_element(By.ID, "board-status").text
    seen["opened"]["cells"] = driver.execute_script(MATRIX)
    driver.save_screenshot(os.path.join(shots, "matrix.png"))
    # The matrix of each judge: latest (no run), then each run.
    seen["matrix"] = {}
    for j in seen["judges"][1:]:
        choose("board-judge", j)
        for run in seen["runs"]:
            status = choose("board-run", run)
            seen["matrix"][f"{j}\u0000{run}"] = {"status": status, "cells": driver.execute_script(MATRIX),
                                                 "heads": driver.execute_script(
                                                     "return [...document.querySelectorAll('#matrix-table tbody th')].map((t) => t.title)")}


def benchmarks_table():
    """Issue 40: the benchmarks table within the window, wide and narrow."""
    driver.get(base + "/")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#benchmarks-table tbody tr"))
    seen["fits_wide"] = fits()
    driver.save_screenshot(os.path.join(shots, "benchmarks-wide.png"))
    driver.set_window_size(700, 900)
    seen["fits_narrow"] = fits()
    driver.save_screenshot(os.path.join(shots, "benchmarks-700px.png"))


try:
    if not only_fits:
        board()
    benchmarks_table()
finally:
    driver.quit()
print(json.dumps(seen))

"""The leaderboard of `kld serve --watch` in headless Chromium: untouched
files leave it as drawn (a mark on a cell and the keyboard focus on a cell
survive several of the page's 2 s polls); a results export replaced on disk
redraws it. Reads every cell before and after. Prints what it saw as one
JSON line.

usage: browser_board_watch.py BASE RESULTS_FILE NEW_CONTENT_FILE"""
import json
import os
import shutil
import sys
import time

from browser import chromium
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

base, target, replacement = sys.argv[1], sys.argv[2], sys.argv[3]
driver = chromium("1280,800")
wait = WebDriverWait(driver, 120)
CELLS = """return [...document.querySelectorAll('#leaderboard tbody td .board-cell')].map((b) => ({...b.dataset}));"""
seen = {}
try:
    driver.get(base + "/#board")
    wait.until(lambda d: "models" in d.find_element(By.ID, "board-status").text)
    # The models × benchmark columns (every judge apart in each cell).
    driver.execute_script("document.getElementById('board-status').textContent = ''")
    Select(driver.find_element(By.ID, "board-view")).select_by_value("columns")
    wait.until(lambda d: "benchmark columns" in d.find_element(By.ID, "board-status").text)
    seen["before"] = driver.execute_script(CELLS)
    driver.execute_script("""document.querySelector('#leaderboard tbody .board-cell').dataset.mark = 'kept';
      document.querySelector('#leaderboard tbody .board-cell').focus();""")
    time.sleep(5)
    seen["kept"] = driver.execute_script("""return [document.querySelector('#leaderboard tbody .board-cell').dataset.mark ?? null,
      document.activeElement.classList.contains('board-cell')]""")
    tmp = target + ".tmp"
    shutil.copyfile(replacement, tmp)
    os.replace(tmp, target)
    wait.until(lambda d: d.execute_script(CELLS) != seen["before"])
    # The store may answer between two loads: wait for two polls alike.
    while True:
        first = driver.execute_script(CELLS)
        time.sleep(2.5)
        if driver.execute_script(CELLS) == first:
            break
    seen["after"] = first
finally:
    driver.quit()
print(json.dumps(seen))

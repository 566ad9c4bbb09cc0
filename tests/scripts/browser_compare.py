"""The page's "Compare models" in headless Chromium (tests/cli/page_compare.rs),
on a server at BASE holding one paper-size run: at 1280 × 800 and 700 px, the
figures drawn inline (their size on screen, the forest plot's pairs and the
κ heatmap's cells), the tables' rows, every download link's status and media
type (fetched by the page), the PNG buttons, and whether the page scrolls
sideways; the pairs CSV as downloaded; the forest plot's PNG. With TWO, a
server holding two runs: the section's refusal to pool them and its choice
of run. Screenshots go to SHOTS; downloads land in DOWNLOADS. Prints one
JSON line.

usage: browser_compare.py BASE SHOTS DOWNLOADS TWO"""
import json
import os
import struct
import sys

from browser import chromium, downloaded, requested_urls
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

base, shots, downloads, two = sys.argv[1:5]
os.makedirs(shots, exist_ok=True)
os.makedirs(downloads, exist_ok=True)
driver = chromium("1280,800", downloads=downloads, network_log=True)
wait = WebDriverWait(driver, 300)
seen = {}


SECTION = """const box = document.getElementById('compare');
const figures = [...box.querySelectorAll('.kld-figure')].map((f) => {
  const svg = f.querySelector('svg');
  const r = svg ? svg.getBoundingClientRect() : { width: 0, height: 0 };
  return { width: r.width, height: r.height, pairs: f.querySelectorAll('g.pair').length,
    cells: f.querySelectorAll('g.cell').length };
});
const tables = {};
for (const t of box.querySelectorAll('table.compare-table')) tables[t.id] = t.tBodies[0].rows.length;
// Names cut with an ellipsis keep the whole name on hover.
const cut = [...box.querySelectorAll('.compare-table tbody th')].filter((t) => {
  const c = t.querySelector('.cut'); return c && c.scrollWidth > c.clientWidth; });
return { figures, tables, cut: cut.length, cut_titled: cut.filter((t) => t.title.length > 0).length, png_buttons: box.querySelectorAll('button.download-png').length,
  hrefs: [...box.querySelectorAll('a.download')].map((a) => [a.textContent, a.href]),
  scroll: [document.documentElement.scrollWidth, window.innerWidth] };"""

FETCH = """const done = arguments[arguments.length - 1];
Promise.all(arguments[0].map(async ([label, href]) => {
  const r = await fetch(href);
  await r.arrayBuffer();
  return { label, href, status: r.status, type: r.headers.get('content-type') };
})).then(done, (e) => done(String(e)));"""


def section(size):
    driver.get("about:blank")
    driver.get(base + "/#board")
    wait.until(lambda d: "pairs" in d.find_element(By.ID, "compare-status").text)
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#compare .kld-figure svg")) == 2)
    v = driver.execute_script(SECTION)
    v["links"] = driver.execute_async_script(FETCH, v.pop("hrefs"))
    seen[size] = v
    for part in ["compare", "compare-pairs", "compare-agreement"]:
        driver.execute_script(f"document.getElementById('{part}').scrollIntoView()")
        driver.save_screenshot(os.path.join(shots, f"{part}-{size}.png"))
    for i, fig in enumerate(driver.find_elements(By.CSS_SELECTOR, "#compare .kld-figure")):
        driver.execute_script("arguments[0].scrollIntoView()", fig)
        driver.save_screenshot(os.path.join(shots, f"compare-figure-{i + 1}-{size}.png"))


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:8]
    return list(struct.unpack(">II", data[16:24]))


try:
    section("1280")
    pairs = driver.find_element(By.ID, "compare-pairs")
    links = {a.text: a for a in pairs.find_elements(By.CSS_SELECTOR, ".compare-downloads a.download")}
    seen["pairs_csv"] = downloaded(links["CSV"].click, downloads)[1].decode()
    forest = driver.find_element(By.CSS_SELECTOR, "#compare-pairs .kld-figure")
    seen["png"] = png_size(downloaded(forest.find_element(By.CSS_SELECTOR, "button.download-png").click, downloads)[1])
    driver.set_window_size(700, 900)
    section("700")
    seen["elsewhere"] = [u for u in requested_urls(driver) if not u.startswith((base, "data:", "blob:"))]
    # Two runs, none chosen: the refusal, then a choice of run.
    driver.set_window_size(1280, 800)
    driver.get("about:blank")
    driver.get(two + "/#board")
    choice = wait.until(lambda d: d.find_elements(By.ID, "compare-run"))[0]
    seen["two"] = {"refusal": driver.find_element(By.CSS_SELECTOR, "#compare-body .refusal").text,
                   "options": len(choice.find_elements(By.TAG_NAME, "option")) - 1}
    driver.execute_script("document.getElementById('compare').scrollIntoView()")
    driver.save_screenshot(os.path.join(shots, "compare-two-runs-1280.png"))
    Select(choice).select_by_index(2)
    wait.until(lambda d: "pairs" in d.find_element(By.ID, "compare-status").text)
    seen["two"]["status"] = driver.find_element(By.ID, "compare-status").text
finally:
    driver.quit()
print(json.dumps(seen))

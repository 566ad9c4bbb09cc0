"""Drives the page of `kld serve` in headless Chromium (selenium + chromedriver):
reads the benchmarks table, opens the first benchmark, filters its questions
by a keyword, picks the `traits` query from the catalogue, runs it, reads the
result rows, saves a screenshot. Prints what it saw as one JSON line."""
import json
import sys

from browser import chromium
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

base, screenshot = sys.argv[1], sys.argv[2]
driver = chromium("1400,1800")
wait = WebDriverWait(driver, 30)
seen = {}
try:
    driver.get(base + "/")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#benchmarks-table tbody tr"))
    rows = driver.find_elements(By.CSS_SELECTOR, "#benchmarks-table tbody tr")
    seen["benchmarks"] = [[td.text for td in r.find_elements(By.TAG_NAME, "td")] for r in rows]
    # No results exports loaded: the results view says so instead of a chart.
    wait.until(lambda d: d.find_element(By.ID, "results-empty").is_displayed())
    seen["results_empty"] = driver.find_element(By.ID, "results-empty").is_displayed()
    seen["result_bars"] = len(driver.find_elements(By.CSS_SELECTOR, "#pass-chart .bar"))
    # Open the first benchmark (the listing is sorted by source, like /checkpoints).
    first = rows[0]
    seen["opened"] = first.find_elements(By.TAG_NAME, "td")[0].text
    first.click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#questions-table tbody tr"))
    seen["all_rows"] = len(driver.find_elements(By.CSS_SELECTOR, "#questions-table tbody tr"))
    kw = Select(driver.find_element(By.ID, "f-keyword"))
    options = [o.get_attribute("value") for o in kw.options if o.get_attribute("value")]
    seen["keyword"] = options[0]
    kw.select_by_value(options[0])
    seen["filtered_rows"] = len(driver.find_elements(By.CSS_SELECTOR, "#questions-table tbody tr"))
    # A question's detail opens.
    driver.find_element(By.CSS_SELECTOR, "#questions-table tbody tr").click()
    wait.until(EC.visibility_of_element_located((By.ID, "question-detail")))
    # The SPARQL editor: pick `traits` from the catalogue and run it.
    Select(driver.find_element(By.ID, "catalogue")).select_by_value("traits")
    driver.find_element(By.ID, "run").click()
    wait.until(lambda d: "rows in" in d.find_element(By.ID, "status").text)
    # The table shows a page of at most 100 rows and says how many in all.
    shown = len(driver.find_elements(By.CSS_SELECTOR, "#results tbody tr"))
    seen["traits_rows"] = int(driver.find_element(By.ID, "results").get_attribute("data-total"))
    assert shown == min(100, seen["traits_rows"]), (shown, seen["traits_rows"])
    seen["status"] = driver.find_element(By.ID, "status").text
    driver.save_screenshot(screenshot)
finally:
    driver.quit()
print(json.dumps(seen))

"""Drives the results view and the question filters of `kld serve` in
headless Chromium (selenium + chromedriver): the verdict legend and its
colours, every bar's segments (clicking each for its outcomes, with each
verdict cell's class and colour), the runs bound to no benchmark, and for
every benchmark the count each question filter shows. Prints what it saw as
one JSON line."""
import json
import re
import sys

from browser import chromium
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

base, screenshot = sys.argv[1], sys.argv[2]
driver = chromium("1500,1800")
wait = WebDriverWait(driver, 30)
seen = {"legend": {}, "bars": [], "unbound": [], "filters": {}}
color = lambda e, prop: driver.execute_script(
    "return getComputedStyle(arguments[0])[arguments[1]]", e, prop)
click = lambda e: driver.execute_script(
    "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", e)
try:
    driver.get(base + "/#results-view")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#pass-chart .bar"))
    for li in driver.find_elements(By.CSS_SELECTOR, "#verdict-legend li"):
        swatch = li.find_element(By.CSS_SELECTOR, ".swatch")
        seen["legend"][li.get_attribute("data-verdict")] = {
            "text": li.text, "background": color(swatch, "backgroundColor")}
    for i in range(len(driver.find_elements(By.CSS_SELECTOR, "#pass-chart .bar"))):
        bar = driver.find_elements(By.CSS_SELECTOR, "#pass-chart .bar")[i]
        data = {k: bar.get_attribute("data-" + k) for k in
                ["graph", "benchmark", "interface", "model", "run", "judge", "combo", "passed", "results",
                 "failed", "no-verdict", "false-or-null"]}
        track = float(bar.find_element(By.CSS_SELECTOR, "rect.track").get_attribute("width"))
        data["segments"] = {}
        for cls in ["fill", "fail", "none", "unknown"]:
            rect = bar.find_element(By.CSS_SELECTOR, "rect." + cls)
            data["segments"][cls] = {"ratio": float(rect.get_attribute("width")) / track,
                                     "fill": color(rect, "fill")}
        data["label"] = bar.find_element(By.CSS_SELECTOR, "text.value").text
        click(bar)
        want = f"{data['passed']} of {data['results']} passed"
        wait.until(lambda d: d.find_element(By.ID, "outcomes-title").text.endswith(want)
                   and data["model"] in d.find_element(By.ID, "outcomes-title").text
                   and f"judge {data['judge']}," in d.find_element(By.ID, "outcomes-title").text
                   and data["benchmark"] in d.find_element(By.ID, "outcomes-title").text)
        data["outcomes"] = []
        for r in driver.find_elements(By.CSS_SELECTOR, "#outcomes-table tbody tr"):
            cells = r.find_elements(By.TAG_NAME, "td")
            data["outcomes"].append({"question_id": cells[0].text, "verdict": cells[3].text,
                                     "class": cells[3].get_attribute("class"),
                                     "color": color(cells[3], "color")})
        seen["bars"].append(data)
    for r in driver.find_elements(By.CSS_SELECTOR, "#unbound-table tbody tr"):
        cells = r.find_elements(By.TAG_NAME, "td")
        seen["unbound"].append({"source": cells[0].text, "results": cells[1].text,
                                "reason": cells[2].text})
    driver.execute_script("document.getElementById('results-view').scrollIntoView()")
    driver.save_screenshot(screenshot)

    def shown():
        m = re.match(r"(\d+) of (\d+) shown", driver.find_element(By.ID, "question-count").text)
        return int(m.group(1)), int(m.group(2))

    rows = driver.find_elements(By.CSS_SELECTOR, "#benchmarks-table tbody tr")
    for i in range(len(rows)):
        row = driver.find_elements(By.CSS_SELECTOR, "#benchmarks-table tbody tr")[i]
        graph = row.get_attribute("data-graph")
        name = row.find_elements(By.TAG_NAME, "td")[0].text
        click(row)
        wait.until(lambda d: d.find_element(By.ID, "benchmark-title").text.startswith(name + " ("))
        f = {"total": shown()[1]}
        for box in ["f-unfinished", "f-notemplate"]:
            e = driver.find_element(By.ID, box)
            driver.execute_script("arguments[0].click()", e)
            f[box] = shown()[0]
            driver.execute_script("arguments[0].click()", e)
        for sel in ["f-keyword", "f-trait"]:
            s = Select(driver.find_element(By.ID, sel))
            values = [o.get_attribute("value") for o in s.options if o.get_attribute("value")]
            f[sel] = {}
            for v in values:
                s.select_by_value(v)
                f[sel][v] = shown()[0]
            s.select_by_value("")
        seen["filters"][graph] = f
finally:
    driver.quit()
print(json.dumps(seen))

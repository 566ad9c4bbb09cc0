"""Drives the results view of `kld serve` in headless Chromium (selenium +
chromedriver): reads every bar of the pass-rate chart (its data attributes),
clicks each and reads the outcomes table behind it, saves a screenshot.
Prints what it saw as one JSON line."""
import json
import sys

from browser import chromium
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

base, screenshot = sys.argv[1], sys.argv[2]
driver = chromium("1400,1600")
wait = WebDriverWait(driver, 30)
seen = {"bars": []}
try:
    driver.get(base + "/#results-view")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#pass-chart .bar")
               or d.find_element(By.ID, "results-empty").is_displayed())
    seen["empty_message"] = driver.find_element(By.ID, "results-empty").is_displayed()
    bars = driver.find_elements(By.CSS_SELECTOR, "#pass-chart .bar")
    for i in range(len(bars)):
        bar = driver.find_elements(By.CSS_SELECTOR, "#pass-chart .bar")[i]
        data = {k: bar.get_attribute("data-" + k)
                for k in ["graph", "benchmark", "interface", "model", "run", "judge", "combo", "passed", "results"]}
        fill = bar.find_element(By.CSS_SELECTOR, "rect.fill")
        track = bar.find_element(By.CSS_SELECTOR, "rect.track")
        data["fill_ratio"] = float(fill.get_attribute("width")) / float(track.get_attribute("width"))
        data["label"] = bar.find_element(By.CSS_SELECTOR, "text.value").text
        driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", bar)
        want = f"{data['passed']} of {data['results']} passed"
        wait.until(lambda d: d.find_element(By.ID, "outcomes-title").text.endswith(want)
                   and data["model"] in d.find_element(By.ID, "outcomes-title").text
                   and f"judge {data['judge']}," in d.find_element(By.ID, "outcomes-title").text)
        rows = driver.find_elements(By.CSS_SELECTOR, "#outcomes-table tbody tr")
        data["outcomes"] = [[td.text for td in r.find_elements(By.TAG_NAME, "td")] for r in rows]
        seen["bars"].append(data)
    seen["runs"] = [
        {"cells": [td.text for td in r.find_elements(By.TAG_NAME, "td")],
         "status": r.get_attribute("data-status"), "source": r.get_attribute("data-source")}
        for r in driver.find_elements(By.CSS_SELECTOR, "#runs-table tbody tr")]
    driver.execute_script("document.getElementById('results-view').scrollIntoView()")
    driver.save_screenshot(screenshot)
finally:
    driver.quit()
print(json.dumps(seen))

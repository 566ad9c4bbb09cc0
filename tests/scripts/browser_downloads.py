"""Drives the download links of `kld serve`'s page in headless Chromium: on
the first benchmark, Inspect (a link) and Croissant (asks for the licence:
first one the server refuses, then CC-BY-4.0); in the runs table, the first
run's EEE files (the button lists them, one link each). Every download lands
in DIR. Prints {"inspect": path, "croissant": path, "refusal": text,
"eee": [path, ...], "eee_links": [href, ...]} as one JSON line."""
import json
import os
import sys
import time

from browser import chromium
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

base, out = sys.argv[1], os.path.abspath(sys.argv[2])
driver = chromium("1400,1800", downloads=out)
wait = WebDriverWait(driver, 30)


def downloaded(before):
    """The one new, complete file in `out` since `before` (a set of names)."""
    deadline = time.time() + 30
    while time.time() < deadline:
        names = set(os.listdir(out)) - before
        done = [n for n in names if not n.endswith((".crdownload", ".tmp"))]
        if done and len(done) == len(names):
            assert len(done) == 1, done
            return os.path.join(out, done[0])
        time.sleep(0.1)
    raise TimeoutError(f"no download in {out}: {os.listdir(out)}")


def click_and_save(element):
    before = set(os.listdir(out))
    element.click()
    return downloaded(before)


def answer_prompt(text):
    wait.until(EC.alert_is_present())
    alert = driver.switch_to.alert
    alert.send_keys(text)
    alert.accept()


seen = {}
try:
    driver.get(base + "/")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#benchmarks-table tbody tr"))
    driver.find_element(By.CSS_SELECTOR, "#benchmarks-table tbody tr").click()
    wait.until(EC.element_to_be_clickable((By.ID, "dl-inspect")))
    seen["inspect"] = click_and_save(driver.find_element(By.ID, "dl-inspect"))
    # A licence the server refuses: the page shows why, nothing is saved.
    before = set(os.listdir(out))
    driver.find_element(By.ID, "dl-croissant").click()
    answer_prompt("not a licence")
    wait.until(lambda d: d.find_element(By.ID, "dl-status").text)
    seen["refusal"] = driver.find_element(By.ID, "dl-status").text
    assert set(os.listdir(out)) == before, os.listdir(out)
    driver.find_element(By.ID, "dl-croissant").click()
    before = set(os.listdir(out))
    answer_prompt("CC-BY-4.0")
    seen["croissant"] = downloaded(before)
    # The runs table: the run's EEE files, listed by the button.
    button = wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "#runs-table .dl-eee")))
    button.click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#runs-table .dl-eee-file"))
    links = driver.find_elements(By.CSS_SELECTOR, "#runs-table .dl-eee-file")
    seen["eee_links"] = [a.get_attribute("href") for a in links]
    seen["eee"] = [click_and_save(a) for a in links]
finally:
    driver.quit()
print(json.dumps(seen))

"""Opens a page of another origin that frames kld serve's page with a
permalink (`#query=…`), waits, then opens a permalink to kld's page itself
and, once the page has loaded, reads what it shows before and after the
user presses Run. Prints what it saw as one JSON line.

argv: the other site's page URL, the permalink URL, seconds to wait."""
import json
import sys
import time

from browser import chromium
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

other, permalink, settle = sys.argv[1], sys.argv[2], float(sys.argv[3])
driver = chromium()
wait = WebDriverWait(driver, 30)
seen = {}
try:
    # The framing page: whatever the frame does, it does while we wait.
    driver.get(other)
    time.sleep(settle)
    seen["frame_loaded"] = driver.execute_script(
        "try { return !!document.getElementById('kld').contentDocument?.body?.childElementCount; }"
        " catch (e) { return 'cross-origin'; }")
    # The permalink opened in the browser: filled in, not run.
    driver.get("about:blank")
    driver.get(permalink)
    wait.until(lambda d: "press Run" in d.find_element(By.ID, "status").text)
    time.sleep(settle)
    seen["status_before"] = driver.find_element(By.ID, "status").text
    seen["text_before"] = driver.execute_script("return document.getElementById('query').value")
    seen["history_before"] = driver.execute_script("return localStorage.getItem('kld-serve-history')")
    seen["rows_before"] = len(driver.find_elements(By.CSS_SELECTOR, "#results tbody tr"))
    # A script clicking Run is not the user: nothing runs, nothing is kept.
    driver.execute_script("document.getElementById('run').click()")
    time.sleep(1)
    seen["status_after_script"] = driver.find_element(By.ID, "status").text
    seen["history_after_script"] = driver.execute_script("return localStorage.getItem('kld-serve-history')")
    # The user's Run runs it (an error 503 at the time limit) and keeps it.
    driver.find_element(By.ID, "run").click()
    wait.until(lambda d: "error" in d.find_element(By.ID, "status").text)
    seen["status_after_run"] = driver.find_element(By.ID, "status").text
    h = driver.execute_script("return JSON.parse(localStorage.getItem('kld-serve-history') || '[]')")
    seen["history_after_run"] = [e["query"] for e in h]
    print(json.dumps(seen))
finally:
    driver.quit()

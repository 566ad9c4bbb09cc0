"""Opens a page of another origin that tries to read kld serve's data with
fetch() and loads a deeply nested query through an <img>; prints what the
page saw as JSON."""
import json
import sys
import time

from browser import chromium

driver = chromium()
try:
    driver.get(sys.argv[1])
    outcome = None
    deadline = time.time() + 20
    while outcome is None and time.time() < deadline:
        outcome = driver.execute_script("return window.outcome")
        time.sleep(0.1)
    print(json.dumps({"outcome": outcome}))
finally:
    driver.quit()

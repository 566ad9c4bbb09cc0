"""Markup in the data is text on `kld serve`'s page: with a benchmark name,
question texts and a custom metadata value holding an `<img onerror>` and a
`<script>` (argv[2], the payload), opens the page (benchmarks, results
chart, leaderboard, runs), the benchmark's questions and one question, a
permalink query answering those literals and a `javascript:` IRI, and a
permalink whose query text and name are markup. Counts whether any payload
ran (it increments window.__pwned), the <img> elements the data could have
made (CodeMirror's own carry the class cm-widgetBuffer), and where the
payload appears as text. Prints what it saw as one JSON line."""
import json
import sys
import urllib.parse

from browser import chromium
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

base, payload = sys.argv[1], sys.argv[2]
driver = chromium("1280,800")
wait = WebDriverWait(driver, 30)
seen = {}


def probe(tag):
    seen[tag] = driver.execute_script("""
      const text = (sel) => [...document.querySelectorAll(sel)].filter((e) => e.textContent.includes(arguments[0])).length;
      return {pwned: window.__pwned || 0,
              imgs: [...document.querySelectorAll('img:not(.cm-widgetBuffer)')].map((i) => i.outerHTML),
              as_text: {benchmarks: text('#benchmarks-table td'), chart: text('#pass-chart title'),
                        board: text('#leaderboard thead th, #grid h4'), questions: text('#questions-table td'),
                        detail: text('#question-detail'), results: text('#results-box td')}};
    """, payload)


try:
    driver.get(base + "/")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#pass-chart .bar"))
    wait.until(lambda d: "models" in d.find_element(By.ID, "board-status").text)
    probe("page")
    # The benchmark's questions, and the first question opened.
    driver.execute_script("""
      fetch('/checkpoints').then((r) => r.json()).then((cps) => openBenchmark(cps.find((c) => c.name.includes(arguments[0]))));
    """, payload)
    wait.until(lambda d: payload in d.find_element(By.ID, "benchmark-title").text)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#questions-table tbody tr"))
    rows = driver.find_elements(By.CSS_SELECTOR, "#questions-table tbody tr")
    if rows:
        rows[0].click()
    seen["benchmark_text"] = driver.execute_script(
        "return document.querySelector('#benchmark').innerText.split(arguments[0]).length - 1", payload)
    probe("benchmark")
    query = ('SELECT ?text ?iri WHERE { ?q a schema:Question ; schema:text ?text '
             'BIND(IRI("javascript:window.__pwned=100") AS ?iri) }')
    driver.get(base + "/#" + urllib.parse.urlencode({"query": query}))
    # A permalink fills the editor and waits for the user's Run (issue 38).
    wait.until(lambda d: "press Run" in d.find_element(By.ID, "status").text)
    driver.find_element(By.ID, "run").click()
    wait.until(lambda d: "rows in" in d.find_element(By.ID, "status").text)
    links = driver.find_elements(By.CSS_SELECTOR, "#results-box a.iri")
    seen["iri_hrefs"] = [a.get_attribute("href") for a in links]
    for a in links[:1]:
        a.click()
    probe("results")
    # Markup as the permalink's query text and catalogue name.
    driver.get(base + "/#" + urllib.parse.urlencode({"query": payload + " SELECT * { ?s ?p ?o } LIMIT 1", "name": payload}))
    wait.until(lambda d: "press Run" in d.find_element(By.ID, "status").text)
    driver.find_element(By.ID, "run").click()
    wait.until(lambda d: "error" in d.find_element(By.ID, "status").text)
    seen["error_box"] = driver.find_element(By.ID, "query-error").text
    probe("permalink")
finally:
    driver.quit()
print(json.dumps(seen))

"""Drives the SPARQL editor of `kld serve`'s page in headless Chromium
(selenium + chromedriver): types a query taking `schema:DataFeed` from the
completion (which declares the prefix), runs it with Ctrl-Enter, opens its
permalink in a new tab (filled in, run only when Run is pressed), runs a query with a syntax error and reads where the
editor marks it, recalls a query from the history by keyboard, opens a
catalogue query's permalink with its documentation, walks the area with Tab,
measures text contrast, and looks at a 400 px window. Every host but
127.0.0.1 resolves to nothing, and the performance log lists every request
the browser made. Screenshots at 1280x800 go to the directory given.
Prints what it saw as one JSON line."""
import json
import os
import sys

from browser import chromium, requested_urls
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

base, shots, catalogue_name = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(shots, exist_ok=True)
driver = chromium("1280,800", network_log=True, args=["--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"])
wait = WebDriverWait(driver, 30)
seen = {}

def editor_text():
    # The textarea mirrors the editor (app.js runs what it holds).
    return driver.execute_script("return document.getElementById('query').value")


def rows():
    return [[td.text for td in r.find_elements(By.TAG_NAME, "td")]
            for r in driver.find_elements(By.CSS_SELECTOR, "#results tbody tr")]


def wait_rows():
    wait.until(lambda d: "rows in" in d.find_element(By.ID, "status").text)
    return rows()


def clear_status():
    # Two runs can end with the same status text ("7 rows in 21 ms"): a
    # cleared status tells the next run's apart.
    driver.execute_script("document.getElementById('status').textContent = ''")


def open_page(url):
    driver.get(url)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#editor .cm-content"))
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#catalogue option")) > 1)


def run_opened_link():
    # A permalink fills the editor and waits for the user's Run.
    wait.until(lambda d: "press Run" in d.find_element(By.ID, "status").text)
    waiting = [driver.find_element(By.ID, "status").text,
               len(driver.find_elements(By.CSS_SELECTOR, "#results tbody tr"))]
    driver.find_element(By.ID, "run").click()
    return waiting


def shot(name):
    driver.execute_script("document.getElementById('sparql').scrollIntoView()")
    path = os.path.join(shots, name)
    driver.save_screenshot(path)
    return path


def replace_text(keys):
    content = driver.find_element(By.CSS_SELECTOR, "#editor .cm-content")
    content.click()
    content.send_keys(Keys.CONTROL, "a")
    content.send_keys(Keys.DELETE)
    content.send_keys(keys)
    return content


try:
    open_page(base + "/")
    # The store's terms are asked for when the editor is first focused.
    seen["vocabulary_before_focus"] = driver.find_element(By.ID, "editor").get_attribute("data-vocabulary")
    driver.find_element(By.CSS_SELECTOR, "#editor .cm-content").click()
    wait.until(lambda d: d.find_element(By.ID, "editor").get_attribute("data-vocabulary"))
    seen["vocabulary"] = driver.find_element(By.ID, "editor").get_attribute("data-vocabulary")
    # Typed, with schema:DataFeed taken from the completion list.
    content = replace_text("SELECT ?graph ?name WHERE { GRAPH ?graph { ?feed a schema:DataF")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".cm-tooltip-autocomplete li"))
    seen["completions"] = [li.text for li in driver.find_elements(By.CSS_SELECTOR, ".cm-tooltip-autocomplete li")]
    shot("editor-completion.png")
    content.send_keys(Keys.ENTER)
    # The rest: a variable completed from the query (?na → ?name).
    content.send_keys(" ; schema:name ?na")
    wait.until(lambda d: any(li.text.startswith("?name") for li in
                             d.find_elements(By.CSS_SELECTOR, ".cm-tooltip-autocomplete li")))
    content.send_keys(Keys.ENTER)
    content.send_keys(" } }")
    seen["typed"] = editor_text()
    content.send_keys(Keys.CONTROL, Keys.ENTER)
    seen["rows"] = wait_rows()
    seen["colours"] = driver.execute_script("""
      const out = {};
      for (const s of document.querySelectorAll('#editor .cm-line span')) out[s.textContent] = getComputedStyle(s).color;
      out.plain = getComputedStyle(document.querySelector('#editor .cm-line')).color;
      return out;
    """)
    permalink = driver.find_element(By.ID, "permalink").get_attribute("href")
    seen["permalink"] = permalink
    seen["location"] = driver.current_url
    shot("editor-results.png")
    first_tab = driver.current_window_handle

    # The permalink in a new tab: the same query, waiting; run, the same rows.
    driver.switch_to.new_window("tab")
    open_page(permalink)
    seen["permalink_waiting"] = run_opened_link()
    seen["permalink_rows"] = wait_rows()
    seen["permalink_text"] = editor_text()
    driver.close()
    driver.switch_to.window(first_tab)

    # A syntax error on line 3, marked there.
    bad = "SELECT * WHERE {\n  ?s ?p ?o .\n  FILTR(?o = 1) }"
    seen["bad"] = bad
    driver.execute_script("kldEditor.setText(arguments[0])", bad)
    content.click()
    content.send_keys(Keys.CONTROL, Keys.ENTER)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#editor .cm-lintRange-error"))
    seen["error_box"] = driver.find_element(By.ID, "query-error").text
    seen["marked"] = driver.execute_script("""
      const mark = document.querySelector('#editor .cm-lintRange-error');
      const line = mark.closest('.cm-line');
      const lines = [...document.querySelectorAll('#editor .cm-content > .cm-line')];
      const before = document.createRange();
      before.setStart(line, 0);
      before.setEnd(mark, 0);
      const ed = document.querySelector('#editor .cm-editor');
      return { line: lines.indexOf(line) + 1, column: before.toString().length + 1, text: mark.textContent,
               data_line: ed.dataset.errorLine, data_column: ed.dataset.errorColumn };
    """)
    shot("editor-error.png")
    # Editing clears the mark.
    content.send_keys(Keys.CONTROL, Keys.END)
    content.send_keys(" ")
    wait.until(lambda d: editor_text().endswith("FILTR(?o = 1) } "))
    seen["mark_after_edit"] = len(driver.find_elements(By.CSS_SELECTOR, "#editor .cm-lintRange-error"))
    # An error at the end of a line (where the parser often stops): the
    # line's last character is marked.
    bad_end = "SELECT * WHERE {\n  ?s ?p ?o .\n  FILTER(?o = ) }"
    seen["bad_end"] = bad_end
    driver.execute_script("kldEditor.setText(arguments[0])", bad_end)
    content.send_keys(Keys.CONTROL, Keys.ENTER)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#editor .cm-lintRange-error"))
    seen["marked_end"] = driver.execute_script("""
      const mark = document.querySelector('#editor .cm-lintRange-error');
      const ed = document.querySelector('#editor .cm-editor');
      return { text: mark.textContent, line: mark.closest('.cm-line').textContent,
               data_line: ed.dataset.errorLine, data_column: ed.dataset.errorColumn };
    """)
    # Back to the first bad query, whose permalink the reload below opens.
    driver.execute_script("kldEditor.setText(arguments[0])", bad)
    content.send_keys(Keys.CONTROL, Keys.ENTER)
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#editor .cm-editor").get_attribute(
        "data-error-column") == seen["marked"]["data_column"])

    # History, after a reload: the typed query (third newest) is back by
    # keyboard alone.
    driver.refresh()
    open_page(driver.current_url)
    # The address bar holds the bad query's permalink: it is back in the
    # editor, not run.
    wait.until(lambda d: "press Run" in d.find_element(By.ID, "status").text)
    seen["reload_status"] = driver.find_element(By.ID, "status").text
    seen["reload_text"] = editor_text()
    hist = driver.find_element(By.ID, "history")
    seen["history"] = [o.get_attribute("title") for o in Select(hist).options if o.get_attribute("value")]
    driver.execute_script("arguments[0].focus()", hist)
    for _ in range(3):
        hist.send_keys(Keys.DOWN)
    seen["recalled"] = editor_text()
    # ... and Cmd-Enter (Meta) in the editor runs it: the first rows again.
    content = driver.find_element(By.CSS_SELECTOR, "#editor .cm-content")
    content.click()
    clear_status()
    content.send_keys(Keys.META, Keys.ENTER)
    seen["recalled_rows"] = wait_rows()
    seen["recalled_name"] = Select(driver.find_element(By.ID, "catalogue")).first_selected_option.get_attribute("value")

    # A catalogue query: its documentation beside the editor, a permalink
    # with its name that reopens it with the documentation, the same rows.
    Select(driver.find_element(By.ID, "catalogue")).select_by_value(catalogue_name)
    doc = driver.find_element(By.ID, "query-doc")
    seen["doc_shown"] = doc.is_displayed()
    seen["doc_text"] = driver.find_element(By.ID, "query-doc-text").text
    seen["doc_returns"] = driver.find_element(By.ID, "query-doc-returns").text
    seen["doc_link"] = driver.find_element(By.ID, "query-doc-link").get_attribute("href")
    ed_box = driver.find_element(By.ID, "editor").rect
    doc_box = doc.rect
    seen["doc_beside"] = doc_box["x"] >= ed_box["x"] + ed_box["width"] - 1 and doc_box["y"] < ed_box["y"] + ed_box["height"]
    clear_status()
    driver.find_element(By.ID, "run").click()
    seen["catalogue_rows"] = wait_rows()
    catalogue_link = driver.find_element(By.ID, "permalink").get_attribute("href")
    seen["catalogue_permalink"] = catalogue_link
    shot("editor-catalogue.png")
    driver.switch_to.new_window("tab")
    open_page(catalogue_link)
    run_opened_link()
    seen["catalogue_permalink_rows"] = wait_rows()
    seen["catalogue_permalink_chosen"] = Select(driver.find_element(By.ID, "catalogue")).first_selected_option.get_attribute("value")
    seen["catalogue_permalink_doc"] = driver.find_element(By.ID, "query-doc-text").text
    driver.close()
    driver.switch_to.window(first_tab)

    # `#name=NAME` alone opens that catalogue query (run by Run).
    driver.switch_to.new_window("tab")
    open_page(base + "/#name=" + catalogue_name)
    run_opened_link()
    seen["name_only_rows"] = wait_rows()
    seen["name_only_text"] = editor_text()
    driver.close()
    driver.switch_to.window(first_tab)

    # The history keeps the 30 newest; Clear history forgets them.
    driver.execute_script("""localStorage.setItem('kld-serve-history', JSON.stringify(
      Array.from({ length: 30 }, (_, i) => ({ query: 'ASK { ?s ?p ' + i + ' }', name: '', at: '' }))))""")
    clear_status()
    driver.find_element(By.ID, "run").click()
    wait_rows()
    kept = driver.execute_script("return JSON.parse(localStorage.getItem('kld-serve-history'))")
    seen["history_kept"] = [len(kept), kept[0]["query"], kept[-1]["query"]]
    driver.find_element(By.ID, "history-clear").click()
    seen["history_cleared"] = [driver.execute_script("return localStorage.getItem('kld-serve-history')"),
                               len(Select(driver.find_element(By.ID, "history")).options)]

    # Keyboard: Tab from the catalogue reaches the editor, and Tab leaves it.
    driver.execute_script("document.getElementById('catalogue').focus()")
    focused = ("const a = document.activeElement; "
               "return a.classList.contains('cm-content') ? 'editor' : a.id || a.textContent || a.tagName")
    order = [driver.execute_script(focused)]
    for _ in range(25):
        driver.switch_to.active_element.send_keys(Keys.TAB)
        order.append(driver.execute_script(focused))
        if order[-2] == "editor":
            break
    seen["tab_order"] = order
    # Every control of the area has an accessible name.
    seen["unnamed"] = driver.execute_script("""
      const area = document.getElementById('sparql');
      const named = (e) => (e.labels && e.labels.length) || e.getAttribute('aria-label') || e.textContent.trim();
      return [...area.querySelectorAll('select, button, .cm-content, a[href]')]
        .filter((e) => e.offsetParent !== null && !named(e)).map((e) => e.outerHTML.slice(0, 80));
    """)
    # Contrast (WCAG) of the area's visible text against its background.
    seen["contrast"] = driver.execute_script("""
      const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
      const lum = ([r, g, b]) => { const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
      const bg = (e) => { for (; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
        if (c.length === 3 || c[3] > 0) return c.slice(0, 3); } return [255, 255, 255]; };
      let worst = { ratio: 99 };
      const area = document.getElementById('sparql');
      for (const e of area.querySelectorAll('.cm-line span, .cm-line, .cm-gutterElement, label, .help, #status, #query-doc p, #query-doc h3, a, button, select')) {
        if (!e.offsetParent || ![...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
        const a = lum(rgb(getComputedStyle(e).color)), b = lum(bg(e));
        const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
        if (ratio < worst.ratio) worst = { ratio, what: e.className || e.tagName, color: getComputedStyle(e).color };
      }
      return worst;
    """)

    # A narrow window: the editor area fits, the documentation below it.
    driver.set_window_size(400, 800)
    seen["narrow"] = driver.execute_script("""
      const area = document.querySelector('.editor-area'), ed = document.getElementById('editor');
      const doc = document.getElementById('query-doc').getBoundingClientRect(), e = ed.getBoundingClientRect();
      const bar = document.querySelector('#sparql .editor-bar');
      return { inner: window.innerWidth, editor_right: e.right, doc_right: doc.right,
               doc_below: doc.top >= e.bottom - 1, area_overflow: area.scrollWidth - area.clientWidth,
               bar_overflow: bar.scrollWidth - bar.clientWidth };
    """)
    shot("editor-narrow-400.png")
    driver.set_window_size(1280, 800)

    # Every request the browser made, from the performance log.
    urls = requested_urls(driver)
    seen["requests"] = len(urls)
    seen["foreign"] = sorted({u for u in urls if not u.startswith(base + "/") and not u.startswith(("data:", "blob:"))})
finally:
    driver.quit()
print(json.dumps(seen))

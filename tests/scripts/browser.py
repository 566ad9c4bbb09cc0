"""Headless Chromium for the page tests (selenium + chromedriver from PATH)."""
import json
import os
import shutil
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def chromium(window="1400,1800", downloads=None, network_log=False, args=()):
    """A headless Chromium driver with the given window size; downloads, when
    a directory is given, land there without asking; `network_log` keeps
    the log [`requested_urls`] reads; `args` are more command-line flags."""
    opts = webdriver.ChromeOptions()
    for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={window}", *args]:
        opts.add_argument(a)
    if downloads:
        opts.add_experimental_option("prefs", {
            "download.default_directory": downloads,
            "download.prompt_for_download": False,
        })
    if network_log:
        opts.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary:
        opts.binary_location = binary
    driver = webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver")), options=opts)
    if downloads:
        driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    return driver


def requested_urls(driver):
    """The URLs the browser requested since the last call (Chromium's
    network log: needs `chromium(..., network_log=True)`)."""
    urls = []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg.get("method") == "Network.requestWillBeSent":
            urls.append(msg["params"]["request"]["url"])
    return urls


def downloaded(click, downloads):
    """Calls CLICK, then waits for one new finished file in the folder
    DOWNLOADS (the driver's, `chromium(..., downloads=...)`): (name, bytes)."""
    before = set(os.listdir(downloads))
    click()
    for _ in range(300):
        new = [n for n in set(os.listdir(downloads)) - before if not n.endswith((".crdownload", ".tmp"))]
        if new:
            time.sleep(0.3)
            path = os.path.join(downloads, new[0])
            return new[0], open(path, "rb").read()
        time.sleep(0.1)
    raise TimeoutError(f"no download in {downloads}")

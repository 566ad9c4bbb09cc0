"""Headless Chromium for the page tests (selenium + chromedriver from PATH)."""
import shutil

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def chromium(window="1400,1800", downloads=None, args=(), perf_log=False):
    """A headless Chromium driver with the given window size; downloads, when
    a directory is given, land there without asking; `args` are more
    command-line flags; `perf_log` keeps the performance log (every request,
    read with driver.get_log("performance"))."""
    opts = webdriver.ChromeOptions()
    for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={window}", *args]:
        opts.add_argument(a)
    if perf_log:
        opts.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    if downloads:
        opts.add_experimental_option("prefs", {
            "download.default_directory": downloads,
            "download.prompt_for_download": False,
        })
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary:
        opts.binary_location = binary
    driver = webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver")), options=opts)
    if downloads:
        driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    return driver

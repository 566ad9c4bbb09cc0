"""Headless Chromium for the page tests (selenium + chromedriver from PATH)."""
import shutil

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def chromium(window="1400,1800", downloads=None):
    """A headless Chromium driver with the given window size; downloads, when
    a directory is given, land there without asking."""
    opts = webdriver.ChromeOptions()
    for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={window}"]:
        opts.add_argument(a)
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

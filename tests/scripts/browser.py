"""Headless Chromium for the page tests (selenium + chromedriver from PATH)."""
import shutil

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def chromium(window="1400,1800"):
    """A headless Chromium driver with the given window size."""
    opts = webdriver.ChromeOptions()
    for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={window}"]:
        opts.add_argument(a)
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary:
        opts.binary_location = binary
    return webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver")), options=opts)

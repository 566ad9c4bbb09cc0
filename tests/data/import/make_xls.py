"""Writes legacy.xls (a BIFF8 workbook) with xlwt: `pip install --target DIR xlwt`,
then `PYTHONPATH=DIR python3 make_xls.py`. Karenina reads .xls through xlrd
(`pip install xlrd` into its venv): legacy.karenina.jsonld is what it wrote,
by the lines at the end of make_fixtures.py."""
import datetime

import xlwt

wb = xlwt.Workbook()
ws = wb.add_sheet("Legacy")
rows = [["Question", "Answer", "Level", "Added"],
        ["What is the speed of light in vacuum (km/s)?", 299792, 1, datetime.datetime(2023, 5, 6)],
        ["Who wrote Hamlet?", "Shakespeare", None, None],
        ["", "No question", 2, None]]
datefmt = xlwt.easyxf(num_format_str="YYYY-MM-DD")
for r, row in enumerate(rows):
    for c, v in enumerate(row):
        if v is None:
            continue
        if isinstance(v, datetime.datetime):
            ws.write(r, c, v, datefmt)
        else:
            ws.write(r, c, v)
wb.save("legacy.xls")

"""Writes headers.xlsx, a sheet whose header cells are numbers, booleans,
dates and repeated names, and what pandas and Karenina make of it (run with
Karenina's venv, pandas 3.1.1): headers.columns.json is
`[str(c) for c in pd.read_excel("headers.xlsx").columns]`, the names pandas
gives the columns; headers.karenina.jsonld is what
extract_questions_from_file + Benchmark.add_question + save write for it,
selecting columns by text names (the renamed ones among them)."""
import datetime
import json

import openpyxl
import pandas as pd
from karenina.benchmark import Benchmark
from karenina.benchmark.authoring.questions import extract_questions_from_file

wb = openpyxl.Workbook()
ws = wb.active
ws.title = "Headers"
ws.append(["Question", "Answer", 2024, 1.5, True, datetime.datetime(2024, 1, 2, 3, 4, 5), 1.0, "2024",
           -0.0, 1e20, datetime.time(3, 4), "x", "x", "x.1", None, "Unnamed: 14", False, 0])
ws.append(["Which year?", "2024", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16])
ws.append(["Which month?", "January", 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36])
wb.save("headers.xlsx")

with open("headers.columns.json", "w", encoding="utf-8") as f:
    json.dump([str(c) for c in pd.read_excel("headers.xlsx").columns], f, ensure_ascii=False)
    f.write("\n")

b = Benchmark.create("headers")
for q in extract_questions_from_file(
        "headers.xlsx", "Question", "Answer",
        custom_metadata_columns=["2024", "1.1", "x.2", "x.1", "Unnamed: 14", "Unnamed: 14.1", "False.1", "0.2"]):
    b.add_question(q)
b.save("headers.karenina.jsonld")

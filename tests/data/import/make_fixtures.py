"""Writes the import fixtures Karenina's own code produces (run with Karenina's venv):
questions.xlsx, and questions.karenina.jsonld / questions-biology.karenina.jsonld,
what extract_questions_from_file + Benchmark.add_question + save write for them
(duplicate questions skipped, as kld refuses them)."""
import datetime
import openpyxl
from karenina.benchmark import Benchmark
from karenina.benchmark.authoring.questions import extract_questions_from_file

wb = openpyxl.Workbook()
ws = wb.active
ws.title = "Biology"
ws.append(["Question", "Answer", "Author", "Keywords", "Level", "Reviewed on"])
ws.append(["How many chambers does a human heart have?", 4, "Ada Lovelace", "anatomy; heart", 1, datetime.datetime(2024, 3, 1)])
ws.append(["What molecule carries genetic information?", "DNA", None, "genetics", 2.5, datetime.datetime(2024, 3, 2, 10, 30)])
ws.append(["What is the powerhouse of the cell?", "Mitochondria", "Zoë Ström", None, None, None])
ws.append([None, "No question", None, None, 1, None])
ws2 = wb.create_sheet("Chemistry")
ws2.append(["Q", "A"])
ws2.append(["What is the chemical symbol for gold?", "Au"])
ws2.append(["What is the pH of pure water at 25 °C?", 7])
wb.save("questions.xlsx")

def save(path, questions, name):
    b = Benchmark.create(name)
    for q in questions:
        try:
            b.add_question(q)
        except ValueError as e:
            if "already exists" not in str(e):
                raise
    b.save(path)

save("questions.karenina.jsonld", extract_questions_from_file(
    "questions.csv", "Question", "Answer",
    author_name_column="Author", author_email_column="Email", author_affiliation_column="Affiliation",
    url_column="URL", keywords_columns=[{"column": "Area", "separator": ","}, {"column": "Tags", "separator": ";"}],
    answer_notes_column="Notes", custom_metadata_columns=["Difficulty", "Score", "Reviewed"]), "questions")
save("questions-biology.karenina.jsonld", extract_questions_from_file(
    "questions.xlsx", "Question", "Answer", sheet_name="Biology", author_name_column="Author",
    keywords_columns=[{"column": "Keywords", "separator": ";"}], custom_metadata_columns=["Level"]), "biology")

# legacy.xls (make_xls.py), read through xlrd (`pip install xlrd` into the venv);
# without its dates column, on which Karenina's save fails.
save("legacy.karenina.jsonld", extract_questions_from_file(
    "legacy.xls", "Question", "Answer", sheet_name="Legacy", custom_metadata_columns=["Level"]), "legacy")

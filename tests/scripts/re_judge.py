"""Regex cases judged by Python's own `re.compile` (the oracle of the KLD-W019 lint).

Prints one JSON object per line: {"pattern": P, "ok": bool, "error": str|null}.
Cases: every string pattern literal in CPython's Lib/test/test_re.py (first
argument of re.compile/match/search/..., and of self.checkPatternError), then
N generated patterns (deterministic by --seed) built from sre's hard spots:
escapes, classes, quantifiers, groups, look-behinds, flags, conditionals.

Usage: python3 re_judge.py [--seed S] [--generated N]
"""

import argparse
import ast
import json
import random
import re
import sys
import warnings

import test.test_re as test_re

CALLS = {"compile", "match", "search", "fullmatch", "findall", "finditer", "split", "sub", "subn"}


def test_re_patterns():
    with open(test_re.__file__, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        fn = node.func
        name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", None)
        if name in CALLS or name in ("checkPatternError", "assertRaises"):
            for arg in node.args[:2]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    out.append(arg.value)
                    break
    return out


ATOMS = [
    "a", "é", "\u03b1", ".", "\\d", "\\w", "\\s", "\\b", "\\B", "\\A", "\\Z", "\\z", "\\h", "\\p{L}", "\\P{Lu}",
    "\\x41", "\\x4", "\\u00e9", "\\u00e", "\\U0001F600", "\\U00110000", "\\N{EM DASH}", "\\N{em dash}",
    "\\N{LATIN SMALL LETTER A}", "\\N{NOT A NAME}", "\\N{}", "\\N", "\\0", "\\07", "\\08", "\\377", "\\400", "\\1",
    "\\2", "\\9", "\\12", "\\-", "\\q", "\\k<n>", "\\g<1>", "\\e", "\\cA", "\\Q", "[a-z]", "[z-a]", "[\\d-z]",
    "[]a]", "[^]]", "[a-]", "[\\w]", "[\\b]", "[\\B]", "[[:alpha:]]", "[a", "[", "]", "}", "{", "{1}", "{,2}",
    "^", "$", "|", "(", ")", "\\", "#", " ", "\\N{GREEK SMALL LETTER ALPHA}", "\\N{HANGUL SYLLABLE GA}",
]
QUANTS = ["", "", "", "*", "+", "?", "*?", "+?", "??", "*+", "{2}", "{2,}", "{,3}", "{3,2}", "{1,2}?", "{x}",
          "{4294967295}", "{4294967294}", "**"]
OPENERS = ["(", "(?:", "(?P<g>", "(?P<1>", "(?<g>", "(?=", "(?!", "(?<=", "(?<!", "(?>", "(?i:", "(?-i:",
           "(?x:", "(?a:", "(?u:", "(?L:", "(?i-s:", "(?P=g)", "(?(1)", "(?(g)", "(?(0)", "(?(99)", "(?#c)",
           "(?", "(?'g'", "(?|", "(?R)", "(?P>g)"]
PREFIXES = ["", "", "", "(?i)", "(?x)", "(?a)", "(?u)", "(?au)", "(?L)", "(?t)", "(?-i)", "(?s)(?m)"]


def gen_atom(rng, depth):
    if depth < 3 and rng.random() < 0.35:
        opener = rng.choice(OPENERS)
        if opener.endswith(")"):
            return opener + rng.choice(QUANTS)
        body = "".join(gen_atom(rng, depth + 1) for _ in range(rng.randint(0, 3)))
        if rng.random() < 0.2:
            body += "|" + gen_atom(rng, depth + 1)
        close = ")" if rng.random() < 0.93 else ""
        return opener + body + close + rng.choice(QUANTS)
    return rng.choice(ATOMS) + rng.choice(QUANTS)


def generated(seed, n):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        p = rng.choice(PREFIXES) + "".join(gen_atom(rng, 0) for _ in range(rng.randint(1, 4)))
        out.append(p)
    return out


# Hand-picked corners of sre_parse: \N{} spellings and aliases, verbose mode,
# flags, conditionals, look-behind widths and group references.
CORNERS = [
    r"\N{LATIN CAPITAL LETTER GHA}", r"\N{latin small letter a}", r"\N{LATIN SMALL LETTER A }",
    r"\N{LATIN_SMALL_LETTER_A}", r"\N{LATIN SMALL LETTER  A}", r"\N{NULL}", r"\N{LINE FEED}", r"\N{LF}",
    r"\N{BYZANTINE MUSICAL SYMBOL FHTORA SKLIRON CHROMA VASIS}", r"\N{CJK UNIFIED IDEOGRAPH-4E00}",
    r"\N{HANGUL SYLLABLE GAG}", r"[\N{EM DASH}-\N{HORIZONTAL BAR}]", r"\N{EM DASH", r"\N{LATIN SMALL LETTER A WITH MACRON AND GRAVE}",
    "(?x) a b # comment\n c", "(?x)[ ]", "(?x)a\\ b", "(?x)a{1, 2}", "(?x)a #", "(?x)\\", "(?x: a )b",
    "(?-x:a b)", "(?x-i:a)", "(?xi)a", "(?u)é", r"(?a)\w", "(?L)a", "(?t)a", "(?t)a*", "(?t)(?:a)",
    "(?i)(?<=a)b", "(?<=a|bc)", "(?<=(?:a|bc))", "(?<=a{2})x", "(?<=a{1,2})x", r"(?<=\b)x", "(?<=(?P<x>a))",
    r"(a)(?<=\1)", r"(?<=(a)\1)", r"(a)(?<=(?(1)b|c))", r"(?<=(?(1)b|cc))(a)", "(?<!a*)", "(?<=a)(?<!b)",
    "(?(1)a|b|c)", "(a)(?(1)b|c)", "(?(a)b)", "(?P<a>x)(?(a)y|z)", "(?P<a>x)(?P<a>y)", r"(?P<a>x)\g<a>",
    "(?P<1a>x)", "(?P<a1>x)", "(?P<_>x)", "(?P<é>x)", "(?P<a-b>x)", "(?P=a)", "(?P<a>(?P=a))",
    "(?(0)a)", "(?(-1)a)", "(?(+1)a)(b)", "(?( 1)a)(b)", "(?(1_0)a)", "(?(١)a)(b)", "(?(01)a)(b)",
    "a{,3}?", "a{1,}+", "(?s:.)", "(?>a+)+", "(?>)", "a++", "a?+", "a{2}+", "(?:)*", "(?=a)*", "(?#x)*",
    "x(?#unterminated", "[]", "[]]", "[^]]", "[a-\\d]", "[\\d-z]", "[z-a]", "[a-a]", r"[\x00-\x{7f}]",
    r"\x7", r"\u12", r"\U0010FFFF", r"\U00110000", r"\0", r"\00", r"\000", r"\0000", r"\400", r"\377",
    r"\8", r"(a)\10", r"(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\10", r"\18", r"\123", r"[\8]", r"[\123]", r"[\400]",
    "a|*", "|", "()", "(|)", "(?:|a)*", "^*", "$*", r"\A*", r"\Z+", r"\B?", "a{1}{2}", "a{1}?{2}",
    "{1,2}", "x{2,1}", "x{99999999999}", "x{4294967294}", "x{4294967295}", "x{0,4294967294}",
    "(" * 30 + ")" * 30, "(?:" * 30 + ")" * 30, "((a)|b)+", "(?i:(?-i:a))", "(?i-i:a)", "(?ii:a)", "(?i",
    "(?-", "(?-:a)", "(?", "(?P", "(?P<", "(?P<a", "(?P<a>", "(?<", "(?<=", "(?'a'x)", "(?R)", "(?|a)",
    "\\", "a\\", "\\\\", "é\\", "\n\t\r\f\v\a\b", r"\e", r"\c", r"\k", r"\g", r"\-\]\}\#\ ",
]


def judge(p):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            re.compile(p)
        return True, None
    except (re.error, OverflowError, ValueError, RecursionError) as e:
        return False, f"{type(e).__name__}: {e}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--generated", type=int, default=1500)
    a = ap.parse_args()
    seen = set()
    for p in CORNERS + test_re_patterns() + generated(a.seed, a.generated):
        if p in seen:
            continue
        seen.add(p)
        ok, error = judge(p)
        sys.stdout.write(json.dumps({"pattern": p, "ok": ok, "error": error}) + "\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""scand.1 from generate-manual's page and docs/man/scand-contract.mdoc, lint-clean (scripts/make-man-page).

  man-page-fixes.py --dump-help SCAND      prints SCAND --experimental-dump-help with every character outside
                                           ASCII replaced by a placeholder (ZZU+2026ZZ): generate-manual drops
                                           them (its escaping keeps ASCII only: "databar, …" became "databar, ",
                                           "90°" "90"), so make-man-page hands it this instead of scand's own
  man-page-fixes.py PAGE.1 CONTRACT.mdoc   prints the page, fixed, on stdout:
- the generated EXIT STATUS (generic) is replaced by the contract's sections;
- the sections follow mdoc's conventional order (ENVIRONMENT, FILES, EXIT STATUS; a section mdoc does not
  know stays after the one it followed);
- placeholders and any other character outside ASCII become roff glyphs (`…` the classic `.\\|.\\|.`, `°` `\\(de`,
  `±` `\\(+-`, `×` `\\(mu`, `→` `\\(->`; others `\\[uXXXX]`): they render in every locale, where raw UTF-8 is
  read as Latin-1 by man-db in a C locale;
- `.Pp` right before `.It` is dropped, a blank line in filled text becomes `.Pp`, and a sentence that starts
  in the middle of a text line starts a new line (mandoc -T lint's "skipping paragraph macro", "blank line in
  fill mode" and "new sentence, new line").
"""
import json
import re
import subprocess
import sys

PLACEHOLDER = re.compile(r"ZZU\+([0-9A-F]{4,6})ZZ")
# mdoc(7)'s order of the standard sections.
ORDER = ["NAME", "LIBRARY", "SYNOPSIS", "DESCRIPTION", "CONTEXT", "IMPLEMENTATION NOTES", "RETURN VALUES",
         "ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES", "DIAGNOSTICS", "ERRORS", "SEE ALSO", "STANDARDS",
         "HISTORY", "AUTHORS", "CAVEATS", "BUGS", "SECURITY CONSIDERATIONS"]
# Abbreviations whose full stop does not end a sentence (`\&` after it tells mandoc so).
ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.")


def dump_help(scand):
    info = json.loads(subprocess.run([scand, "--experimental-dump-help"], check=True, capture_output=True).stdout)

    def ascii_only(value):
        if isinstance(value, str):
            return "".join(c if ord(c) < 128 else f"ZZU+{ord(c):04X}ZZ" for c in value)
        if isinstance(value, list):
            return [ascii_only(v) for v in value]
        if isinstance(value, dict):
            return {k: ascii_only(v) for k, v in value.items()}
        return value

    json.dump(ascii_only(info), sys.stdout)


def sections(lines):
    """[(name, lines)], the part before the first .Sh named ''."""
    out = [("", [])]
    for line in lines:
        if line.startswith(".Sh "):
            out.append((line[4:].strip().strip('"'), []))
        out[-1][1].append(line)
    return out


def assemble(page, contract):
    generated = [s for s in sections(page.split("\n")) if s[0] != "EXIT STATUS"]
    parts = generated + sections(contract.rstrip("\n").split("\n"))[1:]
    ranked, rank = [], 0
    for index, (name, body) in enumerate(parts):
        rank = ORDER.index(name) if name in ORDER else rank
        ranked.append((rank, index, body))
    return [line for _, _, body in sorted(ranked) for line in body]


def split_sentences(line):
    for abbreviation in ABBREVIATIONS:
        line = line.replace(abbreviation + " ", abbreviation + "\\& ")
    # A full stop, ? or ! (perhaps closing a quote or bracket), blanks, more text: that text starts a line.
    return re.split(r"(?<=[.!?])\s+(?=\S)|(?<=[.!?][)\"'])\s+(?=\S)", line)


def lint_fixes(lines):
    out, literal = [], False
    for i, line in enumerate(lines):
        if line.startswith(".Bd") and "-literal" in line or line.startswith(".nf"):
            literal = True
        elif line.startswith(".Ed") or line.startswith(".fi"):
            literal = False
        if literal:
            out.append(line)
        elif line.strip() == ".Pp" and i + 1 < len(lines) and lines[i + 1].startswith(".It"):
            continue
        elif line.strip() == "":
            if out and out[-1] != ".Pp" and not out[-1].startswith(".Sh"):
                out.append(".Pp")
        elif line.startswith(".") or line.startswith("'"):
            out.append(line)
        else:
            out.extend(split_sentences(line))
    return out


# roff's own glyphs for the characters the help texts use: groff and mandoc render them in every locale and on
# ASCII terminals (`...`, `+-`, `x`, `->`); `\[uXXXX]` (any other character) is dropped by groff in a C locale.
GLYPHS = {"\u2026": ".\\|.\\|.", "\u00B0": "\\(de", "\u00B1": "\\(+-", "\u00D7": "\\(mu", "\u2192": "\\(->",
          "\u2190": "\\(<-", "\u00F7": "\\(di", "\u2264": "\\(<=", "\u2265": "\\(>=", "\u2013": "\\(en", "\u2014": "\\(em"}


def escaped(line):
    text = PLACEHOLDER.sub(lambda m: chr(int(m[1], 16)), line)
    text = "".join(c if ord(c) < 128 else GLYPHS.get(c, f"\\[u{ord(c):04X}]") for c in text)
    # A text line that now starts with a dot (an ellipsis) must not be read as a macro.
    return "\\&" + text if text[:1] in (".", "'") and line[:1] not in (".", "'") else text


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--dump-help":
        return dump_help(sys.argv[2])
    page = open(sys.argv[1], encoding="utf-8").read()
    contract = open(sys.argv[2], encoding="utf-8").read()
    lines = [escaped(l) for l in lint_fixes(assemble(page, contract))]
    while lines and lines[-1] in ("", ".Pp"):
        lines.pop()
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Checks that docs/cli.md, docs/viewer.md, docs/scene-format.md and
docs/reliability.md say what the code does, so that they cannot drift
(ctest docs_match_code; usage: scripts/check_docs.py [REPO_ROOT]).

- Commands: main.c's command table is cli.md's, no more, no less.
- Options: what each command's parser takes (the string literals it
  compares an argument with: strcmp, strncmp, arg_value) is what its
  --help text lists, its usage lines in cli.md show (viewer.md's for the
  viewer's commands), and, for run, cli.md's option table: both ways, so
  an option added without its documentation fails, and so does one
  documented that no parser takes.
- Scene keys: every key the loader accepts (its sc_check_keys lists in
  src/scene/*.c) is named in scene-format.md, and every key in the first
  column of one of its `| key |` tables is one the loader accepts; the
  names of every enumerated value (methods, laws, shapes, ...) likewise.
- Files and functions: every repository path (src/, include/, apps/,
  fuzz/, tests/, scripts/, bench/, scenes/, docs/) and every cr_ name
  these documents cite in backquotes exists; reliability.md's table of
  fuzz targets is fuzz/CMakeLists.txt's list.

Prints one line per disagreement, naming the document, and exits 1 if
there is any, 0 otherwise. Plain Python 3, no packages."""
import glob
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
problems = []
# what was compared, printed at the end; a kind with none read is itself a
# problem (a pattern that stopped matching would otherwise pass vacuously)
counted = {"commands": 0, "options": 0, "scene keys": 0, "scene values": 0, "paths": 0, "cr_ names": 0,
           "fuzz targets": 0}


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def problem(where, text):
    problems.append(f"{where}: {text}")


def compare(where_code, code, where_doc, doc, what):
    """Both ways: each of code in doc, each of doc in code."""
    for name in sorted(code - doc):
        problem(where_doc, f"{what} {name} ({where_code}) is not documented")
    for name in sorted(doc - code):
        problem(where_doc, f"{what} {name} is documented but {where_code} has none")


def section(text, heading_re):
    """The text under the first heading matching heading_re, up to the next
    heading of the same or a higher level."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"(#+) ", line)
        if m and re.search(heading_re, line):
            level = len(m.group(1))
            out = []
            for rest in lines[i + 1:]:
                m2 = re.match(r"(#+) ", rest)
                if m2 and len(m2.group(1)) <= level:
                    break
                out.append(rest)
            return "\n".join(out)
    return None


def code_blocks(text):
    return re.findall(r"```[a-z]*\n(.*?)```", text, re.S)


OPTION = r"--?[a-z][a-z-]*"


def c_without_comments(src):
    return re.sub(r"/\*.*?\*/", "", src, flags=re.S)


# ---- commands and options -------------------------------------------------

def parsed_options(files, gate=None):
    """The options a parser compares its arguments with. gate: for
    cmd_run.c, True keeps the comparisons behind `allow_out &&` (run's),
    False the others (what validate takes too)."""
    opts = set()
    for rel in files:
        for line in c_without_comments(read(rel)).split("\n"):
            if not re.search(r"\bif \(", line):  # the parser's tests, not a value's use after
                continue
            if gate is not None and ("allow_out" in line) != gate:
                continue
            for m in re.finditer(r"\b(?:strcmp|strncmp)\(\s*s\s*,\s*\"(" + OPTION + r")=?\"", line):
                opts.add(m.group(1))
            for m in re.finditer(r"\barg_value\([^,]+,[^,]+,[^,]+,\s*\"(" + OPTION + r")\"\s*,\s*(?:\"(" + OPTION +
                                 r")\"|NULL)", line):
                opts.update(x for x in m.groups() if x)
    opts.discard("--")
    return opts


def help_text(rel, name):
    """The concatenated string literals of `static const char name[] = ...;`,
    with VIEW_ARGS_HELP expanded."""
    src = read(rel)
    m = re.search(r"static const char " + name + r"\[\]\s*=(.*?);\n", src, re.S)
    if not m:
        problem(rel, f"no help text {name}")
        return ""
    body = m.group(1)
    if "VIEW_ARGS_HELP" in body:
        vh = re.search(r"#define VIEW_ARGS_HELP(.*?)\n\n", read("apps/carom/view_args.h"), re.S)
        body = body.replace("VIEW_ARGS_HELP", vh.group(1) if vh else "")
    return "".join(re.findall(r"\"((?:[^\"\\]|\\.)*)\"", body))


def options_in(text):
    return set(re.findall(r"(?<![\w-])(" + OPTION + r")(?=[\s=,\]|`.)]|$)", text))


CAMERA = {"--camera", "--target", "--fov"}

# command -> (parser files, cmd_run.c gate, help file, help name, doc, heading)
COMMANDS = {
    "run": (["apps/carom/cmd_run.c"], None, "apps/carom/cmd_run.c", "run_help", "docs/cli.md", r"`carom run`"),
    "validate": (["apps/carom/cmd_run.c"], False, "apps/carom/cmd_run.c", "validate_help", "docs/cli.md",
                 r"`carom validate`"),
    "collide": (["apps/carom/cmd_collide.c"], None, "apps/carom/cmd_collide.c", "collide_help", "docs/cli-collide.md",
                r"`carom collide`"),
    "view": (["apps/carom/cmd_view.c", "apps/carom/view_args.c"], None, "apps/carom/cmd_view.c", "view_help",
             "docs/viewer.md", r"^## carom view$"),
    "render": (["apps/carom/cmd_render.c", "apps/carom/view_args.c"], None, "apps/carom/cmd_render.c",
               "render_help", "docs/viewer.md", r"^## carom render$"),
    "plot": (["apps/carom/cmd_plot.c"], None, "apps/carom/cmd_plot.c", "plot_help", "docs/viewer.md",
             r"^## carom plot$"),
    "export-web": (["apps/carom/cmd_export_web.c"], None, "apps/carom/cmd_export_web.c", "export_help",
                   "docs/viewer.md", r"^## carom export-web$"),
}
COMMON = {"-h", "--help"}  # arg_common's (cli_args.c), every command's


def usage_options(text, command):
    """Options on the `carom COMMAND ...` lines (and their continuations) of
    the code blocks in text; `[camera options]` stands for the three."""
    opts = set()
    for block in code_blocks(text):
        taking = False
        for line in block.split("\n"):
            if re.match(r"\s*carom ", line):
                taking = re.match(r"\s*carom " + re.escape(command) + r"\b", line) is not None
            elif not line.startswith(" "):
                taking = False
            if taking:
                opts |= options_in(line)
                if "camera options" in line:
                    opts |= CAMERA
    return opts


def check_commands():
    main = c_without_comments(read("apps/carom/main.c"))
    code = set(re.findall(r"\{\"([a-z-]+)\", cmd_\w+,", main))
    cli = read("docs/cli.md")
    table = re.search(r"^\| command \| does \|\n((?:\|.*\n)*)", cli, re.M)
    doc = set(re.findall(r"^\| `([a-z-]+)` \|", table.group(1) if table else "", re.M))
    compare("apps/carom/main.c", code, "docs/cli.md", doc, "command")
    counted["commands"] = len(code)
    for name in sorted(code - set(COMMANDS)):
        problem("scripts/check_docs.py", f"command {name} has no entry in COMMANDS")

    for cmd, (files, gate, help_file, help_name, doc_file, heading) in COMMANDS.items():
        parsed = parsed_options(files, True if gate is None and cmd == "run" else gate)
        if cmd == "validate":
            parsed = parsed_options(files, False)
        elif cmd == "run":
            parsed = parsed_options(files, True) | parsed_options(files, False)
        else:
            parsed |= COMMON
        where = f"{files[0]} ({cmd})"
        counted["options"] += len(parsed)
        # the help text lists every option, short forms too (-h and --help
        # aside: a command whose only option is help may not list it)
        compare(where, parsed - COMMON, f"{help_file}: {help_name}",
                options_in(help_text(help_file, help_name)) - COMMON, "option")
        # the usage lines show every long option: cli.md's for every command
        # (collide's are in its own page), and the command's own section
        # (viewer.md, cli-collide.md) where it has one
        longs = {o for o in parsed - COMMON if o.startswith("--")}
        if cmd != "collide":
            compare(where, longs, "docs/cli.md (usage)", usage_options(cli, cmd) - COMMON, "option")
        if doc_file != "docs/cli.md":
            sec = section(read(doc_file), heading)
            if sec is None:
                problem(doc_file, f"no section for carom {cmd}")
                continue
            compare(where, longs, f"{doc_file} (carom {cmd} usage)", usage_options(sec, cmd) - COMMON, "option")
    # run's option table: every option of run, each with its short form
    table = section(cli, r"^## `carom run`") or ""
    rows = set()
    for line in table.split("\n"):
        m = re.match(r"\| (`[^|]*`) \|", line)
        if m:
            rows |= set(re.findall(r"`(" + OPTION + r")", m.group(1)))
    compare("apps/carom/cmd_run.c (run)", parsed_options(["apps/carom/cmd_run.c"], True) | COMMON,
            "docs/cli.md (carom run's option table)", rows, "option")


# ---- scene keys -------------------------------------------------------------

def scene_lists():
    """Every `static const char *const NAME[] = {...}` of src/scene/*.c, by
    name, with SC_SURFACE_COMMON_KEYS expanded."""
    lists = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "src/scene/*.c"))):
        src = c_without_comments(open(path, encoding="utf-8").read())
        macros = {m.group(1): re.findall(r"\"([^\"]*)\"", m.group(2))
                  for m in re.finditer(r"#define (\w+)((?:.*\\\n)*.*)", src)}
        for m in re.finditer(r"static const char \*const (\w+)\[\]\s*=\s*\{(.*?)\};", src, re.S):
            body = m.group(2)
            names = []
            for tok in re.findall(r"\"[^\"]*\"|\w+", body):
                if tok.startswith("\""):
                    names.append(tok[1:-1])
                elif tok in macros:
                    names += macros[tok]
            lists[(os.path.basename(path), m.group(1))] = [n for n in names if n]
    return lists


def check_scene():
    doc = read("docs/scene-format.md")
    lists = scene_lists()
    keys = set()
    values = set()
    for (fname, name), names in lists.items():
        if name.endswith("_keys") or name in ("required", "polyhedron_only", "kinds"):
            keys.update(names)
        elif name not in ("needs",):
            values.update(names)
    if not keys:
        problem("src/scene", "no key lists found (scripts/check_docs.py reads `static const char *const X_keys[]`)")
    counted["scene keys"], counted["scene values"] = len(keys), len(values)
    quoted = set(re.findall(r"`([a-z_][a-z0-9_]*)`", doc))
    for k in sorted(keys - quoted):
        problem("docs/scene-format.md", f"scene key {k} (src/scene) is not documented")
    # the first column of every key table
    table_keys = set()
    in_table = False
    for line in doc.split("\n"):
        if re.match(r"\| key \|", line):
            in_table = True
            continue
        if not line.startswith("|"):
            in_table = False
            continue
        if in_table and not line.startswith("|---"):
            first = line.split("|")[1]
            table_keys |= set(re.findall(r"`([^`]+)`", first))
    for k in sorted(table_keys - keys):
        problem("docs/scene-format.md", f"key {k} is in a key table but src/scene accepts no such key")
    # enumerated values: each named in the document as "value", and each
    # "value" of a key table's type column is one the loader knows
    doc_values = set(re.findall(r"`\"([a-z_]+)\"`", doc))
    for v in sorted(values - doc_values):
        problem("docs/scene-format.md", f"value \"{v}\" (src/scene) is not documented")
    typed = set()
    for line in doc.split("\n"):
        cells = line.split("|")
        if line.startswith("| `") and len(cells) > 3 and "\\|" in line:
            typed |= set(re.findall(r"`\"([a-z_]+)\"`", line.split(" | ")[1]))
    for v in sorted(typed - values):
        problem("docs/scene-format.md", f"value \"{v}\" is documented but src/scene knows no such name")


# ---- files, functions, fuzz targets ----------------------------------------

PATH_RE = r"(?<![\w/.-])(?:src|include|apps|fuzz|tests|scripts|bench|scenes|docs|web|cmake)/[A-Za-z0-9_./<>*-]+"


# folders the documents name that hold nothing now (git keeps no empty one)
EMPTY_DIRS = {"fuzz/pending/"}


def check_references(rel):
    text = read(rel)
    spans = re.findall(r"`([^`\n]+)`", text)
    sources = None
    for span in spans:
        for p in re.findall(PATH_RE, span):
            p = p.rstrip(".")
            if "<" in p or re.search(r"[A-Z]{3,}", p) or p in EMPTY_DIRS:  # placeholders (fuzz_NAME.c)
                continue
            if "*" in p:
                if not glob.glob(os.path.join(ROOT, p)):
                    problem(rel, f"{p} matches no file")
            elif not os.path.exists(os.path.join(ROOT, p)):
                problem(rel, f"{p} does not exist")
            counted["paths"] += 1
        for name in re.findall(r"\b(cr_[a-z0-9_]+)\b", span):
            if sources is None:
                sources = ""
                for d in ("src", "include", "apps", "fuzz"):
                    for path in glob.glob(os.path.join(ROOT, d, "**", "*.[ch]"), recursive=True):
                        with open(path, encoding="utf-8") as f:
                            sources += f.read()
            if not re.search(r"\b" + re.escape(name) + r"\b", sources):
                problem(rel, f"{name} is not in src/, include/, apps/ or fuzz/")
            counted["cr_ names"] += 1


def check_fuzz_targets():
    code = set(re.findall(r"^carom_fuzz_target\((\w+)", read("fuzz/CMakeLists.txt"), re.M))
    targets = section(read("docs/reliability.md"), r"^### Targets") or ""
    doc = set(re.findall(r"^\| `(\w+)` \|", targets, re.M))
    compare("fuzz/CMakeLists.txt", code, "docs/reliability.md (Targets)", doc, "fuzz target")
    counted["fuzz targets"] = len(code)


check_commands()
check_scene()
for rel in ("docs/cli.md", "docs/viewer.md", "docs/scene-format.md", "docs/reliability.md"):
    check_references(rel)
check_fuzz_targets()

for kind, n in counted.items():
    if n == 0:
        problem("scripts/check_docs.py", f"read no {kind}: has the code's or the documents' layout changed?")
for p in problems:
    print(p)
if problems:
    print(f"check_docs: {len(problems)} disagreement(s) between the code and docs/", file=sys.stderr)
    sys.exit(1)
print("check_docs: docs/cli.md, viewer.md, scene-format.md and reliability.md match the code (" +
      ", ".join(f"{n} {kind}" for kind, n in counted.items()) + ")")

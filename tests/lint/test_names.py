#!/usr/bin/env python3
"""Each name a test file defines at its top level (a helper, a constant, a type) is defined by that
file alone among rgpu_tests' sources. The README's test command compiles them in batches (CMake's
unity build, several files in one translation unit), where two files' helpers of one name either
fail to compile or, worse, overload each other and one file silently calls the other's. Batches
change whenever a file is added; this check does not. Identical aliases (`using json =
nlohmann::json;`) are allowed: C++ accepts the same alias twice. Exits 1 naming each name and its
files."""
import collections
import os
import re
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
cmake = re.sub(r"#.*", "", open(os.path.join(root, "tests", "CMakeLists.txt")).read())
listing = re.search(r"add_executable\(rgpu_tests\s+([^)]*)\)", cmake)
if not listing:
    sys.exit("tests/CMakeLists.txt: no add_executable(rgpu_tests ...) to read the test files from")
files = [f for f in listing.group(1).split() if f.endswith(".cc")]

CONTROL = {"if", "for", "while", "switch", "return", "sizeof", "decltype", "TEST_CASE", "SCENARIO"}
# At column 0 (the project's format puts top-level definitions there, and nothing else).
FUNCTION = re.compile(r"(?:(?:static|inline|constexpr|\[\[\w+\]\])\s+)*[\w:]+(?:<[^()]*>)?[\s*&]+(\w+)\s*\(")
CONSTANT = re.compile(r"(?:(?:static|inline)\s+)?(?:(?:constexpr|const)\s+)+[\w:<>,*&\s]+?\s(\w+)\s*[=\[{]")
TYPE = re.compile(r"(?:struct|class|enum class|enum)\s+(\w+)\s*(?:final\s*)?[{:]")
ALIAS = re.compile(r"using\s+(\w+)\s*=\s*([^;]+);")

defined = collections.defaultdict(set)  # name -> {(file, what it is, for an alias)}
for f in files:
    for line in open(os.path.join(root, "tests", f)):
        if not line or line[0] in " \t}#/\n":
            continue
        alias = ALIAS.match(line)
        if alias:
            defined[alias.group(1)].add((f, "alias " + alias.group(2).strip()))
            continue
        for pattern in (TYPE, CONSTANT, FUNCTION):
            m = pattern.match(line)
            if m and m.group(1) not in CONTROL:
                defined[m.group(1)].add((f, ""))
                break

clashes = []
for name, where in sorted(defined.items()):
    by_file = {f for f, _ in where}
    kinds = {what for _, what in where}
    if len(by_file) > 1 and (len(kinds) > 1 or "" in kinds):
        clashes.append(f"  {name}: " + ", ".join(sorted(by_file)))
if clashes:
    print("tests/lint/test_names.py: these names are defined at the top level of more than one test file, "
          "which the unity build compiles together; rename all but one (or move a shared one to tests/support):")
    print("\n".join(clashes))
    sys.exit(1)
print(f"{len(files)} test files, {len(defined)} top-level names, each defined by one file")

#!/usr/bin/env python3
"""Every #include of the project's own headers follows the link graph: a file may include a header
of its own library or of one its library links (directly or not), never one above it. The
libraries, their sources and their links are read from the CMakeLists.txt files themselves, so a
new folder or edge is checked without editing this script. Prints the edge count; exits 1 on the
first kind of upward arrow, naming each file and header."""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
root = os.path.abspath(root)
# The product's folders as the build adds them (not tests, bench or packaging, which link anything).
top = re.sub(r"#.*", "", open(os.path.join(root, "CMakeLists.txt")).read())
folders = [f for f in re.findall(r"^\s*add_subdirectory\((\S+)\)", top, re.M)
           if f not in ("tests", "bench", "packaging") and os.path.isfile(os.path.join(root, f, "CMakeLists.txt"))]

library_of = {}  # "cdi-gen/spec.cc" -> "rgpu_cdi"
links = {}  # "rgpu_cdi" -> {"rgpu_cdi_model", ...}
for folder in folders:
    text = open(os.path.join(root, folder, "CMakeLists.txt")).read()
    text = re.sub(r"#.*", "", text)
    for m in re.finditer(r"add_(?:library|executable)\((\S+)\s+(?:STATIC\s+)?([^)]*)\)", text):
        name, sources = m.group(1), m.group(2).split()
        links.setdefault(name, set())
        for s in sources:
            if s.endswith(".cc"):
                library_of[f"{folder}/{s}"] = name
    for m in re.finditer(r"target_link_libraries\((\S+)([^)]*)\)", text):
        links.setdefault(m.group(1), set()).update(t for t in m.group(2).split() if t.startswith("rgpu_"))


def closure(lib):
    seen, todo = {lib}, [lib]
    while todo:
        for dep in links.get(todo.pop(), ()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def owners(path):
    """The libraries a file belongs to: its .cc's, else (a header alone) any of its folder's."""
    cc = re.sub(r"\.h$", ".cc", path)
    if cc in library_of:
        return {library_of[cc]}
    folder = path.split("/")[0]
    return {lib for f, lib in library_of.items() if f.startswith(folder + "/")}


edges, upward = 0, []
for folder in folders:
    for dirpath, _, files in os.walk(os.path.join(root, folder)):
        for name in files:
            if not name.endswith((".cc", ".h")):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            mine = owners(rel)
            reach = set().union(*(closure(lib) for lib in mine)) if mine else set()
            for inc in re.findall(r'^#include "([^"]+)"', open(os.path.join(root, rel)).read(), re.M):
                if inc.split("/")[0] not in folders:
                    continue
                edges += 1
                theirs = owners(inc)
                if not theirs & reach:
                    upward.append(f"{rel} includes {inc} ({'/'.join(sorted(theirs))}), "
                                  f"which {'/'.join(sorted(mine))} does not link")

print(f"include graph: {edges} includes of project headers in {len(library_of)} sources, "
      f"{len(links)} targets, {len(upward)} against the link graph")
for line in upward:
    print("  " + line)
sys.exit(1 if upward else 0)

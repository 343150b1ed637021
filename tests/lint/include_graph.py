#!/usr/bin/env python3
"""The link graph and the includes that ride on it. Each link between two folders' libraries
points down the order docs/architecture.md draws (its first code block: folders joined by arrows,
a comma between those of one rank, which link none of each other), so the graph has no cycle; and
every #include of the project's own headers follows the links: a file may include a header of its
own library or of one its library links (directly or not), never one above it. The libraries,
their sources and their links are read from the CMakeLists.txt files themselves, so a new folder or
edge is checked without editing this script. Prints the counts; exits 1 naming each link against
the order and each file and header against the links."""
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
folder_of = {}  # "rgpu_cdi" -> "cdi-gen"
links = {}  # "rgpu_cdi" -> {"rgpu_cdi_model", ...}
for folder in folders:
    text = open(os.path.join(root, folder, "CMakeLists.txt")).read()
    text = re.sub(r"#.*", "", text)
    for m in re.finditer(r"add_(?:library|executable)\((\S+)\s+(?:STATIC\s+)?([^)]*)\)", text):
        name, sources = m.group(1), m.group(2).split()
        links.setdefault(name, set())
        folder_of[name] = folder
        for s in sources:
            if s.endswith(".cc"):
                library_of[f"{folder}/{s}"] = name
    for m in re.finditer(r"target_link_libraries\((\S+)([^)]*)\)", text):
        links.setdefault(m.group(1), set()).update(t for t in m.group(2).split() if t.startswith("rgpu_"))


# The order drawn: "core ─► probe (model, engine) ─► wsl, cdi-gen ─► ..." over one or more lines.
# A folder's libraries take its place; an entry "folder/file" places the one library that builds
# folder/file.cc apart from the rest of its folder.
drawing = re.search(r"```\n(.*?)```", open(os.path.join(root, "docs", "architecture.md")).read(), re.S).group(1)
rank_of, lib_rank = {}, {}
against_order = []
for rank, group in enumerate(re.sub(r"\([^)]*\)", "", " ".join(drawing.split())).split("─►")):
    for entry in (g.strip() for g in group.split(",")):
        if "/" in entry:
            if f"{entry}.cc" in library_of:
                lib_rank[library_of[f"{entry}.cc"]] = rank
            else:
                against_order.append(f"{entry} in the order docs/architecture.md draws is no library's source")
        elif entry:
            rank_of[entry] = rank
for folder in folders:
    if folder not in rank_of:
        against_order.append(f"{folder}/ is not in the order docs/architecture.md draws: add it there")


def rank(lib):
    return lib_rank.get(lib, rank_of.get(folder_of[lib]))


for lib, deps in sorted(links.items()):
    for dep in sorted(deps):
        if dep not in folder_of or lib not in folder_of:
            continue
        a, b = folder_of[lib], folder_of[dep]
        if a == b and lib not in lib_rank and dep not in lib_rank:
            continue
        if rank(lib) is not None and rank(dep) is not None and rank(dep) >= rank(lib):
            against_order.append(f"{lib} ({a}/) links {dep} ({b}/), which docs/architecture.md draws "
                                 f"{'beside' if rank(lib) == rank(dep) else 'above'} it")


def cycle():
    """One cycle of links among the libraries (a folder's own included), or None."""
    state = {}

    def visit(lib, path):
        state[lib] = "open"
        for dep in sorted(links.get(lib, ())):
            if state.get(dep) == "open":
                return path[path.index(dep):] + [dep] if dep in path else [lib, dep]
            if dep not in state:
                found = visit(dep, path + [dep])
                if found:
                    return found
        state[lib] = "done"
        return None

    for lib in sorted(links):
        if lib not in state:
            found = visit(lib, [lib])
            if found:
                return found
    return None


loop = cycle()
if loop:
    against_order.append("the links make a cycle: " + " -> ".join(loop))


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

print(f"link graph: {sum(len(d) for d in links.values())} links among {len(links)} targets, "
      f"{len(against_order)} against the order docs/architecture.md draws")
for line in against_order:
    print("  " + line)
print(f"include graph: {edges} includes of project headers in {len(library_of)} sources, "
      f"{len(upward)} against the link graph")
for line in upward:
    print("  " + line)
sys.exit(1 if upward or against_order else 0)

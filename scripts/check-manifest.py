#!/usr/bin/env python3
"""Checks that Package.swift says what the code does.

For every target, the package targets it declares as dependencies must be
exactly the package targets its Swift sources import. Modules that are not
targets of this package (Foundation, Glibc, Testing, ...) are the
toolchain's and are ignored, and so are build-tool plugins (they depend
on the tools they run). A target without Swift sources (a
systemLibrary such as CSQLite) declares nothing and is only checked as an
import of others. The manifest is read through `swift package
dump-package`, so new targets need no change here.

    scripts/check-manifest.py            exit 0 when consistent, 1 otherwise
    scripts/check-manifest.py --self-test  proves the check fails on a
                                         made-up package with each kind of problem

It also holds the layering that the manifest alone would let slip
(`FORBIDDEN`): the core and the node reach the history only through the
storage port in ChatCore (`ChatStoring`), never SQLite.
"""
import json
import os
import re
import subprocess
import sys

# `import X`, `@testable import X`, `public import X`, `import struct X.Y`,
# also inside `#if canImport(...)` blocks: any import counts.
IMPORT = re.compile(
    r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?"
    r"([A-Za-z_][A-Za-z0-9_]*)",
    re.MULTILINE,
)


# Targets that must not depend on these, whatever they import.
FORBIDDEN = {
    # The domain knows no bytes: the wire format (ChatWire) sits above it.
    "ChatCore": {"ChatStore", "CSQLite", "ChatWire"},
    "ChatNode": {"ChatStore", "CSQLite"},
}


def dependency_names(target):
    names = set()
    for dep in target.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in dep:
                names.add(dep[kind][0])
    return names


def target_directory(root, target):
    if target.get("path"):
        return os.path.join(root, target["path"])
    folder = "Tests" if target["type"] == "test" else "Sources"
    return os.path.join(root, folder, target["name"])


def imported_modules(directory, excluded):
    modules, has_sources = set(), False
    for dirpath, dirnames, filenames in os.walk(directory):
        relative = os.path.relpath(dirpath, directory)
        dirnames[:] = [d for d in dirnames if os.path.normpath(os.path.join(relative, d)) not in excluded]
        for name in filenames:
            if not name.endswith(".swift"):
                continue
            has_sources = True
            with open(os.path.join(dirpath, name), encoding="utf-8") as source:
                modules.update(IMPORT.findall(source.read()))
    return modules, has_sources


def problems(root, manifest, forbidden=FORBIDDEN):
    targets = manifest["targets"]
    package_modules = {t["name"] for t in targets}
    found = []
    for target in targets:
        # A build-tool plugin's dependencies are the tools it runs, not imports.
        if target["type"] == "plugin":
            continue
        declared = dependency_names(target)
        excluded = {os.path.normpath(e) for e in target.get("exclude", [])}
        imported, has_sources = imported_modules(target_directory(root, target), excluded)
        if not has_sources:
            if declared:
                found.append(f"{target['name']}: has no Swift sources but declares {sorted(declared)}")
            continue
        imported &= package_modules
        imported.discard(target["name"])
        for name in sorted(imported - declared):
            found.append(f"{target['name']}: imports {name} but does not declare it in Package.swift")
        for name in sorted(declared - imported):
            found.append(f"{target['name']}: declares {name} but no source imports it")
        for name in sorted((declared | imported) & forbidden.get(target["name"], set())):
            found.append(f"{target['name']}: must not depend on {name} (layering, see FORBIDDEN)")
    return found


def self_test():
    """A made-up package: App imports Lib without declaring it and declares
    Util without importing it; Sys is a systemLibrary (no Swift sources);
    Util may not depend on Lib."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        for path, text in {
            "Sources/App/main.swift": "import Foundation\n@testable import Lib\nimport Sys\n",
            "Sources/Lib/Lib.swift": "#if canImport(Glibc)\nimport Glibc\n#endif\n",
            "Sources/Util/Util.swift": "public import struct Lib.Thing\n",
            "Sources/Sys/module.modulemap": "module Sys {}\n",
        }.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as file:
                file.write(text)
        manifest = {"targets": [
            {"name": "App", "type": "executable", "dependencies": [{"byName": ["Util", None]}, {"target": ["Sys", None]}]},
            {"name": "Lib", "type": "regular", "dependencies": []},
            {"name": "Util", "type": "regular", "dependencies": [{"byName": ["Lib", None]}]},
            {"name": "Sys", "type": "system", "dependencies": []},
        ]}
        found = problems(root, manifest, forbidden={"Util": {"Lib"}})
    expected = [
        "App: imports Lib but does not declare it in Package.swift",
        "App: declares Util but no source imports it",
        "Util: must not depend on Lib (layering, see FORBIDDEN)",
    ]
    if found != expected:
        print(f"check-manifest: self-test failed: {found}", file=sys.stderr)
        return 1
    return 0


def main(argv):
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) == 1:
        output = subprocess.run(["swift", "package", "dump-package"], cwd=root,
                                check=True, capture_output=True, text=True).stdout
        manifest = json.loads(output)
    else:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    found = problems(root, manifest)
    for line in found:
        print(f"check-manifest: {line}", file=sys.stderr)
    if not found:
        print(f"check-manifest: {len(manifest['targets'])} targets, dependencies match imports")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

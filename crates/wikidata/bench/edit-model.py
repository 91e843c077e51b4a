#!/usr/bin/env python3
"""A night's edits of a model of the live services, for measuring a refresh.

Reads a dump written by make-dump.py (gzip or plain) and writes it again with each
entity's `lastrevid` set to its line number, as `mock-wikidata` gives them when
loading the original, and a share of the entities (default 5%) edited: a new
revision above every other and a changed English description (their facts stay).

Usage: edit-model.py IN.json.gz OUT.json.gz [--share 0.05] [--seed 11]
"""
import argparse
import gzip
import json
import random


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dump")
    ap.add_argument("out")
    ap.add_argument("--share", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=11)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    opener = lambda path, mode: gzip.open(path, mode, compresslevel=1) if path.endswith(".gz") else open(path, mode)
    with opener(a.dump, "rt") as f:
        total = sum(1 for line in f if line.strip().startswith("{"))
    edited = 0
    with opener(a.dump, "rt") as f, opener(a.out, "wt") as out:
        out.write("[\n")
        n = 0
        for line in f:
            if not line.strip().startswith("{"):
                continue
            entity = json.loads(line.strip().rstrip(","))
            n += 1
            entity["lastrevid"] = n
            if rng.random() < a.share:
                edited += 1
                entity["lastrevid"] = total + edited
                descriptions = entity.setdefault("descriptions", {})
                description = descriptions.setdefault("en", {"language": "en", "value": ""})
                description["value"] += " (edited)"
            out.write(("" if n == 1 else ",\n") + json.dumps(entity, separators=(",", ":")))
        out.write("\n]\n")
    print("%d entities, %d edited" % (total, edited))


if __name__ == "__main__":
    main()

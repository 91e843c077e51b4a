"""A straightforward Python implementation of the novelty job, the baseline of
`cargo bench -p tempora-novelty --bench scale`: 4-grams as tuples in a set, the
test overlap, 5-point bins, and the diversify walk with a dict of counts.

Usage: novelty_baseline.py TRAIN.jsonl TEST.jsonl SEED THRESHOLD[,THRESHOLD...]
Prints one JSON object of phase times (seconds) and sizes.
"""

import json
import random
import re
import sys
import time

WORD = re.compile(r"\w+(?:['\u2019.,]\w+)*")
N = 4


def tokens(text):
    return WORD.findall(text.lower())


def ngrams(toks):
    return [tuple(toks[i : i + N]) for i in range(len(toks) - N + 1)]


def read(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line)["summary"] for line in f if line.strip()]


def main():
    train_path, test_path, seed, thresholds = sys.argv[1:5]
    thresholds = [int(t) for t in thresholds.split(",")]
    times = {}

    start = time.perf_counter()
    train = read(train_path)
    seen = set()
    for summary in train:
        seen.update(ngrams(tokens(summary)))
    times["index"] = time.perf_counter() - start

    start = time.perf_counter()
    overlaps = []
    for summary in read(test_path):
        grams = ngrams(tokens(summary))
        if grams:
            overlaps.append(100.0 * sum(g in seen for g in grams) / len(grams))
    bins = [0] * 20
    for o in overlaps:
        bins[min(int(o // 5), 19)] += 1
    times["score"] = time.perf_counter() - start

    start = time.perf_counter()
    samples = [ngrams(tokens(s)) for s in train]
    order = list(range(len(samples)))
    random.Random(int(seed)).shuffle(order)
    sizes = {}
    for threshold in thresholds:
        counts = {}
        kept = 0
        for i in order:
            local = {}
            for g in samples[i]:
                local[g] = local.get(g, 0) + 1
            if all(counts.get(g, 0) + c <= threshold for g, c in local.items()):
                for g, c in local.items():
                    counts[g] = counts.get(g, 0) + c
                kept += 1
        sizes[threshold] = kept
    times["diversify"] = time.perf_counter() - start

    print(json.dumps({"times": times, "distinct": len(seen), "sizes": sizes}))


if __name__ == "__main__":
    main()

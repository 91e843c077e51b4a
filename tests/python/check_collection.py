"""Checks that a collection of monthly releases loads in Python as users load it.

Usage: python tests/python/check_collection.py DIR RELEASE...

DIR is a collection written by `tempora card` (release folders `YYYY-MM/`,
`YYYY-MM.vN/` and the index card `README.md`); RELEASE... the releases it must
hold, newest first. Each is a config of the card: `datasets.load_dataset(DIR,
RELEASE)` loads it, with the splits and rows its `dataset_info` declares, and
every row of a split is a row of the release's own files; `load_dataset(DIR)`
(the default config) is the newest release. Exits 1 with one line per problem.
"""

import sys
from pathlib import Path

import datasets
import pyarrow.parquet as pq
from huggingface_hub import DatasetCard

problems = []


def problem(text):
    problems.append(text)
    print(f"FAIL {text}", file=sys.stderr)


def check_release(root, name, configs, info):
    if name not in configs:
        problem(f"{root}/README.md: no config `{name}`")
        return
    declared = {s["name"]: s["num_examples"] for s in info[name]["splits"]}
    loaded = datasets.load_dataset(str(root), name)
    if set(loaded) != set(declared):
        problem(f"{name}: loads splits {sorted(loaded)}, the card declares {sorted(declared)}")
    for split, rows in declared.items():
        if split in loaded and loaded[split].num_rows != rows:
            problem(f"{name}/{split}: {loaded[split].num_rows} rows, the card says {rows}")
    for entry in configs[name]["data_files"]:
        for path in entry["path"]:
            if not path.startswith(f"{name}/"):
                problem(f"{name}/{entry['split']}: {path} is not in the release's folder")
            elif entry["split"] in loaded:
                ids = set(pq.read_table(root / path, columns=["id"]).column("id").to_pylist())
                if not ids <= set(loaded[entry["split"]]["id"]):
                    problem(f"{name}/{entry['split']}: rows of {path} are missing")


def main():
    root = Path(sys.argv[1])
    releases = sys.argv[2:]
    card = DatasetCard.load(root / "README.md")
    data = card.data.to_dict()
    configs = {c["config_name"]: c for c in data.get("configs", [])}
    info = {c["config_name"]: c for c in data.get("dataset_info", [])}
    defaults = [c["config_name"] for c in data.get("configs", []) if c.get("default")]
    if defaults != releases[:1]:
        problem(f"default config {defaults}, expected the newest release {releases[:1]}")
    for name in releases:
        check_release(root, name, configs, info)
    newest = datasets.load_dataset(str(root))
    by_name = datasets.load_dataset(str(root), releases[0])
    for split in by_name:
        if split not in newest or newest[split]["id"] != by_name[split]["id"]:
            problem(f"load_dataset(DIR) is not the newest release {releases[0]} ({split})")
    if problems:
        sys.exit(1)
    print(f"ok: {len(releases)} releases load from {root}, the newest by default")


if __name__ == "__main__":
    main()

"""Checks that a Tempora output folder with empty sets loads in Python as users load it.

Usage: python tests/python/check_empty.py OUT_DIR SET...

SET... are the sets of OUT_DIR with no article. Each is published as empty, it
never disappears: `SET.jsonl` is an empty file, `SET.parquet` has no rows and the
schema of the other sets' Parquet files, and pyarrow and pandas read it. The card
lists neither as a split (`datasets` cannot load a split with no rows), says the
set is empty, and every config it declares loads with `datasets.load_dataset`,
with the splits it declares. Exits 1 with one line per problem.
"""

import sys
from pathlib import Path

import datasets
import pandas as pd
import pyarrow.parquet as pq
from huggingface_hub import DatasetCard

problems = []


def problem(text):
    problems.append(text)
    print(f"FAIL {text}", file=sys.stderr)


def article_schemas(out, empty):
    """The schemas of the sets' Parquet files with rows (those of `empty` left out)."""
    schemas = {}
    for path in sorted(out.glob("*.parquet")):
        if path.stem in empty:
            continue
        schema = pq.read_schema(path)
        if "summary" in schema.names and "document" in schema.names:
            schemas[path.name] = schema
    return schemas


def check_files(out, name, schemas):
    jsonl = out / f"{name}.jsonl"
    parquet = out / f"{name}.parquet"
    for path in (jsonl, parquet):
        if not path.exists():
            problem(f"{path}: missing: an empty set is published with its files")
            return
    if jsonl.stat().st_size != 0:
        problem(f"{jsonl}: {jsonl.stat().st_size} bytes, not empty")
    table = pq.read_table(parquet)
    frame = pd.read_parquet(parquet)
    if table.num_rows != 0 or len(frame) != 0:
        problem(f"{parquet}: pyarrow reads {table.num_rows} rows, pandas {len(frame)}")
    if list(frame.columns) != table.schema.names:
        problem(f"{parquet}: pandas reads columns {list(frame.columns)}")
    for other, schema in schemas.items():
        if schema != table.schema:
            problem(f"{parquet}: its schema differs from {other}'s")
    print(f"ok  {parquet.name}: 0 rows, {len(table.schema)} columns "
          f"(the schema of {', '.join(schemas) or 'no other set'}); {jsonl.name} empty")


def check_card(out, empty):
    readme = out / "README.md"
    card = DatasetCard.load(readme)
    configs = card.data.to_dict().get("configs", [])
    for config in configs:
        name = config["config_name"]
        splits = [entry["split"] for entry in config["data_files"]]
        for entry in config["data_files"]:
            paths = entry["path"] if isinstance(entry["path"], list) else [entry["path"]]
            for p in paths:
                if pq.read_metadata(out / p).num_rows == 0:
                    problem(f"{readme}: {name}/{entry['split']} names {p}, which has no rows")
        loaded = datasets.load_dataset(str(out)) if config.get("default") else \
            datasets.load_dataset(str(out), name)
        if list(loaded) != splits:
            problem(f"{readme}: config `{name}` loads splits {list(loaded)}, declares {splits}")
        print(f"ok  config {name}: " + ", ".join(f"{s} {d.num_rows}" for s, d in loaded.items()))
    for name in empty:
        if f"- `{name}`: no article in its window" not in card.text:
            problem(f"{readme}: does not say that `{name}` is empty")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    empty = sys.argv[2:]
    datasets.disable_progress_bars()
    schemas = article_schemas(out, empty)
    for name in empty:
        check_files(out, name, schemas)
    check_card(out, empty)
    if problems:
        print(f"{len(problems)} problems", file=sys.stderr)
        sys.exit(1)
    print(f"the empty sets {', '.join(empty)} are published empty and the folder loads")


if __name__ == "__main__":
    main()

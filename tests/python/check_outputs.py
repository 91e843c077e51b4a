"""Checks that a Tempora output directory loads in Python as users load it.

Usage: python tests/python/check_outputs.py OUT_DIR [PUBLISHED_DIR]

Every .jsonl and .parquet file under OUT_DIR is loaded with pyarrow, pandas and
Hugging Face `datasets`. The Parquet files of one record kind (told by their
columns) must share one schema, with no view types, and concatenate with each of
the three; every Parquet file must hold the values of the JSONL file beside it
(same name), row by row and field by field (dates compared as ISO strings, times
as instants). The sets' articles carry the relations of their facts, and a
filter on `relations` takes a part of them in `datasets` and pandas alike.
PUBLISHED_DIR, when given, is OUT_DIR as `tempora publish OUT_DIR --to
PUBLISHED_DIR` wrote it: it loads as a user loads it (`load_dataset(DIR)` gives
the manifest, its default config, one row per article of the sets; the `facts`
config the facts), its card's configs load as declared, and no file of it holds a
field of the publishers' text.
Exits 1 with one line per problem, naming file, row and field.
"""

import datetime
import json
import sys
from collections import defaultdict
from pathlib import Path

import datasets
import pandas as pd
import pyarrow as pa
import pyarrow.json
import pyarrow.parquet as pq
from huggingface_hub import DatasetCard

problems = []


def problem(text):
    problems.append(text)
    print(f"FAIL {text}", file=sys.stderr)


def json_rows(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def every_type(data_type):
    yield data_type
    if pa.types.is_list(data_type) or pa.types.is_large_list(data_type):
        yield from every_type(data_type.value_type)
    elif pa.types.is_struct(data_type):
        for i in range(data_type.num_fields):
            yield from every_type(data_type.field(i).type)


def check_types(path, schema):
    for field in schema:
        for data_type in every_type(field.type):
            if (
                pa.types.is_string_view(data_type)
                or pa.types.is_binary_view(data_type)
                or pa.types.is_list_view(data_type)
                or pa.types.is_large_list_view(data_type)
                or pa.types.is_null(data_type)
                or pa.types.is_dictionary(data_type)
            ):
                problem(f"{path}: column `{field.name}` has type {field.type}")
    for name in ("published",):
        if name in schema.names and not pa.types.is_date32(schema.field(name).type):
            problem(f"{path}: `{name}` is {schema.field(name).type}, not date32")
    if "published_at" in schema.names:
        got = schema.field("published_at").type
        if got != pa.timestamp("us", tz="UTC"):
            problem(f"{path}: `published_at` is {got}, not timestamp[us, tz=UTC]")


def same_value(parquet, jsonl):
    """Whether a value read from Parquet equals the JSONL value."""
    if isinstance(parquet, datetime.datetime):
        if not isinstance(jsonl, str):
            return False
        return parquet == datetime.datetime.fromisoformat(jsonl)
    if isinstance(parquet, datetime.date):
        return parquet.isoformat() == jsonl
    if isinstance(parquet, dict):
        return (
            isinstance(jsonl, dict)
            and parquet.keys() == jsonl.keys()
            and all(same_value(parquet[k], jsonl[k]) for k in parquet)
        )
    if isinstance(parquet, list):
        return (
            isinstance(jsonl, list)
            and len(parquet) == len(jsonl)
            and all(same_value(p, j) for p, j in zip(parquet, jsonl))
        )
    if isinstance(parquet, bool) or isinstance(jsonl, bool):
        return parquet is jsonl
    return parquet == jsonl


def compare_rows(what, parquet_rows, jsonl_rows):
    if len(parquet_rows) != len(jsonl_rows):
        problem(f"{what}: {len(parquet_rows)} Parquet rows, {len(jsonl_rows)} JSONL rows")
        return
    for i, (p, j) in enumerate(zip(parquet_rows, jsonl_rows), start=1):
        if p.keys() != j.keys():
            problem(f"{what}: row {i}: fields {sorted(p)} in Parquet, {sorted(j)} in JSONL")
            continue
        for field in p:
            if not same_value(p[field], j[field]):
                problem(
                    f"{what}: row {i}: `{field}` is {p[field]!r} in Parquet, "
                    f"{j[field]!r} in JSONL"
                )


def load_parquet(path):
    table = pq.read_table(path)
    check_types(path, table.schema)
    frame = pd.read_parquet(path)
    if list(frame.columns) != table.schema.names or len(frame) != table.num_rows:
        problem(f"{path}: pandas reads {frame.shape}, pyarrow {table.shape}")
    dataset = datasets.load_dataset("parquet", data_files=str(path), split="train")
    if dataset.num_rows != table.num_rows:
        problem(f"{path}: datasets reads {dataset.num_rows} rows, pyarrow {table.num_rows}")
    twin = path.with_suffix(".jsonl")
    if not twin.exists():
        problem(f"{path}: no JSONL file beside it to compare with ({twin.name})")
    else:
        expected = json_rows(twin)
        compare_rows(f"{path} (pyarrow)", table.to_pylist(), expected)
        compare_rows(f"{path} (datasets)", dataset.to_list(), expected)
    return table, frame, dataset


def load_jsonl(path):
    rows = json_rows(path)
    frame = pd.read_json(path, lines=True)
    if len(frame) != len(rows):
        problem(f"{path}: pandas reads {len(frame)} rows of {len(rows)}")
    table = pyarrow.json.read_json(path)
    if table.num_rows != len(rows):
        problem(f"{path}: pyarrow reads {table.num_rows} rows of {len(rows)}")
    if rows:
        dataset = datasets.load_dataset("json", data_files=str(path), split="train")
        if dataset.num_rows != len(rows):
            problem(f"{path}: datasets reads {dataset.num_rows} rows of {len(rows)}")


def concatenate(columns, loaded):
    """The Parquet files of one kind concatenate with each library."""
    names = ", ".join(str(path) for path, _ in loaded)
    tables = [table for _, (table, _, _) in loaded]
    schemas = {table.schema for table in tables}
    if len(schemas) > 1:
        problem(f"files of one kind with different schemas: {names}:\n"
                + "\n---\n".join(str(s) for s in schemas))
        return
    try:
        table = pa.concat_tables(tables)
        frame = pd.concat([frame for _, (_, frame, _) in loaded])
        dataset = datasets.concatenate_datasets([d for _, (_, _, d) in loaded])
        together = datasets.load_dataset(
            "parquet", data_files=[str(path) for path, _ in loaded], split="train"
        )
    except Exception as e:  # noqa: BLE001 - any library's refusal is the finding
        problem(f"cannot concatenate {names}: {type(e).__name__}: {e}")
        return
    rows = sum(t.num_rows for t in tables)
    counts = (table.num_rows, len(frame), dataset.num_rows, together.num_rows)
    if any(count != rows for count in counts):
        problem(f"concatenating {names}: {counts} rows, not {rows}")
    print(f"ok  {len(loaded)} Parquet files of columns {columns[:3]}...: {rows} rows")


def check_card(out, default="sets"):
    """The card's configs load with one call each, with the declared features and
    sizes, and those are the Parquet files' own; `default` is the default config."""
    readme = out / "README.md"
    if not readme.exists():
        problem(f"{readme}: no dataset card")
        return
    meta = DatasetCard.load(readme).data.to_dict()
    configs = {c["config_name"]: c for c in meta.get("configs", [])}
    infos = {i["config_name"]: i for i in meta.get("dataset_info", [])}
    if [n for n, c in configs.items() if c.get("default")] != [default]:
        problem(f"{readme}: `{default}` is not the one default config: {list(configs)}")
    for name, config in configs.items():
        info = infos.get(name)
        if info is None:
            problem(f"{readme}: config `{name}` has no dataset_info")
            continue
        declared = datasets.Features._from_yaml_list(info["features"])
        sizes = {s["name"]: s for s in info["splits"]}
        loaded = datasets.load_dataset(str(out)) if name == default else \
            datasets.load_dataset(str(out), name)
        splits = [f["split"] for f in config["data_files"]]
        if list(loaded) != splits:
            problem(f"{readme}: config `{name}` loads splits {list(loaded)}, declares {splits}")
        for entry in config["data_files"]:
            split = entry["split"]
            paths = entry["path"] if isinstance(entry["path"], list) else [entry["path"]]
            rows = sum(pq.read_metadata(out / p).num_rows for p in paths)
            size = sum((out / p).stat().st_size for p in paths)
            for p in paths:
                own = datasets.Features.from_arrow_schema(pq.read_schema(out / p))
                if own != declared:
                    problem(f"{out / p}: features {own} differ from the card's {declared}")
            if (sizes[split]["num_examples"], sizes[split]["num_bytes"]) != (rows, size):
                problem(f"{readme}: {name}/{split} declares {sizes[split]}, files hold "
                        f"{rows} rows in {size} bytes")
            if split in loaded and (loaded[split].num_rows != rows
                                    or loaded[split].features != declared):
                problem(f"{readme}: {name}/{split} loads {loaded[split].num_rows} rows with "
                        f"{loaded[split].features}")
        print(f"ok  load_dataset({str(out)!r}{'' if name == default else ', ' + repr(name)}): "
              + ", ".join(f"{s} {d.num_rows}" for s, d in loaded.items()))


def check_relations(out):
    """Each article of the sets carries the relations of its facts (`relations`:
    the property ids, each once, sorted), and a set's part of some relations is
    taken with one filter, as the card shows it."""
    sets = datasets.load_dataset(str(out))
    for split, dataset in sets.items():
        feature = dataset.features.get("relations")
        if feature is None:
            problem(f"sets/{split}: no `relations` column")
            continue
        for i, row in enumerate(dataset):
            own = sorted({m["fact"]["relation"] for m in row["facts"]})
            if row["relations"] != own:
                problem(f"sets/{split} row {i}: relations {row['relations']}, its facts' {own}")
        offices = dataset.filter(lambda a: "P39" in a["relations"] or "P1308" in a["relations"])
        frame = dataset.to_pandas()
        in_pandas = frame[frame["relations"].map(lambda r: "P39" in r or "P1308" in r)]
        if offices.num_rows != len(in_pandas):
            problem(f"sets/{split}: the office part is {offices.num_rows} rows in datasets, "
                    f"{len(in_pandas)} in pandas")
        print(f"ok  sets/{split}: relations of {dataset.num_rows} articles, "
              f"{offices.num_rows} of offices")


# The fields of a record that hold the publishers' text (an article's, a pair's,
# a page's): a published folder has none of them.
TEXT_FIELDS = ("title", "summary", "document", "article", "reference_summary", "body")


def check_published(out, published):
    """The folder `tempora publish` wrote: it loads as users load it, the manifest
    by default with one row per article of the sets, and holds no text field."""
    check_card(published, default="manifest")
    for path in sorted(published.rglob("*.jsonl")) + sorted(published.rglob("*.parquet")):
        if path.suffix == ".parquet":
            fields = set(pq.read_schema(path).names)
        else:
            fields = set().union(*(row.keys() for row in json_rows(path)))
        held = sorted(fields & set(TEXT_FIELDS))
        if held:
            problem(f"{path}: a published file with the publishers' text: {held}")
    manifest = datasets.load_dataset(str(published))
    if list(manifest) != ["train"]:
        problem(f"{published}: load_dataset gives {list(manifest)}, not the manifest's train")
        return
    rows = manifest["train"]
    sets = datasets.load_dataset(str(out))
    want = sorted((split, a["source"], a["id"]) for split, d in sets.items() for a in d)
    got = sorted((r["split"], r["source"], r["id"]) for r in rows)
    if got != want:
        problem(f"{published}: the manifest lists {got}, the sets hold {want}")
    held = sorted(set(rows.column_names) & set(TEXT_FIELDS))
    if held:
        problem(f"{published}: the manifest loads with text fields {held}")
    facts = datasets.load_dataset(str(published), "facts")["train"]
    print(f"ok  {published}: the manifest of {rows.num_rows} articles, "
          f"{facts.num_rows} facts, no text")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    datasets.disable_progress_bars()
    jsonl = sorted(out.rglob("*.jsonl"))
    parquet = sorted(out.rglob("*.parquet"))
    if not parquet or not jsonl:
        sys.exit(f"FAIL {out}: no outputs ({len(jsonl)} JSONL, {len(parquet)} Parquet files)")
    for path in jsonl:
        load_jsonl(path)
    kinds = defaultdict(list)
    for path in parquet:
        loaded = load_parquet(path)
        kinds[tuple(loaded[0].schema.names)].append((path, loaded))
    for columns, loaded in kinds.items():
        concatenate(columns, loaded)
    check_card(out)
    check_relations(out)
    if len(sys.argv) == 3:
        check_published(out, Path(sys.argv[2]))
    print(f"{len(jsonl)} JSONL and {len(parquet)} Parquet files in {out}, "
          f"{len(kinds)} record kinds in Parquet")
    if problems:
        print(f"{len(problems)} problems", file=sys.stderr)
        sys.exit(1)
    print("all outputs load with pyarrow, pandas and datasets; Parquet holds the JSONL values")


if __name__ == "__main__":
    main()

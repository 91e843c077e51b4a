"""Checks that lm-evaluation-harness ran every article of a Tempora folder, through
the tasks `tempora harness` wrote, and that `tempora score` scored them all.

Usage: python tests/python/check_harness.py OUT_DIR TASKS_DIR SAMPLES_DIR SYSTEM [SCORES_DIR]

OUT_DIR is the set folder, TASKS_DIR what `tempora harness OUT_DIR --out` wrote,
SAMPLES_DIR the harness's folder of one model (`<output_path>/<model>`) after a
run with `--log_samples`, and SYSTEM the name that model is scored as. Each set
of OUT_DIR (a JSONL file, or a Parquet file without one, whose records have
`summary` and `document`) must have a task that reads its file by an absolute
path, and a samples file of that task holding each of the set's ids exactly once,
with a response. With SCORES_DIR (`tempora score OUT_DIR --predictions
SAMPLES_DIR/samples_*.jsonl --out SCORES_DIR`), its `scores.jsonl` must hold each
id of every set exactly once for SYSTEM, in the right set. Exits 1 with one line
per problem.
"""

import json
import sys
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq

problems = []


def problem(text):
    problems.append(text)
    print(f"FAIL {text}", file=sys.stderr)


def records(path):
    """The records of a set file, as dicts."""
    if path.suffix == ".parquet":
        return pq.read_table(path).to_pylist()
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def sets_of(out):
    """{set name: ids} of the folder's sets, as `tempora score` finds them."""
    sets = {}
    for path in sorted(out.iterdir()):
        if not path.is_file() or path.suffix not in (".jsonl", ".parquet"):
            continue
        if path.stem == "rejected" or path.stem in sets:
            continue
        rows = records(path)
        if rows and "summary" in rows[0] and "document" in rows[0]:
            sets[path.stem] = [str(r["id"]) for r in rows]
    return sets


def task_files(tasks):
    """{set file: task name} of the task YAMLs (their `task:` and `test:` lines,
    JSON strings as `tempora harness` writes them)."""
    found = {}
    for path in sorted(tasks.glob("*.yaml")):
        fields = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            key, _, value = line.strip().partition(": ")
            if key in ("task", "test"):
                fields[key] = json.loads(value)
        if "task" in fields:
            if not Path(fields["test"]).is_absolute():
                problem(f"{path}: data_files names {fields['test']}, not an absolute path")
            found[Path(fields["test"]).resolve()] = fields["task"]
    return found


def check_samples(out, tasks, samples, sets):
    """Each set's task ran on every one of its ids, once each, with a response."""
    files = task_files(tasks)
    for name, ids in sets.items():
        copies = [out / f"{name}.parquet", out / f"{name}.jsonl"]
        task = next((files[p.resolve()] for p in copies if p.resolve() in files), None)
        if task is None:
            problem(f"set {name}: no task in {tasks} reads it")
            continue
        logged = sorted(samples.glob(f"samples_{task}_*.jsonl"))
        if len(logged) != 1:
            problem(f"task {task}: {len(logged)} samples files in {samples}, not 1")
            continue
        lines = [json.loads(l) for l in logged[0].read_text(encoding="utf-8").splitlines() if l.strip()]
        seen = Counter(str(line["doc"]["id"]) for line in lines)
        for line in lines:
            if not line.get("filtered_resps"):
                problem(f"{logged[0]}: doc {line['doc']['id']} has no response")
        before = len(problems)
        compare(f"{logged[0]}", Counter(ids), seen)
        if len(problems) == before:
            print(f"ok {name}: {len(ids)} articles in {logged[0].name}")


def check_scores(scores, system, sets):
    """Every id of every set scored once for `system`, in its set."""
    seen = Counter()
    with open(scores / "scores.jsonl", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["system"] == system:
                seen[(row["set"], row["id"])] += 1
    expected = Counter((name, i) for name, ids in sets.items() for i in ids)
    before = len(problems)
    compare(f"{scores}/scores.jsonl (system {system})", expected, seen)
    if len(problems) == before:
        print(f"ok {system}: all {sum(expected.values())} articles scored once")


def compare(where, expected, seen):
    """One problem per id missing, extra or counted other than once."""
    for key in sorted(set(expected) | set(seen), key=str):
        if seen[key] != 1 or key not in expected:
            problem(f"{where}: {key} appears {seen[key]} times (the set holds it {expected[key]} times)")


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    out, tasks, samples = (Path(a) for a in sys.argv[1:4])
    system = sys.argv[4]
    sets = sets_of(out)
    if not sets:
        problem(f"{out}: no set")
    check_samples(out, tasks, samples, sets)
    if len(sys.argv) == 6:
        check_scores(Path(sys.argv[5]), system, sets)
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()

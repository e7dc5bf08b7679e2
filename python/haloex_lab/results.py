"""Reading and writing haloex result files (JSON lines, one record each)."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

from .schema import as_record


class ResultsError(Exception):
    """A results file that cannot be used: missing, truncated or not haloex's."""


REQUIRED_KEYS = ("benchmark", "haloex_version", "ranks", "threads_per_rank")


def read_records(path: Path) -> list[dict]:
    """Every record of one JSON-lines file, each read through its schema
    (schema.Record: a field records.toml does not give raises where it is
    read); a line that does not parse or lacks the metadata keys is an error
    naming the file and the line. A name ending in .gz is read through gzip
    (large raw-sample archives)."""
    records = []
    try:
        path = Path(path)
        text = gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()
    except (EOFError, gzip.BadGzipFile) as e:
        raise ResultsError(f"{path}: not a complete gzip file ({e})") from e
    except OSError as e:
        raise ResultsError(f"cannot read results file {path}: {e.strerror}") from e
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise ResultsError(
                f"{path}:{number}: not a JSON record ({e.msg}); "
                "the file is truncated or not a haloex results file"
            ) from e
        missing = [k for k in REQUIRED_KEYS if not isinstance(rec, dict) or k not in rec]
        if missing:
            raise ResultsError(f"{path}:{number}: record lacks {', '.join(missing)}; not a haloex result")
        records.append(as_record(rec))
    return records


def load_results(where: Path) -> list[dict]:
    """The records of a results file, or of every *.jsonl file in a folder,
    each tagged with "_source", its file's name (experiments are told apart
    by the file they were run into)."""
    where = Path(where)
    if where.is_dir():
        files = sorted([*where.glob("*.jsonl"), *where.glob("*.jsonl.gz")])
        if not files:
            raise ResultsError(f"no *.jsonl or *.jsonl.gz results files in {where}")
    elif where.exists():
        files = [where]
    else:
        raise ResultsError(f"no such results file or folder: {where}")
    out = []
    for f in files:
        out.extend(as_record({**r, "_source": f.name}) for r in read_records(f))
    if not out:
        raise ResultsError(f"{where} holds no records")
    return out


def write_atomically(path: Path, text: str) -> None:
    """Write under a temporary name, sync, then rename: a crash leaves either
    the old file or the new one, never half of one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def append_records(path: Path, records: list[dict]) -> None:
    """Add records to a results file (rewritten atomically)."""
    path = Path(path)
    old = path.read_text() if path.exists() else ""
    if old and not old.endswith("\n"):
        old += "\n"
    write_atomically(path, old + "".join(json.dumps(r) + "\n" for r in records))

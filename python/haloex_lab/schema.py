"""The records haloex writes, described once in records.toml.

What reads or checks records goes through here: `validate` names every
problem of one record (unknown, missing or wrongly typed fields), `fields`
and `names` give a record type's field names (``names("halo").halo_bytes``
is ``"halo_bytes"``, a name the schema does not know raises), `view` reads
a record through them, `Record` is the dict the lab reads records as
(results.py: a name no record type has raises), and `markdown` makes
docs/records.md.

Standard library only: tests/cli/bench_records.sh runs this file with the
system Python to check every record the C++ benchmarks write::

    python3 python/haloex_lab/schema.py check [--every-type] FILE.jsonl...
    python3 python/haloex_lab/schema.py docs [--write | --check]
"""

from __future__ import annotations

import json
import sys
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

SCHEMA_PATH = Path(__file__).with_name("records.toml")
# docs/records.md of a source checkout (not part of an installed package).
DOCS_PATH = Path(__file__).resolve().parents[2] / "docs" / "records.md"
SCALARS = ("int", "float", "string", "bool")
TYPES = (*SCALARS, "object", "array", "samples")
DOCS_COMMAND = "python3 python/haloex_lab/schema.py docs --write"


@dataclass(frozen=True)
class Field:
    """One field of a record (or of an object inside one), as records.toml says."""

    name: str
    type: str
    meaning: str
    unit: str = ""
    required: bool = True
    when: str = ""
    nullable: bool = False
    items: str = ""  # arrays: each element's type ("float", "string?", ...)
    dims: int = 1  # arrays: 2 for an array of arrays
    of: str = ""  # objects, arrays of objects: the shape of [shapes] they hold
    values: str = ""  # maps (objects keyed by names): each value's type
    choices: tuple[str, ...] = ()
    group: str = ""  # the field set of [groups] it comes from ("" for the record's own)
    samples_of: str = ""  # a statistic of a samples field: that quantity's name


@dataclass(frozen=True)
class RecordType:
    """One kind of record: which benchmark writes it and the fields it declares."""

    name: str
    benchmark: str
    command: str
    writer: str
    about: str
    groups: tuple[str, ...]
    fields: tuple[Field, ...]  # its own, as declared (samples not expanded)
    marker: str = ""  # a field only this record type of its benchmark has
    group_when: tuple[tuple[str, str], ...] = ()  # groups only some of its records carry, and which


@dataclass(frozen=True)
class Schema:
    """records.toml, read."""

    samples: tuple[dict, ...]
    samples_about: str
    groups: dict[str, tuple[str, str, tuple[Field, ...]]]  # name -> (title, about, fields)
    shapes: dict[str, tuple[str, tuple[Field, ...]]]  # name -> (about, fields)
    records: dict[str, RecordType]


def _field(d: dict, group: str = "") -> Field:
    unknown = set(d) - set(Field.__dataclass_fields__)
    if unknown or d.get("type") not in TYPES:
        raise ValueError(f"records.toml: field {d.get('name')!r}: unknown keys {sorted(unknown)} or type")
    return Field(**{**d, "choices": tuple(d.get("choices", ())), "group": group})


def load(path: Path = SCHEMA_PATH) -> Schema:
    """Read a schema file (records.toml by default)."""
    with open(path, "rb") as f:
        d = tomllib.load(f)
    groups = {
        name: (g["title"], g["about"], tuple(_field(x, name) for x in g["fields"]))
        for name, g in d["groups"].items()
    }
    shapes = {name: (s["about"], tuple(_field(x) for x in s["fields"])) for name, s in d["shapes"].items()}
    records = {}
    for name, r in d["records"].items():
        missing = [g for g in r["groups"] if g not in groups]
        if missing:
            raise ValueError(f"records.toml: record {name} names unknown groups {missing}")
        own = tuple(_field(x) for x in r["fields"])
        records[name] = RecordType(
            name, r["benchmark"], r["command"], r["writer"], r["about"], tuple(r["groups"]), own,
            r.get("marker", ""), tuple(r.get("group_when", {}).items()),
        )  # fmt: skip
    return Schema(tuple(d["samples"]["fields"]), d["samples"]["about"], groups, shapes, records)


@cache
def schema() -> Schema:
    """The package's schema, read once."""
    return load()


def _expand(f: Field, sch: Schema) -> list[Field]:
    """A samples field as its 7 fields; any other field as itself."""
    if f.type != "samples":
        return [f]
    out = []
    for s in sch.samples:
        name = s["suffix"].format(q=f.name)
        meaning = f"{f.meaning}: {s['meaning']}" if name == f.name else f"{s['meaning']} of {f.name}"
        out.append(
            Field(name, s["type"], meaning, f.unit, f.required, f.when, items=s.get("items", ""),
                  group=f.group, samples_of=f.name)
        )  # fmt: skip
    return out


def record_types() -> list[str]:
    """Names of every record type, in the schema's order."""
    return list(schema().records)


def record_type(record: dict) -> str | None:
    """The record type of a record (by its benchmark, and a marker field), or None."""
    matches = [r for r in schema().records.values() if r.benchmark == record.get("benchmark")]
    for r in matches:
        if r.marker and r.marker in record:
            return r.name
    plain = [r.name for r in matches if not r.marker]
    return plain[0] if plain else None


@cache
def fields(kind: str) -> Mapping[str, Field]:
    """Every field a record of this type may carry, by name: its groups' (the
    fields haloex-lab adds included), its own, and each samples field's 7."""
    sch = schema()
    if kind not in sch.records:
        raise KeyError(f"no record type {kind!r} in records.toml (there are {', '.join(sch.records)})")
    rec = sch.records[kind]
    when = dict(rec.group_when)
    declared = [
        replace(f, required=False, when=when[g]) if g in when else f
        for g in (*rec.groups, "lab")
        for f in sch.groups[g][2]
    ] + list(rec.fields)
    out: dict[str, Field] = {}
    for f in declared:
        for x in _expand(f, sch):
            if x.name in out:
                raise ValueError(f"records.toml: {kind} declares {x.name!r} twice")
            out[x.name] = x
    return MappingProxyType(out)


class Names:
    """A record type's field names as attributes: ``names("halo").halo_bytes``
    is ``"halo_bytes"``; a name the schema does not know raises AttributeError.
    ``n["global"]`` for a name that is a Python keyword."""

    def __init__(self, kind: str):
        self._kind = kind
        self._fields = fields(kind)

    def _unknown(self, name: str) -> str:
        return f"{self._kind} records have no field {name!r} (see records.toml)"

    def __getattr__(self, name: str) -> str:
        if name.startswith("__") or name not in self._fields:
            raise AttributeError(self._unknown(name))
        return name

    def __getitem__(self, name: str) -> str:
        if name not in self._fields:
            raise KeyError(self._unknown(name))
        return name

    def __contains__(self, name: object) -> bool:
        return name in self._fields

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields)


@cache
def names(kind: str) -> Names:
    """The field names of a record type (see Names)."""
    return Names(kind)


class View:
    """A record read through its schema: ``v.halo_bytes`` or ``v["halo_bytes"]``
    is the value; a field the schema gives but the record lacks is None as an
    attribute (KeyError by index); a name the schema does not know raises."""

    def __init__(self, record: dict, kind: str | None = None):
        kind = kind or record_type(record)
        if kind is None:
            raise KeyError(f"no record type for benchmark {record.get('benchmark')!r} in records.toml")
        self.kind, self.raw, self._names = kind, record, names(kind)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") and name != "_source":
            raise AttributeError(name)
        return self.raw.get(getattr(self._names, name))

    def __getitem__(self, name: str) -> Any:
        return self.raw[self._names[name]]

    def get(self, name: str, default: Any = None) -> Any:
        """The field's value, or `default` when the record lacks it."""
        return self.raw.get(self._names[name], default)


def view(record: dict, kind: str | None = None) -> View:
    """Read `record` through its schema (its type from its benchmark unless given)."""
    return View(record, kind)


@cache
def every_field() -> frozenset[str]:
    """The names of every field of every record type."""
    return frozenset(name for kind in record_types() for name in fields(kind))


class Record(dict):
    """A record as the lab reads it: a dict whose reads go through the
    schema. ``r["halo_bytes"]``, ``r.get("halo_bytes")`` and ``"halo_bytes"
    in r`` work as on a dict for a field records.toml describes; a name it
    describes for no record type raises KeyError, so a misspelt or renamed
    field fails where it is read instead of reading as absent. (Any type's
    field may be asked of any record: the lab's generic code, the link
    probe say, asks every record for its own.) Writing is a dict's (the lab
    tags records)."""

    __slots__ = ("kind",)

    def __init__(self, record: dict, kind: str):
        super().__init__(record)
        self.kind = kind

    def _check(self, name: object) -> None:
        if name not in every_field():
            raise KeyError(f"no record type has a field {name!r} ({self.kind} record; see records.toml)")

    def __getitem__(self, name: str) -> Any:
        self._check(name)
        return super().__getitem__(name)

    def get(self, name: str, default: Any = None) -> Any:
        self._check(name)
        return super().get(name, default)

    def __contains__(self, name: object) -> bool:
        self._check(name)
        return super().__contains__(name)

    def __reduce__(self):
        return (Record, (dict(self), self.kind))


def as_record(record: dict) -> dict:
    """`record` read through its schema (Record) when records.toml knows its
    type; as it is otherwise (a peer's record, say)."""
    kind = record_type(record)
    return Record(record, kind) if kind else record


# --- validation -------------------------------------------------------------

_JSON_TYPE = {dict: "object", list: "array", str: "string", bool: "bool", int: "int", float: "float"}


def _json_type(value: Any) -> str:
    return "null" if value is None else _JSON_TYPE.get(type(value), type(value).__name__)


def _is(value: Any, type_: str) -> bool:
    """Whether a JSON value is of a schema type ("float" takes any number; "T?" also null)."""
    if type_.endswith("?"):
        return value is None or _is(value, type_[:-1])
    actual = _json_type(value)
    return actual == type_ or (type_ == "float" and actual == "int")


def _check_value(f: Field, value: Any, where: str) -> list[str]:
    """Problems of one field's value (`where`: its path in the record)."""
    if value is None and f.nullable:
        return []
    if not _is(value, f.type):
        return [f"field {where!r} is {_json_type(value)}, expected {f.type}"]
    if f.choices and value not in f.choices:
        return [f"field {where!r} is {value!r}, expected one of {', '.join(f.choices)}"]
    if f.type == "object" and f.of:
        return _check_object(schema().shapes[f.of][1], value, where + ".")
    if f.type == "object" and f.values:
        return [f"field '{where}.{k}' is {_json_type(v)}, expected {f.values}" for k, v in value.items()
                if not _is(v, f.values)]  # fmt: skip
    if f.type == "array":
        return _check_items(f, value, where)
    return []


def _check_items(f: Field, value: list, where: str) -> list[str]:
    """Problems of an array's elements."""
    problems = []
    for i, item in enumerate(value):
        at = f"{where}[{i}]"
        if f.of and not isinstance(item, dict):
            problems.append(f"field {at!r} is {_json_type(item)}, expected object")
        elif f.of:
            problems += _check_object(schema().shapes[f.of][1], item, at + ".")
        elif f.dims == 2 and not isinstance(item, list):
            problems.append(f"field {at!r} is {_json_type(item)}, expected array")
        elif f.dims == 2:
            bad = [(j, x) for j, x in enumerate(item) if not _is(x, f.items)]
            problems += [f"field '{at}[{j}]' is {_json_type(x)}, expected {f.items}" for j, x in bad]
        elif f.items and not _is(item, f.items):
            problems.append(f"field {at!r} is {_json_type(item)}, expected {f.items}")
    return problems


def _check_object(declared: Iterable[Field], obj: dict, prefix: str = "") -> list[str]:
    """Problems of an object against its fields: unknown, missing, wrongly typed."""
    by_name = {f.name: f for f in declared}
    problems = [f"unknown field '{prefix}{k}' (not in records.toml)" for k in obj if k not in by_name]
    for name, f in by_name.items():
        if name in obj:
            problems += _check_value(f, obj[name], prefix + name)
        elif f.required:
            problems.append(f"missing field '{prefix}{name}'")
    return problems


def validate(record: Any, kind: str | None = None) -> list[str]:
    """Every problem of one record against the schema, each a sentence
    starting with the record type; empty when the record matches."""
    if not isinstance(record, dict):
        return [f"a record is a JSON object, not {_json_type(record)}"]
    kind = kind or record_type(record)
    if kind is None:
        return [f"no record type for benchmark {record.get('benchmark')!r} in records.toml"]
    return [f"{kind}: {p}" for p in _check_object(fields(kind).values(), record)]


def check_files(paths: Iterable[Path], every_type: bool = False) -> tuple[list[str], dict[str, int]]:
    """Validate every record of JSON-lines files: the problems as
    "FILE:LINE: ...", and the records checked per type. `every_type`: a
    record type of the schema that none of the files holds is a problem too."""
    problems: list[str] = []
    seen: dict[str, int] = {}
    for path in paths:
        for n, line in enumerate(Path(path).read_text().splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                problems.append(f"{path}:{n}: not JSON: {e}")
                continue
            kind = record_type(record) if isinstance(record, dict) else None
            seen[kind or "?"] = seen.get(kind or "?", 0) + 1
            problems += [f"{path}:{n}: {p}" for p in validate(record, kind)]
    if every_type:
        problems += [f"no {k} record among the files checked" for k in record_types() if k not in seen]
    return problems, seen


# --- the docs table -----------------------------------------------------------


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _type_text(f: Field) -> str:
    """How the docs show a field's type: links to its shape or to samples."""
    null = " or null" if f.nullable else ""
    if f.choices:
        return "one of " + ", ".join(f"`{c}`" for c in f.choices) + null
    if f.type == "samples":
        return "[samples](#samples)"
    if f.type == "object" and f.of:
        return f"object: [{f.of}](#{f.of}){null}"
    if f.type == "object" and f.values:
        return f"object: name → {f.values.replace('?', ' or null')}"
    if f.type == "array" and f.of:
        return f"array of [{f.of}](#{f.of})"
    if f.type == "array":
        return "array of " + "arrays of " * (f.dims - 1) + (f.items or "any").replace("?", " or null")
    return f.type + null


def _table(declared: Iterable[Field]) -> list[str]:
    rows = ["| field | type | unit | present | meaning |", "|---|---|---|---|---|"]
    for f in declared:
        present = "always" if f.required else f.when or "sometimes"
        rows.append(f"| `{f.name}` | {_type_text(f)} | {f.unit} | {_cell(present)} | {_cell(f.meaning)} |")
    return rows


def _group_anchor(title: str) -> str:
    return title.lower().replace(" ", "-")


def _intro(sch: Schema) -> list[str]:
    rows = [
        "# Records",
        "",
        f"<!-- Made by `{DOCS_COMMAND}` from python/haloex_lab/records.toml:",
        "     edit that file, not this one (python/tests/test_schema.py checks that they agree). -->",
        "",
        "Every field of every record haloex writes: `haloex bench ... -o FILE` writes one JSON",
        "object per line, `haloex lb -o FILE` one summary. The fields come from",
        "`python/haloex_lab/records.toml`, which the benchmarks' records are checked against",
        "(`cli_bench_records`) and through which haloex-lab reads them",
        "(`haloex_lab.schema`). Back to [the `haloex` program](cli.md).",
        "",
        "Names carry their units (`time_s`, `halo_bytes`, `bandwidth_bytes_per_s`); the",
        "unit column says it again (`1`: a ratio). *present* says whether every record of",
        "its type has the field, or which ones do.",
        "",
        "| record type | `benchmark` | written by | records |",
        "|---|---|---|---|",
    ]
    for r in sch.records.values():
        rows.append(f"| [{r.name}](#{r.name}-records) | `{r.benchmark}` | `{r.command}` | {_cell(r.about)} |")
    return rows


def _samples_section(sch: Schema) -> list[str]:
    rows = ["", "## Samples", "", sch.samples_about, "", "| field | type | meaning |", "|---|---|---|"]
    for s in sch.samples:
        type_ = "array of float" if s["type"] == "array" else s["type"]
        rows.append(f"| `{s['suffix'].replace('{q}', 'q')}` | {type_} | {_cell(s['meaning'])} |")
    return rows


def markdown(sch: Schema | None = None) -> str:
    """docs/records.md: every record type's fields, made from the schema."""
    sch = sch or schema()
    rows = _intro(sch) + _samples_section(sch)
    for title, about, declared in sch.groups.values():
        rows += ["", f"## {title}", "", about, "", *_table(declared)]
    for r in sch.records.values():
        when = dict(r.group_when)
        titles = [(sch.groups[g][0], f" ({when[g]})" if g in when else "") for g in r.groups]
        also = ", ".join(f"[{t.lower()}](#{_group_anchor(t)}){w}" for t, w in titles)
        marker = f" Told apart from the other `{r.benchmark}` records by `{r.marker}`." if r.marker else ""
        rows += ["", f"## {r.name} records", "", f"`{r.command}` (`{r.writer}`). {r.about}{marker}"]
        rows += ["", f"Besides {also}:", "", *_table(r.fields)]
    rows += ["", "## Objects inside records"]
    for name, (about, declared) in sch.shapes.items():
        rows += ["", f"### {name}", "", about, "", *_table(declared)]
    return "\n".join(rows) + "\n"


# --- command line -----------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """`check [--every-type] FILE...`: validate records; `docs [--write|--check]`: the docs page."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["check"] and len(args) > 1:
        every = "--every-type" in args
        problems, seen = check_files([Path(a) for a in args[1:] if a != "--every-type"], every)
        for p in problems:
            print(p, file=sys.stderr)
        counts = ", ".join(f"{n} {k}" for k, n in sorted(seen.items()))
        print(f"{'FAILED' if problems else 'OK'}: {sum(seen.values())} records ({counts}) against the schema")
        return 1 if problems else 0
    if args[:1] == ["docs"] and len(args) <= 2:
        text = markdown()
        if "--write" in args:
            DOCS_PATH.write_text(text)
        elif "--check" in args:
            if not DOCS_PATH.exists() or DOCS_PATH.read_text() != text:
                print(f"{DOCS_PATH} is not what records.toml gives: run {DOCS_COMMAND}", file=sys.stderr)
                return 1
        else:
            sys.stdout.write(text)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())

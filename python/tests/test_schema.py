"""The record schema (haloex_lab/records.toml): validation names every
problem, field names read through it, and docs/records.md is made from it."""

import copy
import re
from pathlib import Path

import pytest

from haloex_lab import schema

ROOT = Path(__file__).resolve().parents[2]


def _value(f: schema.Field):
    """A value of the field's type (the first choice of a string with choices)."""
    if f.choices:
        return f.choices[0]
    if f.type == "object" and f.of:
        return {x.name: _value(x) for x in schema.schema().shapes[f.of][1] if x.required}
    if f.type == "array" and f.of:
        return [{x.name: _value(x) for x in schema.schema().shapes[f.of][1] if x.required}]
    if f.type == "array":
        one = {"int": 1, "float": 0.5, "string": "a", "bool": True}.get(f.items.rstrip("?"), 1)
        return [[one]] if f.dims == 2 else [one]
    return {"int": 3, "float": 1.5, "string": "x", "bool": False, "object": {}}[f.type]


def _record(kind: str) -> dict:
    """A record of this type with every field it must have."""
    r = {name: _value(f) for name, f in schema.fields(kind).items() if f.required}
    r["benchmark"] = schema.schema().records[kind].benchmark
    return r


@pytest.mark.parametrize("kind", schema.record_types())
def test_a_complete_record_is_valid(kind):
    r = _record(kind)
    assert schema.record_type(r) == kind
    assert schema.validate(r) == []


def test_validation_names_each_problem():
    r = _record("halo")
    assert schema.validate(r) == []
    bad = copy.deepcopy(r)
    bad["median_time_per_call_sx"] = 1.0  # a renamed field: unknown, and its old name missing
    del bad["median_time_per_call_s"]
    bad["halo_width"] = "1"
    bad["round_order"] = "random"
    bad["placement"]["cpus"] = [0]
    bad["message_list"]["direct"]["extra"] = 1
    assert sorted(schema.validate(bad)) == sorted(
        [
            "halo: unknown field 'median_time_per_call_sx' (not in records.toml)",
            "halo: missing field 'median_time_per_call_s'",
            "halo: field 'halo_width' is string, expected int",
            "halo: field 'round_order' is 'random', expected one of shuffled, fixed",
            "halo: field 'placement.cpus[0]' is int, expected string",
            "halo: unknown field 'message_list.direct.extra' (not in records.toml)",
        ]
    )


def test_types_nulls_and_optional_fields():
    r = _record("stencil")
    r["roofline_fraction"] = None  # nullable
    r["speedup_vs_serial"] = 2  # an int is a JSON number
    assert schema.validate(r) == []
    r["nx"] = 32.0
    assert schema.validate(r) == ["stencil: field 'nx' is float, expected int"]
    r = _record("halo")
    r["check"] = {"wrong_elements": 0, "wrong_elements_after_timing": 0}  # optional, but complete if there
    assert schema.validate(r) == ["halo: missing field 'check.elements_per_exchange'"]
    r = _record("io")
    r["hints_applied"] = {"striping_factor": None, "cb_nodes": "2"}
    assert schema.validate(r) == []
    r["hints_applied"]["x"] = 4
    assert schema.validate(r) == ["io: field 'hints_applied.x' is int, expected string?"]
    assert schema.validate([1]) == ["a record is a JSON object, not array"]
    assert schema.validate({"benchmark": "nope"}) == ["no record type for benchmark 'nope' in records.toml"]


def test_record_types_of_one_benchmark_are_told_apart():
    assert schema.record_type({"benchmark": "lb", "config": "stream"}) == "lb"
    assert schema.record_type({"benchmark": "lb", "state_checksum": "0x1"}) == "lb_run"
    assert schema.record_type({"benchmark": "clock"}) == "clock"


def test_samples_stand_for_their_statistics():
    f = schema.fields("pingpong")
    for name in ("latency_s", "median_latency_s", "median_ci95_latency_s", "min_latency_s", "max_latency_s"):
        assert f[name].samples_of == "latency_s" and f[name].unit == "s"
    assert f["latency_s"].type == "array" and f["median_latency_s"].type == "float"


def test_names_and_views_read_through_the_schema():
    n = schema.names("halo")
    assert n.median_time_per_call_s == "median_time_per_call_s"
    assert n.campaign_point == "campaign_point"  # haloex-lab's own fields too
    assert n["halo_bytes"] == "halo_bytes" and "halo_bytes" in n
    assert schema.names("io")["global"] == "global"
    with pytest.raises(AttributeError, match="halo records have no field 'median_time'"):
        _ = n.median_time
    v = schema.view(_record("halo"))
    assert v.kind == "halo" and v.halo_width == 3 and v.check is None and v.get("check", 0) == 0
    with pytest.raises(KeyError):
        _ = v["check"]
    with pytest.raises(AttributeError, match="no field 'halo_bytez'"):
        _ = v.halo_bytez
    with pytest.raises(KeyError, match="no field 'halo_bytez'"):
        _ = v["halo_bytez"]
    with pytest.raises(KeyError, match="no record type"):
        schema.fields("nope")


def test_the_lab_reads_records_through_the_schema(tmp_path):
    """results.read_records gives Records: a field no record type has is an
    error where it is read, where a plain dict's get would say None."""
    import json

    from haloex_lab.results import load_results, read_records

    halo = _record("halo")
    peer = {"benchmark": "peers", "haloex_version": "0", "ranks": 2, "threads_per_rank": 1, "peer": "ghex"}
    (tmp_path / "r.jsonl").write_text(json.dumps(halo) + "\n" + json.dumps(peer) + "\n")
    r, p = read_records(tmp_path / "r.jsonl")
    assert isinstance(r, schema.Record) and r.kind == "halo" and r == halo
    assert r["halo_width"] == 3 and r.get("check") is None and "check" not in r
    assert r.get("mlups") is None  # another type's field: generic code may ask any record
    for read in (lambda: r.get("halo_bytez"), lambda: r["halo_bytez"], lambda: "halo_bytez" in r):
        with pytest.raises(KeyError, match="no record type has a field 'halo_bytez'"):
            read()
    assert type(p) is dict and p.get("tool") is None  # a peer's record: not haloex's schema
    r["campaign"] = "c"  # the lab tags records
    assert json.loads(json.dumps(r)) == {**halo, "campaign": "c"} and copy.deepcopy(r) == r
    assert load_results(tmp_path / "r.jsonl")[0]["_source"] == "r.jsonl"


def test_every_benchmark_the_cpp_code_names_has_a_record_type():
    # run_metadata(comm, "NAME") starts every record; `haloex info` drops its name.
    written = set()
    for path in (ROOT / "src").rglob("*.cpp"):
        written |= set(re.findall(r'run_metadata\([^;]*?,\s*"(\w+)"\)', path.read_text()))
    assert written, "found no run_metadata calls in src/"
    known = {r.benchmark for r in schema.schema().records.values()}
    assert written - {"info"} <= known, f"record types missing from records.toml: {written - known}"


def test_docs_records_md_is_made_from_the_schema():
    docs = ROOT / "docs" / "records.md"
    assert docs.read_text() == schema.markdown(), f"run: {schema.DOCS_COMMAND}"


def test_check_files(tmp_path, capsys):
    good, bad = _record("stream"), _record("stream")
    bad["sweeps"] = 1
    f = tmp_path / "r.jsonl"
    f.write_text(f"{schema.json.dumps(good)}\n{schema.json.dumps(bad)}\n")
    assert schema.main(["check", str(f)]) == 1
    out = capsys.readouterr()
    assert f"{f}:2: stream: unknown field 'sweeps'" in out.err and "FAILED: 2 records (2 stream)" in out.out
    f.write_text(f"{schema.json.dumps(good)}\n")
    assert schema.main(["check", str(f)]) == 0
    assert schema.main(["check", "--every-type", str(f)]) == 1
    assert "no halo record among the files checked" in capsys.readouterr().err

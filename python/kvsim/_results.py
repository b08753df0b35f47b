"""Result objects: the CLI's JSON with attribute access, the CLI's table as repr, and pandas tables.

Attribute names are the JSON's keys, which carry their units (kv_cache_gib, ttft_ms, ...);
nested objects are Records with the same access. to_dict() returns a copy of the CLI's JSON.
"""
import copy
import csv


def _wrap(value):
    if isinstance(value, dict):
        return Record(value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


class Record:
    """A JSON object whose keys read as attributes: r.settings.max_model_len."""

    __slots__ = ("_data",)

    def __init__(self, data):
        object.__setattr__(self, "_data", data)

    def __getattr__(self, name):
        try:
            return _wrap(self._data[name])
        except KeyError:
            raise AttributeError("%s has no field %r (fields: %s)" % (type(self).__name__, name,
                                                                     ", ".join(sorted(self._data)))) from None

    def __getitem__(self, key):
        return _wrap(self._data[key])

    def __contains__(self, key):
        return key in self._data

    def __dir__(self):
        return sorted(set(self._data) | set(type(self).__dict__) | {"to_dict"})

    def __eq__(self, other):
        return isinstance(other, Record) and self._data == other._data

    def to_dict(self):
        """A copy of the JSON object."""
        return copy.deepcopy(self._data)

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, self._data)


def _pandas():
    try:
        import pandas
    except ImportError:
        raise ImportError("to_pandas() needs pandas (Debian: apt-get install python3-pandas)") from None
    return pandas


class Result(Record):
    """A command's answer. repr() is the table the CLI prints; to_dict() the JSON it writes."""

    __slots__ = ("_text",)

    def __init__(self, data, text):
        super().__init__(data)
        object.__setattr__(self, "_text", text)

    def __repr__(self):
        text = self._text() if callable(self._text) else self._text
        object.__setattr__(self, "_text", text)  # a table rendered on demand is kept
        return text.rstrip("\n")

    def _repr_pretty_(self, p, cycle):  # IPython / Jupyter show the table
        p.text(repr(self))


class CapacityResult(Result):
    """kvsim capacity: the memory budget and the concurrency it allows."""


class StepResult(Result):
    """kvsim step: one engine step's predicted time, per operator."""


class TrainResult(Result):
    """kvsim train: training memory per GPU."""


def _read_csv(path):
    rows = []
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            rows.append({k: _number(v) for k, v in row.items()})
    return rows


def _number(text):
    for kind in (int, float):
        try:
            return kind(text)
        except (TypeError, ValueError):
            pass
    return text


class ReplayResult(Result):
    """kvsim replay: memory, concurrency, preemptions, waste and latency of a replayed trace.

    request_rows / timeseries_rows: the per-request rows and the time series (lists of dicts, the
    columns of the CLI's --requests / --timeseries CSV) when the replay was asked for them
    (requests=True, timeseries=True); None otherwise.
    """

    __slots__ = ("request_rows", "timeseries_rows")

    def __init__(self, data, text, requests_csv=None, timeseries_csv=None):
        super().__init__(data, text)
        object.__setattr__(self, "request_rows", _read_csv(requests_csv) if requests_csv else None)
        object.__setattr__(self, "timeseries_rows", _read_csv(timeseries_csv) if timeseries_csv else None)

    def to_pandas(self, table="requests"):
        """The per-request rows ("requests") or the time series ("timeseries") as a DataFrame."""
        if table not in ("requests", "timeseries"):
            raise ValueError("table: 'requests' or 'timeseries', not %r" % (table,))
        rows = getattr(self, table + "_rows")
        if rows is None:
            raise ValueError("the replay kept no %s: pass %s=True to kvsim.replay" % (table, table))
        return _pandas().DataFrame(rows)


class SweepResult(Result):
    """kvsim sweep: a grid of replays, or the search for the largest setting meeting the SLOs."""

    def to_pandas(self):
        """One row per sweep point (flattened JSON, dotted column names)."""
        return _pandas().json_normalize(self._data.get("points", []))


class PlanResult(Result):
    """kvsim plan: the cheapest deployment meeting the SLOs (result.winner, result.front,
    result.configurations), with the `vllm serve` line of each configuration."""

    def to_pandas(self):
        """One row per configuration of the space that starts (flattened JSON, dotted column names)."""
        return _pandas().json_normalize(self._data.get("configurations", []))


class ListResult(Result):
    """A result whose JSON is a list: it iterates, indexes and has a length like one."""

    def __getattr__(self, name):
        raise AttributeError("%s has no field %r: it is a list (index it, or iterate)" % (type(self).__name__, name))

    def __iter__(self):
        return iter(_wrap(self._data))

    def __len__(self):
        return len(self._data)

    def __getitem__(self, index):
        return _wrap(self._data[index])

    def to_pandas(self):
        """One row per element (nested objects flattened to dotted column names)."""
        return _pandas().json_normalize(self._data)


class CompareResult(ListResult):
    """kvsim compare: one summary per deployment, in the order given (a, b, ...)."""


class CatalogResult(ListResult):
    """kvsim models / kvsim gpus: the preset table; to_dict() is its rows, keyed by the table's header."""

    def ids(self):
        """The first column: the ids --model / --gpu accept."""
        return [next(iter(row.values())) for row in self._data]

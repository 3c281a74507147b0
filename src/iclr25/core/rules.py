"""A claim's pass rule as data: the measured quantity, the comparison, the bounds for REPRODUCED and
PARTIAL, how seeds and conditions combine, and the world with no effect the rule must reject.

One object decides a verdict from a finding's measurements, writes the criterion's prose, gives the hash
a record stores, and simulates its null: the code that decides real measurements is the code the null
check runs (vectorised: `codes` takes arrays of shape (draws, units) for every key).

>>> r = Rule(Test(Diff("ours", "base", label="accuracy"), ">", 0))
>>> r.decide({"ours": [0.90, 0.92, 0.91], "base": [0.80, 0.81, 0.79]})
<Verdict.REPRODUCED: 'reproduced'>
>>> print(r.prose())
REPRODUCED if accuracy (paired mean over seeds) > 0 (whole 95% interval); otherwise NOT REPRODUCED.
>>> null_pass_rate(r, {"ours": [0.9, 0.92, 0.91], "base": [0.8, 0.81, 0.79]}).rate  # one-sided 2.5%
0.0245
"""

from __future__ import annotations

import hashlib
import inspect
import itertools
import json
import math
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from iclr25.core.claims import Verdict
from iclr25.core.stats import normal_quantile, t_quantile

NOT, PART, REPR = 0, 1, 2  # verdict codes, ordered: all_of is a min/max over them
_CODE = {NOT: Verdict.NOT_REPRODUCED, PART: Verdict.PARTIAL, REPR: Verdict.REPRODUCED}
_OPS = {">=": "≥", ">": ">", "<=": "≤", "<": "<"}
Data = dict[str, np.ndarray]  # key -> (draws, units)
LEVEL = 0.95
NULL_DRAWS = 2000
MAX_GRID = 256
NULL_BOUND = 0.10  # a rule that passes more often than this with no effect is not a test


def _g(x: float) -> str:
    return f"{x:g}".replace("-", "−")


def _t_half(sd: np.ndarray, n: int) -> np.ndarray:
    if n < 2:
        return np.full_like(sd, np.inf)
    return t_quantile(0.5 + LEVEL / 2, n - 1) * sd / math.sqrt(n)


def _sub(text: str, c: str) -> str:
    return text.replace("{c}", c)


class _Spec:
    """Dataclass nodes: `spec()` is the canonical, JSON-able form that is hashed; `fmt(c)` fills "{c}"."""

    def spec(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": type(self).__name__}
        for f in fields(self):  # type: ignore[arg-type]
            v = getattr(self, f.name)
            out[f.name] = _spec_value(v)
        return out

    def fmt(self, c: str) -> Any:
        changes = {}
        for f in fields(self):  # type: ignore[arg-type]
            v = getattr(self, f.name)
            if isinstance(v, str):
                changes[f.name] = _sub(v, c)
            elif isinstance(v, _Spec):
                changes[f.name] = v.fmt(c)
            elif isinstance(v, tuple):
                changes[f.name] = tuple(x.fmt(c) if isinstance(x, _Spec) else
                                        tuple(_sub(y, c) for y in x) if isinstance(x, tuple) else
                                        _sub(x, c) if isinstance(x, str) else x for x in v)
        return replace(self, **changes)  # type: ignore[type-var]


def _spec_value(v: Any) -> Any:
    if isinstance(v, _Spec):
        return v.spec()
    if isinstance(v, tuple | list):
        return [_spec_value(x) for x in v]
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return v


# ---- estimates: a number (and its 95% interval) computed from measured keys ----------------------

class _Sampled(_Spec):
    """A mean over units of `_x(d)` (draws, units), with its Student-t interval; exponentiated when `log`."""

    log: bool

    def _x(self, d: Data) -> np.ndarray:
        raise NotImplementedError

    def point(self, d: Data) -> np.ndarray:
        m = self._x(d).mean(axis=1)
        return np.exp(m) if self.log else m

    def interval(self, d: Data) -> tuple[np.ndarray, np.ndarray]:
        x = self._x(d)
        n = x.shape[1]
        m = x.mean(axis=1)
        half = _t_half(x.std(axis=1, ddof=1) if n > 1 else np.zeros(len(x)), n)
        lo, hi = m - half, m + half
        return (np.exp(lo), np.exp(hi)) if self.log else (lo, hi)


@dataclass(frozen=True)
class Mean(_Sampled):
    """The mean of `key`'s per-unit values (seeds, prompts, repeats) with its Student-t interval; `log`:
    the geometric mean, the interval taken on the log scale (timings, ratios). One unit: no interval."""

    key: str
    label: str = ""
    over: str = "seeds"
    log: bool = False

    def reads(self) -> tuple[str, ...]:
        return (self.key,)

    def _x(self, d: Data) -> np.ndarray:
        x = d[self.key]
        return np.log(x) if self.log else x

    def words(self) -> str:
        what = "geometric mean" if self.log else "mean"
        return f"{self.label or self.key} ({what} over {self.over})"


@dataclass(frozen=True)
class Diff(_Sampled):
    """The paired difference `a − b` over the same units (seeds, splits, items) with its t-interval;
    `log`: the geometric mean of the ratios a/b."""

    a: str
    b: str
    label: str = ""
    over: str = "seeds"
    log: bool = False

    def reads(self) -> tuple[str, ...]:
        return (self.a, self.b)

    def _x(self, d: Data) -> np.ndarray:
        a, b = d[self.a], d[self.b]
        if a.shape != b.shape:
            raise ValueError(f"{self.a!r} and {self.b!r} are paired: they need as many values each, "
                             f"got {a.shape[1]} and {b.shape[1]}")
        return np.log(a) - np.log(b) if self.log else a - b

    def words(self) -> str:
        if self.log:
            what = self.label or f"{self.a} / {self.b}"
            return f"{what} (geometric mean of paired ratios over {self.over})"
        return f"{self.label or self.a + ' − ' + self.b} (paired mean over {self.over})"


@dataclass(frozen=True)
class Share(_Spec):
    """The share of true values among `key`'s 0/1 outcomes (items, data sets, cells), with its Wilson
    interval. `chance`: the rate with no effect (random calls), which the null then uses."""

    key: str
    label: str = ""
    over: str = "items"
    chance: float | None = None

    def reads(self) -> tuple[str, ...]:
        return (self.key,)

    def point(self, d: Data) -> np.ndarray:
        x = d[self.key]
        return x.mean(axis=1) if x.shape[1] else np.full(len(x), np.nan)

    def interval(self, d: Data) -> tuple[np.ndarray, np.ndarray]:
        x = d[self.key]
        n = x.shape[1]
        if n == 0:
            nan = np.full(len(x), np.nan)
            return nan, nan
        z = normal_quantile(0.5 + LEVEL / 2)
        p = x.mean(axis=1)
        den = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / den
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
        lo = np.where(p == 0, 0.0, np.maximum(0.0, centre - half))  # Wilson's ends are exactly 0 and 1
        hi = np.where(p == 1, 1.0, np.minimum(1.0, centre + half))
        return lo, hi

    def words(self) -> str:
        ch = f"; chance {_g(self.chance)}" if self.chance is not None else ""
        return f"share of {self.label or self.key} (over {self.over}{ch})"


@dataclass(frozen=True)
class Value(_Spec):
    """One number. Exact (a count, a parameter ratio, a maximum error: computed, not sampled) unless `se`
    names the key of its standard error, which then gives the interval ±1.96 se and the null's noise."""

    key: str
    label: str = ""
    se: str = ""

    def reads(self) -> tuple[str, ...]:
        return (self.key, self.se) if self.se else (self.key,)

    def point(self, d: Data) -> np.ndarray:
        return d[self.key][:, 0]

    def interval(self, d: Data) -> tuple[np.ndarray, np.ndarray]:
        v = self.point(d)
        if not self.se:
            return v, v
        half = normal_quantile(0.5 + LEVEL / 2) * d[self.se][:, 0]
        return v - half, v + half

    def words(self) -> str:
        return self.label or self.key


Estimate = Mean | Diff | Share | Value


# ---- conditions: booleans over draws --------------------------------------------------------------

@dataclass(frozen=True)
class Test(_Spec):
    """`est op bound`, judged by the whole 95% interval (`by="interval"`, the default: the lower end for
    ≥ and >, the upper end for ≤ and <) or by the point estimate (`by="point"`). NaN never passes."""

    est: Estimate
    op: str
    bound: float
    by: str = "interval"
    __test__ = False  # not a pytest test class

    def __post_init__(self) -> None:
        if self.op not in _OPS:
            raise ValueError(f"unknown comparison {self.op!r}; use one of {', '.join(_OPS)}")
        if self.by not in ("interval", "point"):
            raise ValueError(f"by must be 'interval' or 'point', got {self.by!r}")

    def holds(self, d: Data) -> np.ndarray:
        if self.by == "point":
            x = self.est.point(d)
        else:
            lo, hi = self.est.interval(d)
            x = lo if self.op in (">=", ">") else hi
        with np.errstate(invalid="ignore"):
            ok = {">=": x >= self.bound, ">": x > self.bound, "<=": x <= self.bound,
                  "<": x < self.bound}[self.op]
        return ok & ~np.isnan(x)

    def tests(self) -> list[Test]:
        return [self]

    def words(self) -> str:
        how = ""
        if self.by == "interval" and not _exact(self.est):
            se = ", ± 1.96 SE" if isinstance(self.est, Value) else ""
            how = f" (whole 95% interval{se})"
        return f"{self.est.words()} {_OPS[self.op]} {_g(self.bound)}{how}"


def _exact(est: Estimate) -> bool:
    return isinstance(est, Value) and not est.se


@dataclass(frozen=True)
class All(_Spec):
    parts: tuple[Any, ...]

    def __init__(self, *parts: Any) -> None:
        object.__setattr__(self, "parts", tuple(parts))

    def holds(self, d: Data) -> np.ndarray:
        return np.logical_and.reduce([p.holds(d) for p in self.parts])

    def tests(self) -> list[Test]:
        return [t for p in self.parts for t in p.tests()]

    def words(self) -> str:
        return " and ".join(_paren(p) for p in self.parts)

    def fmt(self, c: str) -> All:
        return All(*(p.fmt(c) for p in self.parts))


@dataclass(frozen=True)
class AnyOf(_Spec):
    parts: tuple[Any, ...]

    def __init__(self, *parts: Any) -> None:
        object.__setattr__(self, "parts", tuple(parts))

    def holds(self, d: Data) -> np.ndarray:
        return np.logical_or.reduce([p.holds(d) for p in self.parts])

    def tests(self) -> list[Test]:
        return [t for p in self.parts for t in p.tests()]

    def words(self) -> str:
        return " or ".join(_paren(p) for p in self.parts)

    def fmt(self, c: str) -> AnyOf:
        return AnyOf(*(p.fmt(c) for p in self.parts))


@dataclass(frozen=True)
class KOf(_Spec):
    """At least `k` of the conditions hold (a majority of seeds, 9 of 10 data sets)."""

    k: int
    parts: tuple[Any, ...]

    def __init__(self, k: int, *parts: Any) -> None:
        object.__setattr__(self, "k", int(k))
        object.__setattr__(self, "parts", tuple(parts))

    def holds(self, d: Data) -> np.ndarray:
        return np.sum([p.holds(d) for p in self.parts], axis=0) >= self.k

    def tests(self) -> list[Test]:
        return [t for p in self.parts for t in p.tests()]

    def words(self) -> str:
        return f"at least {self.k} of {len(self.parts)}: " + "; ".join(p.words() for p in self.parts)

    def fmt(self, c: str) -> KOf:
        return KOf(self.k, *(p.fmt(c) for p in self.parts))


@dataclass(frozen=True)
class Not(_Spec):
    """The condition fails (a PARTIAL "not a loss": the interval does not lie wholly on the wrong side)."""

    cond: Any

    def holds(self, d: Data) -> np.ndarray:
        return ~self.cond.holds(d)

    def tests(self) -> list[Test]:
        return self.cond.tests()

    def words(self) -> str:
        return f"not ({self.cond.words()})"


@dataclass(frozen=True)
class Named(_Spec):
    """A condition with a short name, so a rule that uses it twice (REPRODUCED and PARTIAL) says it once."""

    name: str
    cond: Any

    def holds(self, d: Data) -> np.ndarray:
        return self.cond.holds(d)

    def tests(self) -> list[Test]:
        return self.cond.tests()

    def words(self) -> str:
        return self.name

    def named(self) -> list[Named]:
        return [self, *_named(self.cond)]


def _named(cond: Any) -> list[Named]:
    if isinstance(cond, Named):
        return cond.named()
    if isinstance(cond, Not):
        return _named(cond.cond)
    return [n for p in getattr(cond, "parts", ()) for n in _named(p)]


def _paren(p: Any) -> str:
    return f"({p.words()})" if isinstance(p, All | AnyOf | KOf) else p.words()


Condition = Test | All | AnyOf | KOf | Named | Not


# ---- rules: verdicts over draws -------------------------------------------------------------------

class _Decides(_Spec):
    def codes(self, d: Data) -> np.ndarray:
        raise NotImplementedError

    def decide(self, measured: Mapping[str, Any]) -> Verdict:
        """The verdict on a finding's measurements."""
        return _CODE[int(self.codes(as_data(self, measured))[0])]  # type: ignore[arg-type]


@dataclass(frozen=True)
class Rule(_Decides):
    """REPRODUCED when `reproduced` holds, else PARTIAL when `partial` holds, else NOT REPRODUCED.
    `same`: groups of keys that come from one distribution when there is no effect (the arms of a
    comparison tested by separate bounds; a `Diff`'s two keys are grouped already)."""

    reproduced: Condition
    partial: Condition | None = None
    same: tuple[tuple[str, ...], ...] = ()

    def codes(self, d: Data) -> np.ndarray:
        out = np.where(self.reproduced.holds(d), REPR, NOT)
        if self.partial is not None:
            out = np.where((out == NOT) & self.partial.holds(d), PART, out)
        return out

    def rules(self) -> list[Rule]:
        return [self]

    def prose(self) -> str:
        text = f"REPRODUCED if {self.reproduced.words()}"
        if self.partial is not None:
            text += f"; PARTIAL if {self.partial.words()}"
        text += "; otherwise NOT REPRODUCED."
        names = {n.name: n for c in (self.reproduced, self.partial) if c is not None for n in _named(c)}
        if names:
            text += " Where " + "; ".join(f"{n}: {c.cond.words()}" for n, c in names.items()) + "."
        return text



@dataclass(frozen=True)
class AllOf(_Decides):
    """Several rules, each decided on its own (conditions, hosts, backends): REPRODUCED when every one
    is, NOT REPRODUCED when none is even partly, PARTIAL otherwise. Nothing is pooled."""

    parts: tuple[tuple[str, Any], ...]

    def __init__(self, parts: Mapping[str, Any]) -> None:
        object.__setattr__(self, "parts", tuple(parts.items()))

    def rules(self) -> list[Rule]:
        return [r for _, p in self.parts for r in p.rules()]

    def codes(self, d: Data) -> np.ndarray:
        return _all_of([p.codes(d) for _, p in self.parts])

    def prose(self) -> str:
        body = " ".join(f"[{name}] {p.prose()}" for name, p in self.parts)
        return f"{body} Combined: REPRODUCED if every part is, NOT REPRODUCED if none is even partly, " \
               "PARTIAL otherwise."

    def fmt(self, c: str) -> AllOf:
        return AllOf({_sub(n, c): p.fmt(c) for n, p in self.parts})



@dataclass(frozen=True)
class Each(_Decides):
    """One rule decided separately in each condition ("{c}" in its keys and labels is the condition's
    name), combined like `AllOf`: per condition, not pooled.

    >>> r = Each(Rule(Test(Share("ok_{c}", "cells correct"), ">=", 0.85, by="point")), ("0", "0.4"), "rate")
    >>> r.decide({"ok_0": [1, 1, 1, 1], "ok_0.4": [1, 0, 0, 1]})
    <Verdict.PARTIAL: 'partial'>
    """

    rule: Rule
    conditions: tuple[str, ...]
    what: str = "condition"
    measured_only: bool = False  # decide the conditions the profile measured (quick runs a subset)

    def __init__(self, rule: Rule, conditions: Sequence[str], what: str = "condition",
                 measured_only: bool = False) -> None:
        object.__setattr__(self, "rule", rule)
        object.__setattr__(self, "conditions", tuple(str(c) for c in conditions))
        object.__setattr__(self, "what", what)
        object.__setattr__(self, "measured_only", bool(measured_only))

    def rules(self) -> list[Rule]:
        return [self.rule.fmt(c) for c in self.conditions]

    def codes(self, d: Data) -> np.ndarray:
        rules = self.rules()
        if self.measured_only:
            rules = [r for r in rules if all(k in d for k in keys_of(r))]
            if not rules:
                raise KeyError(f"none of the {self.what}s {', '.join(self.conditions)} was measured")
        return _all_of([r.codes(d) for r in rules])

    def prose(self) -> str:
        which = " that the profile measures" if self.measured_only else ""
        return (f"For each {self.what} ({{c}} ∈ {{{', '.join(self.conditions)}}}){which}, separately: "
                f"{self.rule.prose()} Combined: REPRODUCED if every {self.what} is, NOT REPRODUCED if "
                "none is even partly, PARTIAL otherwise.")

    def fmt(self, c: str) -> Each:
        return self



def _all_of(codes: list[np.ndarray]) -> np.ndarray:
    stack = np.stack(codes)
    lo, hi = stack.min(axis=0), stack.max(axis=0)
    return np.where(lo == REPR, REPR, np.where(hi == NOT, NOT, PART))


@dataclass(frozen=True)
class Custom:
    """A rule that cannot be declared: `decide(measured) -> Verdict`, whose docstring is the prose, and
    `null(rng, record) -> measured`, one draw of the measurements with no effect (at the record's noise)."""

    decide_fn: Callable[[Mapping[str, Any]], Verdict]
    null: Callable[[np.random.Generator, Mapping[str, Any]], dict[str, Any]]

    def decide(self, measured: Mapping[str, Any]) -> Verdict:
        return Verdict(self.decide_fn(measured))

    def prose(self) -> str:
        return " ".join(textwrap.dedent(self.decide_fn.__doc__ or "").split())

    def spec(self) -> dict[str, Any]:
        src = inspect.getsource(self.decide_fn) + inspect.getsource(self.null)
        return {"type": "Custom", "decide": self.decide_fn.__qualname__,
                "source_sha256": hashlib.sha256(src.encode()).hexdigest()}


RuleLike = Rule | AllOf | Each | Custom


def rule_hash(rule: RuleLike | None) -> str:
    """12 hex digits of the SHA-256 of the rule's canonical form: what a record stores to say which rule
    decided it."""
    if rule is None:
        return ""
    blob = json.dumps(rule.spec(), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


# ---- measured <-> arrays --------------------------------------------------------------------------

def keys_of(rule: Rule | AllOf | Each) -> list[str]:
    return list(dict.fromkeys(k for r in rule.rules() for t in _all_tests(r) for k in t.est.reads()))


def _all_tests(r: Rule) -> list[Test]:
    return r.reproduced.tests() + (r.partial.tests() if r.partial is not None else [])


def as_data(rule: Rule | AllOf | Each, measured: Mapping[str, Any]) -> Data:
    """The keys a rule reads, as (1, units) float arrays; a missing key or a non-number is an error that
    names it (a finding must carry what its rule reads)."""
    out: Data = {}
    optional = {k for r in _measured_only(rule) for k in keys_of(r)}
    for k in keys_of(rule):
        if k not in measured:
            if k in optional:
                continue
            raise KeyError(f"the rule reads {k!r}, which the finding's measurements lack")
        v = measured[k]
        vals = v if isinstance(v, list | tuple) else [v]
        try:
            out[k] = np.asarray([float(x) for x in vals], dtype=float)[None, :]
        except (TypeError, ValueError):
            raise ValueError(f"measured {k!r} must be a number or a list of numbers, got {v!r}") from None
    return out


def _measured_only(rule: Any) -> list[Rule]:
    if isinstance(rule, Each) and rule.measured_only:
        return rule.rules()
    if isinstance(rule, AllOf):
        return [r for _, p in rule.parts for r in _measured_only(p)]
    return []


# ---- the null: measurements simulated with no effect ----------------------------------------------

@dataclass
class NullResult:
    """The largest REPRODUCED rate over the null worlds tried, where it was reached, and how the noise
    was set ("record": the spread of the record's own per-unit values)."""

    rate: float
    world: dict[str, float] = field(default_factory=dict)
    noise: str = "record"
    draws: int = NULL_DRAWS

    @property
    def ok(self) -> bool:
        return self.rate <= NULL_BOUND

    def __str__(self) -> str:
        return f"{self.rate:.1%} of {self.draws} null draws pass (noise: {self.noise})"


@dataclass
class _Unit:
    """Keys that share one null distribution: a common level plus, per key, an offset (the bound of a
    difference test, or 0: both arms from one distribution)."""

    keys: list[str]
    binary: bool = False
    log: bool = False
    levels: set[float] = field(default_factory=set)
    offsets: dict[str, set[float]] = field(default_factory=dict)
    chance: float | None = None
    se_key: str = ""  # a Value's standard error: the noise of its null
    exact: bool = True  # read only by exact Values (computed, not sampled): its null has no noise


def _failing(op: str, bound: float) -> float:
    """A point just on the failing side of `op bound` (it matters only for noise-free numbers)."""
    eps = 1e-9 * max(1.0, abs(bound))
    return bound - eps if op in (">=", ">") else bound + eps


def _units(rule: Rule | AllOf | Each) -> tuple[list[_Unit], dict[str, str]]:
    parent: dict[str, str] = {}

    def find(k: str) -> str:
        parent.setdefault(k, k)
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    def join(a: str, b: str) -> None:
        parent[find(a)] = find(b)

    se_keys: dict[str, str] = {}
    tests_repr: list[Test] = []
    for r in rule.rules():
        for group in r.same:
            for a, b in itertools.pairwise(group):
                join(a, b)
        tests_repr += r.reproduced.tests()
        for t in _all_tests(r):
            for k in t.est.reads():
                find(k)
            if isinstance(t.est, Diff):
                join(t.est.a, t.est.b)
            if isinstance(t.est, Value) and t.est.se:
                se_keys[t.est.se] = t.est.key
    groups: dict[str, list[str]] = {}
    for k in parent:
        if k not in se_keys:
            groups.setdefault(find(k), []).append(k)
    units = {root: _Unit(sorted(keys)) for root, keys in groups.items()}
    all_tests = [t for r in rule.rules() for t in _all_tests(r)]
    for t in all_tests:
        u = units[find(t.est.reads()[0])]
        if isinstance(t.est, Share):
            u.binary = True
            if t.est.chance is not None:
                u.chance = t.est.chance
        if getattr(t.est, "log", False):
            u.log = True
        if isinstance(t.est, Value) and t.est.se:
            u.se_key = t.est.se
        if not _exact(t.est):
            u.exact = False
    for t in tests_repr:  # only REPRODUCED's bounds matter for a false REPRODUCED
        u = units[find(t.est.reads()[0])]
        b = math.log(t.bound) if u.log and t.bound > 0 else t.bound
        if isinstance(t.est, Diff):
            root = u.keys[0]
            if t.est.b == root:
                u.offsets.setdefault(t.est.a, set()).add(_failing(t.op, b))
            elif t.est.a == root:
                u.offsets.setdefault(t.est.b, set()).add(-_failing(t.op, b))
            else:
                u.offsets.setdefault(t.est.a, set()).add(_failing(t.op, b))
        else:
            u.levels.add(_failing(t.op, b))
    return list(units.values()), se_keys


def _record_values(record: Mapping[str, Any] | None, key: str) -> np.ndarray | None:
    if record is None or key not in record:
        return None
    v = record[key]
    vals = v if isinstance(v, list | tuple) else [v]
    try:
        arr = np.asarray([float(x) for x in vals], dtype=float)
    except (TypeError, ValueError):
        return None
    arr = arr[np.isfinite(arr)]
    return arr if arr.size else None


def null_pass_rate(rule: RuleLike, record: Mapping[str, Any] | None = None, draws: int = NULL_DRAWS,
                   seed: int = 0) -> NullResult:
    """How often `rule` says REPRODUCED on measurements simulated with no effect, at the number of units
    (seeds, items) and the noise of `record` (a finding's measurements): the largest rate over the null
    worlds of the rule — every compared key at the failing side of its REPRODUCED bound, keys of one
    comparison from one distribution, 0/1 outcomes at chance where the rule names it. Without a record
    the noise is assumed (10% of the bound's scale, 3 units, 10 items) and the result says so."""
    rng = np.random.default_rng(seed)
    if isinstance(rule, Custom):
        hits = sum(rule.decide(rule.null(rng, record or {})) is Verdict.REPRODUCED for _ in range(draws))
        return NullResult(hits / draws, {}, "record" if record else "assumed", draws)
    rule = _measured_in(rule, record)
    parts = _independent_parts(rule)
    if len(parts) > 1 and isinstance(rule, AllOf | Each):
        # parts that share no key are independent: P(all REPRODUCED) is the product of their sups
        results = [null_pass_rate(p, record, draws, seed) for p in parts]
        rate = float(np.prod([r.rate for r in results]))
        world = {k: v for r in results for k, v in r.world.items()}
        noise = "assumed" if any(r.noise == "assumed" for r in results) else "record"
        return NullResult(rate, world, noise, draws)
    units, se_keys = _units(rule)
    assumed = False
    plans = []
    for u in units:
        plan, was_assumed = _unit_plan(u, record, rule)
        assumed |= was_assumed
        plans.append(plan)
    grid = list(itertools.product(*[p["worlds"] for p in plans]))
    if len(grid) > MAX_GRID:
        pick = rng.choice(len(grid), MAX_GRID - 1, replace=False)
        grid = [grid[0], *(grid[i] for i in pick)]
    best, best_world = -1.0, {}
    for world in grid:
        d: Data = {}
        for plan, w in zip(plans, world, strict=True):
            d.update(_simulate(plan, w, draws, rng))
        for se in se_keys:
            sev = _record_values(record, se)
            d[se] = np.full((draws, 1), float(sev[0]) if sev is not None else _assumed_sd(rule))
        rate = float(np.mean(rule.codes(d) == REPR))
        if rate > best:
            best, best_world = rate, {k: v for w in world for k, v in w.items()}
    return NullResult(best, best_world, "assumed" if assumed else "record", draws)


def _measured_in(rule: RuleLike, record: Mapping[str, Any] | None) -> RuleLike:
    """An `Each(measured_only=True)` simulated on the conditions its record measured (all without one)."""
    if isinstance(rule, AllOf):
        return AllOf({name: _measured_in(p, record) for name, p in rule.parts})
    if not isinstance(rule, Each) or not rule.measured_only or not record:
        return rule
    kept = [c for c in rule.conditions if all(k in record for k in keys_of(rule.rule.fmt(c)))]
    return Each(rule.rule, kept, rule.what, True) if kept else rule


def _independent_parts(rule: RuleLike) -> list[RuleLike]:
    if isinstance(rule, AllOf):
        parts = [p for _, p in rule.parts]
    elif isinstance(rule, Each):
        parts = rule.rules()
    else:
        return [rule]
    keysets = [set(keys_of(p)) | {k for r in p.rules() for g in r.same for k in g} for p in parts]
    for i, j in itertools.combinations(range(len(parts)), 2):
        if keysets[i] & keysets[j]:
            return [rule]
    return parts


def _assumed_sd(rule: RuleLike) -> float:
    bounds = [abs(t.bound) for r in rule.rules() for t in _all_tests(r)]  # type: ignore[union-attr]
    return 0.1 * max([1.0, *bounds])


def _unit_plan(u: _Unit, record: Mapping[str, Any] | None, rule: RuleLike) -> tuple[dict, bool]:
    """The null worlds of one unit (level × offsets) and its noise: the pooled per-unit spread of the
    record's values, split into a part shared by a unit's keys (seed effects) and a part of its own."""
    vals = {k: _record_values(record, k) for k in u.keys}
    assumed = any(v is None for v in vals.values()) and not u.exact
    n = {k: (len(v) if v is not None else (10 if u.binary else 3)) for k, v in vals.items()}
    if len(u.keys) > 1 and not u.binary:  # one comparison's arms are paired: one unit count for all
        n = dict.fromkeys(n, max(n.values()))
    if u.log:
        vals = {k: (np.log(v[v > 0]) if v is not None and (v > 0).any() else None) for k, v in vals.items()}
    present = [v for v in vals.values() if v is not None]
    pooled = float(np.mean(np.concatenate(present))) if present else 0.0
    var = [float(np.var(v, ddof=1)) for v in present if len(v) > 1]
    sd = math.sqrt(float(np.mean(var))) if var else 0.0
    if assumed and not present:
        sd = _assumed_sd(rule) if not u.log else 0.1
    if u.exact:
        sd = 0.0
    own = sd
    if len(u.keys) > 1 and not u.binary:  # the paired part: var(a − b) / 2 is each key's own noise
        diffs = [float(np.var(vals[a] - vals[b], ddof=1)) / 2 for a, b in itertools.combinations(u.keys, 2)
                 if vals[a] is not None and vals[b] is not None and len(vals[a]) == len(vals[b]) > 1]
        if diffs:
            own = min(sd, math.sqrt(float(np.mean(diffs))))
    shared = math.sqrt(max(0.0, sd * sd - own * own))
    if u.se_key:
        se = _record_values(record, u.se_key)
        assumed |= se is None
        own, shared = (float(se[0]) if se is not None else _assumed_sd(rule)), 0.0
    if u.binary:
        levels = {u.chance} if u.chance is not None else set(u.levels) or {pooled}
        if u.chance is None and len(u.keys) > 1:
            levels.add(pooled)
    else:
        levels = set(u.levels) or {pooled}
        if len(u.keys) > 1:
            levels.add(pooled)
            levels |= {lv - o for lv in u.levels for offs in u.offsets.values() for o in offs}
    # a difference sits at its test's bound (0 when the bound is 0: both arms from one distribution)
    offset_choices = [[(k, o) for o in sorted(u.offsets.get(k) or {0.0})] for k in u.keys]
    worlds = []
    for level in sorted(levels):
        for offs in itertools.product(*offset_choices):
            worlds.append({**{f"level[{u.keys[0]}]": level}, **{f"offset[{k}]": o for k, o in offs if o}})
    plan = {"unit": u, "n": n, "own": own, "shared": shared, "worlds": worlds}
    return plan, assumed


def _simulate(plan: dict, world: dict[str, float], draws: int, rng: np.random.Generator) -> Data:
    u: _Unit = plan["unit"]
    level = world[f"level[{u.keys[0]}]"]
    out: Data = {}
    n_max = max(plan["n"].values())
    seed_effect = rng.normal(0.0, plan["shared"], (draws, n_max)) if plan["shared"] else 0.0
    for k in u.keys:
        n = plan["n"][k]
        centre = level + world.get(f"offset[{k}]", 0.0)
        if u.binary:
            out[k] = (rng.random((draws, n)) < min(1.0, max(0.0, centre))).astype(float)
            continue
        x = centre + rng.normal(0.0, plan["own"], (draws, n)) if plan["own"] else np.full((draws, n), centre)
        if plan["shared"]:
            x = x + seed_effect[:, :n]
        out[k] = np.exp(x) if u.log else x
    return out


def describe_null(rule: RuleLike) -> str:
    """The null worlds in words, for the report beside the rate."""
    if isinstance(rule, Custom):
        return " ".join(textwrap.dedent(rule.null.__doc__ or "simulated by the rule's own null").split())
    units, _ = _units(rule)
    parts = []
    for u in units:
        if u.binary and u.chance is not None:
            parts.append(f"{', '.join(u.keys)} at chance {_g(u.chance)}")
        elif len(u.keys) > 1:
            parts.append(f"{' and '.join(u.keys)} from one distribution")
        elif u.levels:
            parts.append(f"{u.keys[0]} at its bound")
    return "no effect: " + "; ".join(parts) if parts else "no effect"

_TYPES: dict[str, type] = {c.__name__: c for c in (Mean, Diff, Share, Value, Test, Rule, Named, Not)}


def from_spec(spec: Mapping[str, Any]) -> Rule | AllOf | Each | None:
    """Rebuild a declared rule from the canonical form a record stored (None for a `Custom` rule, whose
    code is not data): a record's verdict can be re-derived from its own measurements by its own rule."""
    kind = spec.get("type")
    if kind == "Custom":
        return None
    args = {k: v for k, v in spec.items() if k != "type"}
    if kind in ("All", "AnyOf"):
        cls = All if kind == "All" else AnyOf
        return cls(*(from_spec(p) for p in args["parts"]))  # type: ignore[return-value]
    if kind == "KOf":
        return KOf(args["k"], *(from_spec(p) for p in args["parts"]))  # type: ignore[return-value]
    if kind == "AllOf":
        return AllOf({name: from_spec(p) for name, p in args["parts"]})
    if kind == "Each":
        return Each(from_spec(args["rule"]), args["conditions"], args["what"],  # type: ignore[arg-type]
                    args.get("measured_only", False))
    if kind not in _TYPES:
        raise ValueError(f"not a rule spec: {kind!r}")
    for name, v in args.items():
        if isinstance(v, dict) and "type" in v:
            args[name] = from_spec(v)
        elif name == "same":
            args[name] = tuple(tuple(g) for g in v)
        elif isinstance(v, str) and v in ("inf", "-inf", "nan") and name == "bound":
            args[name] = float(v)
    return _TYPES[kind](**args)

"""Search past one machine (spec §7): a corpus split at line boundaries into S shards, each an ordinary
memory-mapped `Index`, all mapped onto one global vocabulary. The coordinator runs Step 1 (the soft sets,
a few thousand type ids) once and fans Step 2 (the exact, output-sensitive part) out to the shards;
results are merged by concatenation (enumeration is complete, nothing is re-ranked), so they equal a
single index's exactly. Ranked variants (`variants`) run on each shard's suffix array and are merged by
string, counts added (`variants.merge_ranked`): the same table as one index's. Backends: serial, local
processes (one per shard; the calling process serves shard 0 meanwhile), or Ray (one actor per shard, on
a local or an existing cluster).

>>> import numpy as np, tempfile
>>> from iclr25.softmatcha.embeddings import Embeddings
>>> emb = Embeddings.from_arrays(["king", "queen", "of", "israel", "syria"],
...                              np.array([[1, 0, 0], [.9, .1, 0], [0, 1, 0], [0, 0, 1], [0, .2, 1]]))
>>> lines = ["the king of israel", "a queen", "the queen of syria"]
>>> sh = ShardedIndex.build(tempfile.mkdtemp() + "/s", lines=lines, n_shards=2, embeddings=emb)
>>> [(m.line, m.matched_text) for m in sh.search("king of israel", threshold=0.9)]
[(1, 'king of israel'), (3, 'queen of syria')]

On an existing Ray cluster: build once (`ShardedIndex.build(...)` or `.from_token_ids(...)`), put the
folder where every node reads it at the same path (a shared file system, or the same copy on each node),
then open it with `ShardedIndex.load(folder, embeddings=..., backend="ray", ray_address="auto")` from a
process on the cluster (or `ray_address="ray://HEAD:10001"` through Ray Client). Each shard becomes one
actor that memory-maps it; the calling process holds the embeddings and runs Step 1; only soft-set ids
(Step 1 -> shards), hit positions (shards -> caller) and the requested page of matches travel. With no
address, a local Ray is started with `workers` CPUs. `close()` kills the actors.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from iclr25.core.errors import UserError
from iclr25.core.executors import ray_init
from iclr25.softmatcha.embeddings import NAMED_EMBEDDINGS, Embeddings, load_embeddings
from iclr25.softmatcha.index import (
    Index,
    SearchConfig,
    SoftSets,
    Thresholds,
)
from iclr25.softmatcha.index_format import SEP_TOKEN, auto_level, read_meta, verify_files
from iclr25.softmatcha.results import Match, SearchResult, Variant, group_rows, variant_table
from iclr25.softmatcha.search import SEP, find_positions
from iclr25.softmatcha.tokenize import get_tokenizer
from iclr25.softmatcha.variants import (
    Element,
    RankedVariant,
    VariantConfig,
    check_config,
    merge_ranked,
    ranked_variants,
    top_k_with_ties,
    variant_config,
)

MANIFEST = "sharded.json"
FORMAT = "iclr25-softmatcha-sharded"
VERSION = 1
BACKENDS = ("serial", "process", "ray")

# What the coordinator broadcasts for one pattern slot: the global type ids of its soft set V_i and their
# scores s(w, p_i). A few thousand ids, whatever the corpus size.
SlotMsg = tuple[np.ndarray, np.ndarray]


# ---- the shard side: Step 2 and display on one memory-mapped shard ------------------------------------

class ShardWorker:
    """One shard: its Index (memory-mapped; no embeddings needed, Step 1 is done elsewhere) and the map
    from its local type ids to the global vocabulary."""

    def __init__(self, shard_dir: str, l2g_path: str, n_global: int, position_offset: int, first_line: int,
                 source: str) -> None:
        path = Path(shard_dir)
        meta = read_meta(path)
        meta["_lazy_blocks"] = auto_level(meta) == "head"  # checked whole at load when small, else per block
        self.index = Index(path, meta, None)  # type: ignore[arg-type]  (no Step 1 here)
        self.l2g = np.load(l2g_path, mmap_mode="r")
        self.n_global = n_global
        self.offset = position_offset
        self.first_line = first_line
        self.source = source

    def _local(self, slots: Sequence[SlotMsg]) -> tuple[list[np.ndarray], list[np.ndarray]]:
        masks, scores = [], []
        for gids, sc in slots:
            dense = np.zeros(self.n_global, dtype=np.float32)
            hit = np.zeros(self.n_global, dtype=bool)
            dense[gids] = sc
            hit[gids] = True
            masks.append(hit[self.l2g])
            scores.append(dense[self.l2g])
        return masks, scores

    def positions(self, slots: Sequence[SlotMsg]) -> tuple[np.ndarray, int]:
        """Step 2 on this shard: global start positions (ascending) and the candidates examined."""
        masks, _ = self._local(slots)
        ix = self.index
        pos, stats = find_positions(masks, ix.tokens, ix.indptr, ix.postings)
        return pos + self.offset, int(stats["candidates"])

    def matches(self, slots: Sequence[SlotMsg], pattern: tuple[str, ...], thresholds: tuple[float, ...],
                global_positions: np.ndarray) -> list[Match]:
        """`Match` objects for some of this shard's hits, with corpus-wide line numbers and positions."""
        _, scores = self._local(slots)
        local = np.asarray(global_positions, dtype=np.int64) - self.offset
        res = SearchResult(self.index, pattern, thresholds, local, scores, 0.0, {}, [])
        return [replace(m, source=self.source, line=m.line + self.first_line,
                        position=m.position + self.offset) for m in res[:]]

    def variants(self, slots: Sequence[SlotMsg], pattern: tuple[str, ...]
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Partial variants table: distinct matched global-id rows, counts, min and sum of min-scores."""
        masks, scores = self._local(slots)
        ix = self.index
        pos, _ = find_positions(masks, ix.tokens, ix.indptr, ix.postings)
        m = len(pattern)
        if pos.size == 0:
            return (np.empty((0, m), np.int64), np.empty(0, np.int64), np.empty(0), np.empty(0))
        ids = np.asarray(ix.tokens[pos[:, None] + np.arange(m)[None, :]]).astype(np.int64)
        score = np.stack([s[ids[:, i]] for i, s in enumerate(scores)], axis=1).min(axis=1)
        uniq, (counts, mins, sums) = group_rows(ids, (np.ones(len(ids), np.int64), score, score),
                                                (np.add, np.minimum, np.add))
        return np.asarray(self.l2g)[uniq], counts, mins, sums


    @cached_property
    def g2l(self) -> np.ndarray:
        """Global type id -> this shard's local id (-1: the type does not occur here)."""
        g2l = np.full(self.n_global, -1, dtype=np.int64)
        g2l[np.asarray(self.l2g)] = np.arange(len(self.l2g))
        return g2l

    def ranked(self, elements: Sequence[Element], cfg: VariantConfig, k: int | None) -> list[RankedVariant]:
        """This shard's top k variants with ties on the k-th score, type ids global (for `merge_ranked`)."""
        local = []
        for el in elements:
            if not el.wildcard:
                ids = self.g2l[el.ids]
                keep = np.flatnonzero(ids >= 0)
                order = keep[np.argsort(ids[keep])]
                el = Element(el.token, ids[order], el.sims[order])
            local.append(el)
        it = ranked_variants(self.index.suffix_ranges, local, cfg, self.index.vocab)
        l2g = np.asarray(self.l2g)
        return [replace(v, type_ids=tuple(int(t) for t in l2g[list(v.type_ids)]))
                for v in top_k_with_ties(it, k)]


# process backend: one forked process per shard (the caller's own process serves shard 0), kept open
# between calls; a call and its reply travel over one pipe (no executor queue: a round trip costs tens of
# microseconds, which matters when a query's own work is under a millisecond)
class _ShardProcess:
    def __init__(self, spec: tuple) -> None:
        import multiprocessing as mp
        ctx = mp.get_context("fork")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, spec), daemon=True)
        self.proc.start()
        child.close()

    def send(self, method: str, args: tuple) -> None:
        try:
            self.conn.send((method, args))
        except OSError:
            self._died()

    def recv(self) -> Any:
        try:
            ok, value = self.conn.recv()
        except (EOFError, OSError):
            self._died()
        if not ok:
            raise value
        return value

    def _died(self) -> None:
        self.proc.join(timeout=1)
        raise UserError(f"a shard worker process died (exit code {self.proc.exitcode}); "
                        "reopen the sharded index") from None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.send(None)
        self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.proc.terminate()
        self.conn.close()


def _serve(conn: Any, spec: tuple) -> None:
    from iclr25.core.runtime import pin_threads
    pin_threads()
    worker = ShardWorker(*spec)
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        method, args = msg
        try:
            reply = (True, getattr(worker, method)(*args))
        except Exception as e:  # noqa: BLE001  (raised again in the caller)
            reply = (False, e)
        conn.send(reply)


# ---- results --------------------------------------------------------------------------------------------

class ShardedResult(Sequence[Match]):
    """All matches over all shards, in corpus order. Like `SearchResult`: `count`, `seconds`, lazy `Match`
    objects by index or slice (each shard materialises only its part of a page), `variants()`."""

    def __init__(self, owner: ShardedIndex, pattern: tuple[str, ...], thresholds: tuple[float, ...],
                 slots: list[SlotMsg], per_shard: list[np.ndarray], seconds: float, candidates: int,
                 warnings: list[str]) -> None:
        self.owner = owner
        self.pattern = pattern
        self.thresholds = thresholds
        self._slots = slots
        self._per_shard = per_shard
        self._starts = np.cumsum([0] + [p.size for p in per_shard])
        self.seconds = seconds
        self.stats = {"candidates": candidates}
        self.warnings = warnings

    @cached_property
    def positions(self) -> np.ndarray:
        return np.concatenate(self._per_shard) if self._per_shard else np.empty(0, np.int64)

    @property
    def count(self) -> int:
        return int(self._starts[-1])

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            a, b, step = i.indices(self.count)
            if step != 1:
                raise ValueError("ShardedResult slices must have step 1")
            return self._range(a, b)
        if not -self.count <= i < self.count:
            raise IndexError(i)
        i = i % self.count
        return self._range(i, i + 1)[0]

    def __iter__(self):
        for s in range(0, self.count, 4096):
            yield from self._range(s, min(self.count, s + 4096))

    def _range(self, a: int, b: int) -> list[Match]:
        calls = []
        for k, pos in enumerate(self._per_shard):
            lo, hi = max(a, self._starts[k]), min(b, self._starts[k + 1])
            if lo < hi:
                calls.append((k, pos[lo - self._starts[k]:hi - self._starts[k]]))
        outs = self.owner._fan("matches", [(k, (self._slots, self.pattern, self.thresholds, p))
                                           for k, p in calls])
        return [m for out in outs for m in out]

    def variants(self, limit: int | None = None) -> list[Variant]:
        """The variants table over all shards (merged partial tables; same order as SearchResult's)."""
        parts = self.owner._fan("variants", [(k, (self._slots, self.pattern))
                                             for k in range(len(self._per_shard)) if self._per_shard[k].size])
        if not parts:
            return []
        rows = np.concatenate([p[0] for p in parts])
        counts = np.concatenate([p[1] for p in parts])
        mins = np.concatenate([p[2] for p in parts])
        sums = np.concatenate([p[3] for p in parts])
        uniq, (c, mn, sm) = group_rows(rows, (counts, mins, sums), (np.add, np.minimum, np.add))
        return variant_table(uniq, c, mn, sm, self.owner.vocab, limit)

    def __repr__(self) -> str:
        return f"ShardedResult({' '.join(self.pattern)!r}, count={self.count}, seconds={self.seconds:.4f})"


# ---- the coordinator ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ShardInfo:
    dir: str
    n_lines: int
    n_tokens: int
    n_positions: int
    first_line: int  # lines before this shard
    position_offset: int  # global position = local position + offset


class ShardedIndex(SoftSets):
    """A sharded SoftMatcha index (see the module docstring). `backend`: serial | process (one process per
    shard but the first, which the calling process serves) | ray (one actor per shard; `workers` is the CPU
    count of a local Ray, the process backend does not use it)."""

    def __init__(self, path: Path, manifest: dict[str, Any], embeddings: Embeddings, backend: str = "serial",
                 workers: int | None = None, ray_address: str | None = None,
                 config: SearchConfig | None = None) -> None:
        if backend not in BACKENDS:
            raise UserError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
        self.path = path
        self.meta = manifest
        self.embeddings = embeddings
        self.tokenizer = get_tokenizer(manifest["tokenizer"])
        self.config = config or SearchConfig()
        self.shards = [ShardInfo(**s) for s in manifest["shards"]]
        self.emb_rows = np.load(path / "emb_rows.npy")
        self.frequencies = np.load(path / "freq.npy")
        self.backend = backend
        self.workers = workers
        self.ray_address = ray_address
        self._local: list[ShardWorker] | None = None
        self._procs: list[_ShardProcess | None] | None = None
        self._lock = threading.Lock()
        self._actors: list[Any] | None = None

    # ---- build / load ---------------------------------------------------------------------------------
    @classmethod
    def build(cls, out: str | os.PathLike, *, lines: Iterable[str], n_shards: int,
              embeddings: Embeddings | str | None = None, tokenizer: str = "glove", overwrite: bool = False,
              **kw: Any) -> ShardedIndex:
        """Split `lines` into `n_shards` contiguous parts of about equal size (at line boundaries) and
        index each one; then write the global vocabulary and each shard's local->global map."""
        lines = [lines] if isinstance(lines, str) else list(lines)
        bounds = _split_points([len(x) + 1 for x in lines], n_shards)
        emb = _resolve(embeddings)
        out = _prepare(Path(out), overwrite)
        for k in range(n_shards):
            Index.build(out / f"shard-{k:03d}", lines=lines[bounds[k]:bounds[k + 1]], embeddings=emb,
                        tokenizer=tokenizer, overwrite=True)
        return cls._finish(out, n_shards, emb, tokenizer, "<lines>", **kw)

    @classmethod
    def from_token_ids(cls, word_ids: np.ndarray, line_lengths: np.ndarray, words: Sequence[str],
                       out: str | os.PathLike, embeddings: Embeddings, n_shards: int, overwrite: bool = False,
                       **kw: Any) -> ShardedIndex:
        """Shard an already tokenized corpus (e.g. synthetic Zipf), split at line boundaries."""
        line_lengths = np.asarray(line_lengths, dtype=np.int64)
        ends = np.concatenate([[0], np.cumsum(line_lengths)])
        bounds = _split_points(line_lengths + 1, n_shards)
        out = _prepare(Path(out), overwrite)
        for k in range(n_shards):
            a, b = bounds[k], bounds[k + 1]
            if a == b:
                raise UserError(f"cannot split {line_lengths.size} lines into {n_shards} shards")
            Index.from_token_ids(word_ids[ends[a]:ends[b]], line_lengths[a:b], words, out / f"shard-{k:03d}",
                                 embeddings, overwrite=True)
        return cls._finish(out, n_shards, embeddings, "glove-lower-v2", "<ids>", **kw)

    @classmethod
    def _finish(cls, out: Path, n_shards: int, emb: Embeddings, tokenizer: str, source: str,
                **kw: Any) -> ShardedIndex:
        gid: dict[str, int] = {SEP_TOKEN: SEP}
        shards, n_tok, n_lines, offset = [], 0, 0, 0
        for k in range(n_shards):
            d = out / f"shard-{k:03d}"
            meta = read_meta(d)
            vocab = (d / "vocab.txt").read_text(encoding="utf-8").split("\n")
            l2g = np.fromiter((gid.setdefault(w, len(gid)) for w in vocab), dtype=np.int64, count=len(vocab))
            np.save(out / f"l2g-{k:03d}.npy", l2g)
            shards.append(ShardInfo(d.name, meta["n_lines"], meta["n_tokens"], meta["n_positions"], n_lines,
                                    offset).__dict__)
            n_tok, n_lines = n_tok + meta["n_tokens"], n_lines + meta["n_lines"]
            offset += meta["n_positions"] - 1  # the shards share the leading separator
        words = sorted(gid, key=gid.__getitem__)
        freq = np.zeros(len(words), dtype=np.int64)
        for k in range(n_shards):
            ip = np.fromfile(out / f"shard-{k:03d}" / "indptr.bin", dtype=np.int64)
            np.add.at(freq, np.load(out / f"l2g-{k:03d}.npy"), np.diff(ip))
        rows = emb.ids(words).astype(np.int32)
        rows[SEP] = 0
        np.save(out / "emb_rows.npy", rows)
        np.save(out / "freq.npy", freq)
        (out / "vocab.txt").write_text("\n".join(words), encoding="utf-8")
        manifest = {"format": FORMAT, "version": VERSION, "tokenizer": tokenizer, "source": source,
                    "embeddings": {"name": emb.name, "fingerprint": emb.fingerprint, "dim": emb.dim},
                    "n_tokens": n_tok, "n_lines": n_lines, "n_positions": offset + 1, "n_types": len(words),
                    "shards": shards}
        from iclr25.core.runtime import atomic_write
        with atomic_write(out / MANIFEST, "w") as f:  # last: marks the folder complete
            json.dump(manifest, f, indent=1)
        return cls.load(out, embeddings=emb, **kw)

    @classmethod
    def load(cls, path: str | os.PathLike, embeddings: Embeddings | str | None = None,
             backend: str = "serial", workers: int | None = None,
             ray_address: str | None = None, verify: str = "auto") -> ShardedIndex:
        """Open a sharded index; every shard is checked as `Index.load(verify=...)` checks an index."""
        path = Path(path)
        mf = path / MANIFEST
        if not mf.is_file():
            raise UserError(f"no sharded SoftMatcha index at {path} (no {MANIFEST})")
        try:
            manifest = json.loads(mf.read_text(encoding="utf-8"))
        except ValueError:
            raise UserError(f"corrupted sharded index {path}: {MANIFEST} is not valid JSON") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT \
                or manifest.get("version") != VERSION:
            raise UserError(f"{path} is not a version-{VERSION} sharded SoftMatcha index")
        built = manifest["embeddings"]
        if embeddings is None:
            if built["name"] not in NAMED_EMBEDDINGS:
                raise UserError(f"sharded index {path} was built with custom embeddings {built['name']!r}; "
                                "pass the same Embeddings to load it")
            embeddings = built["name"]
        emb = _resolve(embeddings)
        if emb.fingerprint != built["fingerprint"]:
            raise UserError(f"sharded index {path} was built with embeddings {built['name']!r}, "
                            f"not {emb.name!r}")
        for shard in manifest.get("shards", []):  # the same checks as Index.load, once per shard
            d = path / str(shard.get("dir", "")) if isinstance(shard, dict) else path
            meta = read_meta(d)
            verify_files(d, meta, auto_level(meta) if verify == "auto" else verify)
        try:
            return cls(path, manifest, emb, backend, workers, ray_address)
        except (KeyError, TypeError, ValueError, OSError) as e:
            raise UserError(f"corrupted sharded index {path}: {type(e).__name__} {e}") from None

    # ---- Step 1 (SoftSets.slots) runs once, on the coordinator --------------------------------------
    def candidate_bound(self, pattern: str, threshold: Thresholds | None = None) -> int:
        slots, _ = self.slots(pattern, threshold)
        return min(int(self.frequencies[s.mask].sum()) for s in slots)

    def search(self, pattern: str | Sequence[str], threshold: Thresholds | None = None,
               warn: bool = True) -> ShardedResult:
        """Step 1 here, Step 2 on every shard (in parallel on the process / ray backends), merged."""
        t0 = time.perf_counter()
        slots, warns = self.slots(pattern, threshold)
        msgs: list[SlotMsg] = []
        for s in slots:
            gids = np.flatnonzero(s.mask)
            msgs.append((gids.astype(np.int64), s.scores[gids]))
        outs = self._fan("positions", [(k, (msgs,)) for k in range(len(self.shards))])
        seconds = time.perf_counter() - t0
        if warn:
            import warnings
            for w in warns:
                warnings.warn(w, stacklevel=2)
        return ShardedResult(self, tuple(s.token for s in slots), tuple(s.threshold for s in slots), msgs,
                             [o[0] for o in outs], seconds, sum(o[1] for o in outs), warns)

    def count(self, pattern: str | Sequence[str], threshold: Thresholds | None = None) -> int:
        return self.search(pattern, threshold, warn=False).count

    def variants(self, pattern: str | Sequence[str], threshold: Thresholds | None = None, k: int | None = 20,
                 *, score: str = "min", max_insert: int = 0, max_delete: int = 0,
                 penalty: float = 0.9) -> list[RankedVariant]:
        """`Index.variants` over the shards: each shard's suffix array gives its top k (with ties), the
        coordinator adds counts by string and ranks; equal to one index's table (`sa_range` is (0, 0))."""
        cfg = variant_config(k, score=score, max_insert=max_insert, max_delete=max_delete, penalty=penalty)
        els, _ = self.elements(pattern, threshold)
        check_config(cfg, els)
        return merge_ranked(self._fan("ranked", [(i, (els, cfg, k)) for i in range(len(self.shards))]), k)

    # ---- fan-out over the backend -------------------------------------------------------------------
    def _spec(self, k: int) -> tuple:
        s = self.shards[k]
        return (str(self.path / s.dir), str(self.path / f"l2g-{k:03d}.npy"), int(self.meta["n_types"]),
                s.position_offset, s.first_line, self.meta.get("source", "<lines>"))

    def _fan(self, method: str, calls: list[tuple[int, tuple]]) -> list[Any]:
        """Call `method` on the shards named in `calls` ((shard, args) pairs); results in call order."""
        if not calls:
            return []
        if self.backend == "serial":
            if self._local is None:
                self._local = [ShardWorker(*self._spec(k)) for k in range(len(self.shards))]
            return [getattr(self._local[k], method)(*args) for k, args in calls]
        if self.backend == "process":
            with self._lock:  # one call at a time on each pipe
                if self._procs is None:
                    self._local = [ShardWorker(*self._spec(0))]
                    self._procs = [None] + [_ShardProcess(self._spec(k)) for k in range(1, len(self.shards))]
                out: list[Any] = [None] * len(calls)
                errors: list[Exception] = []
                sent = []
                for i, (k, args) in enumerate(calls):  # the other shards start first ...
                    if k:
                        try:
                            self._procs[k].send(method, args)  # type: ignore[union-attr]
                            sent.append(i)
                        except UserError as e:
                            errors.append(e)
                for i, (k, args) in enumerate(calls):  # ... while this process does shard 0
                    if k == 0:
                        try:
                            out[i] = getattr(self._local[0], method)(*args)
                        except Exception as e:  # noqa: BLE001  (the first is raised below)
                            errors.append(e)
                for i in sent:  # every reply is read, even after an error: no pipe keeps a stale one
                    try:
                        out[i] = self._procs[calls[i][0]].recv()  # type: ignore[union-attr]
                    except Exception as e:  # noqa: BLE001
                        errors.append(e)
                if errors:
                    raise errors[0]
                return out
        import ray
        actors = self._ray_actors()
        return ray.get([getattr(actors[k], method).remote(*args) for k, args in calls])

    def _ray_actors(self) -> list[Any]:
        if self._actors is None:
            ray = ray_init(self.ray_address, self.workers)
            # memory-bound, not CPU-reserving: S actors may share few cores
            actor = ray.remote(num_cpus=0)(ShardWorker)
            self._actors = [actor.remote(*self._spec(k)) for k in range(len(self.shards))]
        return self._actors

    def close(self) -> None:
        """Stop the worker processes / Ray actors (the shards stay on disk)."""
        if self._procs is not None:
            for p in self._procs:
                if p is not None:
                    p.close()
            self._procs = self._local = None
        if self._actors is not None:
            import ray
            for a in self._actors:
                ray.kill(a)
            self._actors = None

    def __enter__(self) -> ShardedIndex:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        for p in getattr(self, "_procs", None) or []:
            if p is not None and p.proc.is_alive():
                p.proc.terminate()

    def __repr__(self) -> str:
        return (f"ShardedIndex({str(self.path)!r}, shards={len(self.shards)}, tokens={self.n_tokens}, "
                f"backend={self.backend})")


def _split_points(sizes: Sequence[int] | np.ndarray, n: int) -> list[int]:
    """Line indices cutting `sizes` (per-line weights) into `n` contiguous parts of about equal weight."""
    if n < 1:
        raise UserError(f"n_shards must be >= 1, got {n}")
    sizes = np.asarray(sizes, dtype=np.int64)
    if n > max(1, sizes.size):
        raise UserError(f"cannot split {sizes.size} lines into {n} shards")
    cum = np.cumsum(sizes)
    total = int(cum[-1]) if cum.size else 0
    cuts = [0]
    for k in range(1, n):
        c = int(np.searchsorted(cum, total * k / n, side="left")) + 1
        cuts.append(min(max(c, cuts[-1] + 1), sizes.size - (n - k)))
    cuts.append(int(sizes.size))
    return cuts


def _prepare(out: Path, overwrite: bool) -> Path:
    if out.exists():
        if not overwrite:
            raise UserError(f"{out} already exists (use overwrite=True)")
        if not (out / MANIFEST).is_file() and any(out.iterdir()):
            raise UserError(f"{out} exists and is not a sharded SoftMatcha index; refusing to replace it")
        shutil.rmtree(out)
    out.mkdir(parents=True)
    return out


def _resolve(embeddings: Embeddings | str | None) -> Embeddings:
    if embeddings is None:
        return load_embeddings()
    if isinstance(embeddings, str):
        return load_embeddings(embeddings)
    return embeddings

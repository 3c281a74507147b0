from __future__ import annotations

import json
import pickle

from ..spec import Spec

SPECS = [
    Spec("model_equality test", {"ref": "{ref}", "api": "{api}", "b": "50", "kernel": "hamming",
                                 "denominator": "pairs", "pvalue": "permutation", "alpha": "0.05"}),
    Spec("model_equality distance", {"a": "{ref}", "b": "{api}", "kernel": "hamming"}),
    # the smoke profile's TinyGPT (trained in seconds, then cached) keeps each call about a second
    Spec("model_equality simulate", {"out": "{tmp}", "profile": "smoke", "reference": "tinygpt",
                                     "endpoint": "int8", "prompts": "2", "n_ref": "4", "n_api": "2",
                                     "length": "5"}),
    Spec("model_equality sample-size", {"ref": "{ref}", "api": "{api}", "ns": "1,2", "sims": "3", "b": "10"}),
    # an API source: its pickles hold strings, so no tokenizer is needed
    Spec("model_equality official", {"root": "{released}", "model": "org/m", "source": "azure",
                                     "prompts": "wikipedia_en:0", "out": "{tmp}/o.jsonl"}),
    Spec("model_equality power", {"config": "{study}", "profile": "smoke", "test_name": "hamming",
                                  "denominator": "pairs"}),
]


def valid(d):
    def write(name, n, shift):
        with open(d / name, "w") as f:
            for p in range(3):
                for i in range(n):
                    completion = "ab"[(i + shift) % 2] + "xyz"[i % 3]
                    f.write(json.dumps({"prompt": f"p{p}", "completion": completion}) + "\n")
    write("ref.jsonl", 8, 0)
    write("api.jsonl", 4, 1)
    (d / "study.toml").write_text("sims = 5\nfpr_sims = 5\nb = 20\nn_per_prompt = [1]\nheadline_n = 1\n"
                                  "perm_sims = 2\nperm_b = 10\naudit_reps = 1\n")
    (d / "released" / "samples").mkdir(parents=True)
    with open(d / "released" / "samples" / "org-m-wikipedia_en-azure-L=5-0.pkl", "wb") as f:
        pickle.dump({"samples": [{"full_completion": "abcde"}, {"full_completion": "abxyz"}]}, f)
    return {"released": str(d / "released"), "ref": str(d / "ref.jsonl"), "api": str(d / "api.jsonl"),
            "study": str(d / "study.toml")}

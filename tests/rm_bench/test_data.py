"""Loading RM-Bench: per-domain files, total_dataset.json, checksums and malformed items."""

import json

import pytest

from iclr25.core.errors import UserError
from iclr25.rm_bench.data import load_rmbench

from .helpers import make_items, write_folder


def test_folder_with_checksums_and_domain_filter(tiny_dir):
    items = load_rmbench(tiny_dir)
    assert len(items) == 13 and {it.group for it in items} == {"chat", "safety"}
    assert len(load_rmbench(tiny_dir, ["safety"])) == 7
    assert len(load_rmbench(tiny_dir / "chat_filtered.json")) == 6
    with pytest.raises(UserError, match="no items for domain 'code'"):
        load_rmbench(tiny_dir, ["code"])
    with pytest.raises(UserError, match="unknown domain"):
        load_rmbench(tiny_dir, ["poetry"])


def test_total_dataset_format(tmp_path):
    rows = [dict(r, domain="chat") for r in make_items(3, "chat")] + \
           [dict(r, domain="safety-response") for r in make_items(2, "s", 50)]
    (tmp_path / "total_dataset.json").write_text(json.dumps(rows))
    items = load_rmbench(tmp_path)
    assert [it.domain for it in items] == ["chat"] * 3 + ["safety-response"] * 2
    assert items[0].chosen[2].startswith("In detail")


def test_checksum_mismatch_is_refused(tiny_dir):
    p = tiny_dir / "chat_filtered.json"
    p.write_text(p.read_text().replace("topic1", "topicX"))
    with pytest.raises(UserError, match="checksum mismatch"):
        load_rmbench(tiny_dir)


@pytest.mark.parametrize("edit, msg", [
    (lambda r: r.pop("id"), "lacks id"),
    (lambda r: r.update(chosen=r["chosen"][:2]), "3 styles"),
    (lambda r: r.update(rejected="text"), "3 styles"),
    (lambda r: r.update(prompt=3), "prompt must be a string"),
    (lambda r: r.update(id=1), "duplicate id"),
])
def test_malformed_items(tmp_path, edit, msg):
    rows = make_items(3, "chat")
    edit(rows[0])
    write_folder(tmp_path, {"chat": rows}, sums=False)
    with pytest.raises(UserError, match=msg):
        load_rmbench(tmp_path)


def test_missing_and_empty_folders(tmp_path):
    with pytest.raises(UserError, match="not found"):
        load_rmbench(tmp_path / "nope")
    with pytest.raises(UserError, match="holds no RM-Bench files"):
        load_rmbench(tmp_path)


def test_the_shipped_files(rmbench_dir):
    items = load_rmbench(rmbench_dir)
    domains = ("chat", "code", "safety-refuse", "safety-response")
    counts = {d: sum(it.domain == d for it in items) for d in domains}
    assert counts == {"chat": 129, "code": 228, "safety-refuse": 284, "safety-response": 157}

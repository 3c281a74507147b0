"""A pool of damaged, hostile and merely odd files, made once per session: what users and attackers hand
to a CLI. Each is a path; some are folders or paths that do not exist."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import numpy as np


def _png(path: Path, width: int, height: int, body: bytes | None = None) -> None:
    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    raw = body if body is not None else zlib.compress(b"".join(b"\0" + bytes(width) for _ in range(height)))
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", raw) + chunk(b"IEND", b""))


def make_nasty(root: Path) -> dict[str, Path]:
    root.mkdir(parents=True, exist_ok=True)
    f: dict[str, Path] = {}

    def put(name: str, data: bytes | str) -> None:
        p = root / name
        p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        f[name] = p

    put("empty.txt", b"")
    put("empty.npy", b"")
    put("empty.csv", b"")
    put("empty.json", b"")
    put("garbage.bin", bytes(np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8)))
    put("nul_text.txt", "the king\x00 of israel\n" * 3)
    put("utf16.txt", "the king of israel\n".encode("utf-16"))
    put("latin1.csv", "a,b\n\xe9,1\n".encode("latin-1"))
    put("header_only.csv", "x,y,label\n")
    put("nan.csv", "x,y,label\n1,nan,0\ninf,2,1\n,3,0\n")
    put("semicolon.csv", "x;y;label\n1;2;0\n3;4;1\n")
    put("ragged.csv", "x,y\n1,2,3,4\n5\n")
    put("one_row.csv", "x,y,label\n1,2,0\n")
    put("text.csv", "x,y,label\nfoo,bar,baz\nqux,quux,corge\n")
    put("deep.json", "[" * 100_000 + "]" * 100_000)
    put("bigint.json", "1" * 20_000)
    put("bad.json", '{"a": 1,')
    put("list.json", "[1, 2, 3]")
    put("null.json", "null")
    put("jsonl_bad.jsonl", '{"prompt": "a", "completion": "b"}\nnot json\n')
    put("jsonl_missing_keys.jsonl", '{"x": 1}\n{"y": 2}\n')
    put("truncated.npz", b"PK\x03\x04" + b"\0" * 20)
    np.save(root / "nan.npy", np.array([[1.0, np.nan], [np.inf, 0.0]]))
    np.save(root / "complex.npy", np.array([1 + 2j, 3j]))
    np.save(root / "object.npy", np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    np.save(root / "scalar.npy", np.array(3.0))
    np.save(root / "zero_size.npy", np.zeros((0, 3)))
    np.save(root / "huge_values.npy", np.full((8, 4), 1e300))
    np.save(root / "tiny_values.npy", np.full((8, 4), 1e-300))
    np.save(root / "strings.npy", np.array(["a", "b"]))
    np.save(root / "4d.npy", np.zeros((2, 2, 2, 2)))
    np.savez(root / "empty.npz")
    np.savez(root / "nan.npz", X=np.full((4, 3, 8), np.nan), y=np.zeros(4))
    for name in ("nan.npy", "complex.npy", "object.npy", "scalar.npy", "zero_size.npy", "huge_values.npy",
                 "tiny_values.npy", "strings.npy", "4d.npy", "empty.npz", "nan.npz"):
        f[name] = root / name
    header = (root / "nan.npy").read_bytes()
    put("truncated.npy", header[: len(header) // 2])
    _png(root / "bomb.png", 200_000, 200_000, body=zlib.compress(b"\0" * 1000))
    _png(root / "corrupt.png", 16, 16, body=b"not zlib at all")
    _png(root / "one_pixel.png", 1, 1)
    f["bomb.png"], f["corrupt.png"], f["one_pixel.png"] = (root / "bomb.png", root / "corrupt.png",
                                                            root / "one_pixel.png")
    put("png_named.npy", (root / "one_pixel.png").read_bytes())
    put("truncated.png", (root / "one_pixel.png").read_bytes()[:30])
    put("meta.json", json.dumps({"version": 999}))
    (root / "a_folder").mkdir(exist_ok=True)
    (root / "a_folder" / "x.txt").write_text("hello\n")
    f["a_folder"] = root / "a_folder"
    f["missing"] = root / "does_not_exist.npy"
    f["under_a_file"] = root / "empty.txt" / "child.out"
    f["missing_dir_out"] = root / "no" / "such" / "dir" / "out.bin"
    return f

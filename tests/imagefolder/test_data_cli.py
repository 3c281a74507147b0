"""Loading the user's images (folders, .npz, Fashion-MNIST) and the CLI end to end on a small folder of
PNGs, with its one-line errors (exit 2)."""

import numpy as np
import pytest
from PIL import Image

from iclr25.core.cli import main
from iclr25.core.errors import UserError
from iclr25.imagefolder.data import (
    as_image_array,
    fashion_mnist_available,
    load_fashion_mnist,
    load_images,
)


def _write_pngs(folder, images, labels=None):
    for i, img in enumerate(images):
        d = folder / f"class_{labels[i]}" if labels is not None else folder
        d.mkdir(parents=True, exist_ok=True)
        Image.fromarray((img[0] * 255).round().astype(np.uint8)).save(d / f"{i:04d}.png")
    return folder


@pytest.fixture(scope="module")
def png_dir(tmp_path_factory, digits):
    idx = np.arange(200)
    return _write_pngs(tmp_path_factory.mktemp("pngs"), digits.images[idx], digits.labels[idx])


@pytest.fixture(scope="module")
def models(tmp_path_factory, tiny_tok, digits):
    from iclr25.imagefolder.var import FoldedVAR

    d = tmp_path_factory.mktemp("models")
    tok_path = tiny_tok.save(d / "tok.pt")
    ar = FoldedVAR(tiny_tok, 10, depth=1, width=16).fit(digits.images[:128], digits.labels[:128], epochs=1)
    return tok_path, ar.save(d / "ar.pt")


def test_folder_with_class_subfolders_gives_labels(png_dir, digits):
    data = load_images(png_dir)
    assert data.images.shape == (200, 1, 8, 8) and data.images.dtype == np.float32
    assert data.classes == tuple(f"class_{i}" for i in range(10))
    by_class = np.argsort(digits.labels[:200], kind="stable")  # folders are read class by class
    np.testing.assert_allclose(data.images, np.round(digits.images[:200][by_class] * 255) / 255, atol=1e-6)


def test_npz_with_channels_last_and_uint8(tmp_path):
    x = (np.random.default_rng(0).random((5, 6, 6, 3)) * 255).astype(np.uint8)
    np.savez(tmp_path / "x.npz", images=x, labels=np.arange(5))
    data = load_images(tmp_path / "x.npz")
    assert data.images.shape == (5, 3, 6, 6) and data.labels.tolist() == [0, 1, 2, 3, 4]
    np.testing.assert_allclose(data.images[1, 2], x[1, :, :, 2] / 255, atol=1e-7)


@pytest.mark.parametrize("make, needle", [
    (lambda d: (d / "empty").mkdir(), "no image files"),
    (lambda d: _mixed_sizes(d / "mixed"), "mixed image sizes"),
    (lambda d: np.savez(d / "bad.npz", images=np.zeros((10, 8, 8), np.uint8), labels=np.zeros(9, int)),
     "9 labels for 10 images"),
    (lambda d: np.savez(d / "bad.npz", images=np.full((2, 8, 8), 2.0)), "must lie in [0, 1]"),
    (lambda d: np.savez(d / "bad.npz", images=np.full((2, 8, 8), np.nan)), "NaN"),
    (lambda d: np.savez(d / "bad.npz", pixels=np.zeros((2, 8, 8))), "no 'images' array"),
])
def test_bad_image_input_is_a_one_line_user_error(tmp_path, make, needle):
    make(tmp_path)
    target = next(p for p in tmp_path.iterdir())
    with pytest.raises(UserError) as e:
        load_images(target)
    assert needle in str(e.value) and "\n" not in str(e.value)


def _mixed_sizes(d):
    d.mkdir()
    Image.fromarray(np.zeros((8, 8), np.uint8)).save(d / "a.png")
    Image.fromarray(np.zeros((9, 9), np.uint8)).save(d / "b.png")


def test_as_image_array_rejects_bad_shapes():
    with pytest.raises(UserError, match="expected"):
        as_image_array(np.zeros((4, 4)))


@pytest.mark.skipif(not fashion_mnist_available(),
                    reason="Fashion-MNIST idx files absent: apt-get install dataset-fashion-mnist")
def test_fashion_mnist_from_the_debian_package():
    test = load_fashion_mnist("test")
    assert test.images.shape == (10000, 1, 28, 28) and test.labels.shape == (10000,)
    assert np.bincount(test.labels).tolist() == [1000] * 10
    assert test.images.min() >= 0.0 and test.images.max() <= 1.0


def _run(args, capsys):
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "imagefolder", *args])
    cap = capsys.readouterr()
    return e.value.code, cap.out, cap.err


@pytest.mark.slow
def test_cli_trains_samples_scores_and_reconstructs_a_folder(png_dir, tmp_path, capsys):
    tok, ar = tmp_path / "tok.pt", tmp_path / "ar.pt"
    code, out, err = _run(["train-tokenizer", "--images", str(png_dir), "-o", str(tok), "--patch", "2",
                           "--scales", "1,2,4", "--codebook", "16", "--dim", "4", "--width", "16", "--depth",
                           "1", "--steps", "12", "--batch-size", "50"], capsys)
    assert code == 0, err
    assert "200 images" in out and "PSNR" in out and "the mean image" in out and "12 steps" in out
    assert tok.is_file()
    code, out, err = _run(["train-ar", "--tokenizer", str(tok), "--images", str(png_dir), "-o", str(ar),
                           "--depth", "1", "--width", "16", "--epochs", "1"], capsys)
    assert code == 0, err
    assert "21 positions" in out and "chance ln V = 2.773" in out
    assert "the tokens' own frequencies" in out
    grid = tmp_path / "grid.png"
    code, out, err = _run(["sample", "--tokenizer", str(tok), "--ar", str(ar), "--class", "class_3", "--n",
                           "4",
                           "-o", str(grid), "--npz", str(tmp_path / "s.npz")], capsys)
    assert code == 0, err
    assert "4 samples of class class_3" in out
    z = np.load(tmp_path / "s.npz")
    assert z["images"].shape == (4, 1, 8, 8) and z["labels"].tolist() == [3, 3, 3, 3]
    assert min(Image.open(grid).size) >= 2 * 96  # enlarged: 8x8 images become 96x96 cells
    code, out, err = _run(["sample", "--tokenizer", str(tok), "--ar", str(ar), "--balanced", "--n", "30",
                           "-o", str(grid), "--npz", str(tmp_path / "b.npz")], capsys)
    assert code == 0, err
    assert "30 class-balanced samples (3 per class)" in out
    assert np.bincount(np.load(tmp_path / "b.npz")["labels"]).tolist() == [3] * 10
    code, out, err = _run(["score", "--real", str(png_dir), "--fake", str(tmp_path / "b.npz"), "-o",
                           str(tmp_path / "score.json"), "--epochs", "1"], capsys)
    assert code == 0, err
    assert "FD " in out and "lower is better" in out and "real vs real floor" in out and "chance 0.100" in out
    import json
    got = json.loads((tmp_path / "score.json").read_text())
    assert got["n"] == 30 and got["fd"] >= 0 and "class_consistency" in got
    code, out, err = _run(["reconstruct", "--tokenizer", str(tok), "--images", str(png_dir), "--n-scales",
                           "2", "-o", str(tmp_path / "rec.png")], capsys)
    assert code == 0, err
    assert "2 of 3 scales" in out and "PSNR" in out and "the mean image" in out


def test_cli_sample_by_class_name_and_unknown_names(models, tmp_path, capsys):
    from iclr25.imagefolder.tokenizer import MSRQTokenizer
    from iclr25.imagefolder.var import FoldedVAR

    tok_path, ar_path = models
    tok = MSRQTokenizer.load(tok_path)
    named = FoldedVAR.load(ar_path, tok)
    named.class_names = tuple(f"digit {i}" for i in range(10))
    named.save(tmp_path / "named.pt")
    assert FoldedVAR.load(tmp_path / "named.pt", tok).class_index("DIGIT 7") == 7
    code, out, err = _run(["sample", "--tokenizer", str(tok_path), "--ar", str(tmp_path / "named.pt"),
                           "--class", "digit 7", "--n", "2", "-o", str(tmp_path / "g.png")], capsys)
    assert code == 0 and "class digit 7" in out, err
    code, _, err = _run(["sample", "--tokenizer", str(tok_path), "--ar", str(tmp_path / "named.pt"),
                         "--class", "cat", "-o", str(tmp_path / "g.png")], capsys)
    assert code == 2 and "unknown class 'cat'" in err and "digit 0" in err
    assert len(err.strip().splitlines()) == 1


def test_cli_huge_label_is_a_one_line_error(tmp_path, capsys):
    """Issue #49: a label of 1e9 asked for a 1e9-row teacher head; now it is refused at the door."""
    labels = np.zeros(20, np.int64)
    labels[3] = 1_000_000_000
    np.savez(tmp_path / "x.npz", images=np.zeros((20, 8, 8), np.uint8), labels=labels)
    code, _, err = _run(["train-tokenizer", "--images", str(tmp_path / "x.npz"), "-o", str(tmp_path / "t.pt"),
                         "--patch", "2"], capsys)
    assert code == 2 and "1000000000" in err and "renumber" in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("args, needle", [
    (["--scales", "1,3,2"], "must not decrease"),
    (["--scales", "1,2,3", "--latent-size", "4"], "must equal the latent size K=4"),
    (["--codebook", "1"], "'--codebook'"),
    (["--scales", "1,2,99"], "side <= 16"),
    (["--qdrop", "nan"], "--qdrop must be a finite number"),
    (["--lr", "inf"], "--lr must be a finite number"),
    (["--epochs", "1000000000"], "'--epochs'"),
    (["--semantic", "some"], "--semantic"),
    (["--patch", "3"], "not divisible by patch 3"),
])
def test_cli_train_tokenizer_bad_settings_exit_2(png_dir, tmp_path, capsys, args, needle):
    code, _, err = _run(["train-tokenizer", "--images", str(png_dir), "--out", str(tmp_path / "t.pt"),
                         "--patch", "2", "--epochs", "1", *args], capsys)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and needle in lines[0], err


def test_cli_bad_image_folders_exit_2(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    _mixed_sizes(tmp_path / "mixed")
    np.savez(tmp_path / "bad.npz", images=np.zeros((10, 8, 8), np.uint8), labels=np.zeros(9, int))
    for src, needle in [("empty", "no image files"), ("mixed", "mixed image sizes"),
                        ("bad.npz", "9 labels for 10 images")]:
        code, _, err = _run(["train-tokenizer", "--images", str(tmp_path / src), "--out",
                             str(tmp_path / "t.pt"), "--patch", "2"], capsys)
        assert code == 2 and needle in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("args, needle", [
    (["--class", "10"], "class 10 is out of range"),
    (["--balanced", "--n", "5"], "--n >= the number of classes (10)"),
    (["--top-p", "0"], "--top-p must be a finite number in (0, 1]"),
    (["--top-p", "1.5"], "--top-p must be a finite number in (0, 1]"),
    (["--cfg", "nan"], "--cfg must be a finite number"),
    (["--n", "0"], "'--n'"),
    (["--seed", "-1"], "'--seed'"),
])
def test_cli_sample_bad_input_exit_2(models, tmp_path, capsys, args, needle):
    tok, ar = models
    code, _, err = _run(["sample", "--tokenizer", str(tok), "--ar", str(ar), "--out", str(tmp_path / "g.png"),
                         *args], capsys)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1, err


def test_cli_mismatched_checkpoints_exit_2(models, digits, tmp_path, capsys):
    from iclr25.imagefolder.tokenizer import MSRQTokenizer

    tok, ar = models
    other = MSRQTokenizer(branches=2, scales=(1, 2, 4), codebook=16, dim=4, width=16, depth=1, patch=2,
                          semantic=None, epochs=1, seed=5).fit(digits.images[:64]).save(tmp_path / "o.pt")
    cases = [(other, ar, "mismatched checkpoints"), (ar, ar, "not an ImageFolder tokenizer"),
             (tok, tok, "not an ImageFolder AR checkpoint"), (tmp_path / "none.pt", ar, "not found")]
    for t, a, needle in cases:
        code, _, err = _run(["sample", "--tokenizer", str(t), "--ar", str(a), "--out",
                             str(tmp_path / "g.png")], capsys)
        assert code == 2 and needle in err and len(err.strip().splitlines()) == 1, err


def test_cli_checks_the_output_path_before_training(png_dir, tmp_path, capsys):
    (tmp_path / "file").write_text("")
    cases = [(tmp_path / "file" / "t.pt", "cannot create the folder"), (tmp_path / "t.npz", ".pt")]
    for out, needle in cases:
        code, _, err = _run(["train-tokenizer", "--images", str(png_dir), "--out", str(out)], capsys)
        assert code == 2 and needle in err and len(err.strip().splitlines()) == 1, err


def test_cli_hostile_image_files_exit_2(tmp_path, capsys):
    """A corrupt PNG, a decompression bomb (a header claiming 10^10 pixels) and a complex-valued .npz."""
    import struct
    import zlib

    def png(path, w, h, body):
        def chunk(tag, data):
            return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))
        path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
                         + chunk(b"IDAT", body) + chunk(b"IEND", b""))

    cases = [("corrupt", (8, 8, b"not zlib"), "not a readable image"),
             ("bomb", (100_000, 100_000, zlib.compress(b"\0" * 100)), "pixels")]
    for name, (w, h, body), needle in cases:
        (tmp_path / name).mkdir()
        png(tmp_path / name / "a.png", w, h, body)
        code, _, err = _run(["train-tokenizer", "--images", str(tmp_path / name), "--out",
                             str(tmp_path / "t.pt"), "--semantic", "none"], capsys)
        assert code == 2 and needle in err and len(err.strip().splitlines()) == 1, err
    np.savez(tmp_path / "c.npz", images=np.ones((2, 8, 8), complex))
    code, _, err = _run(["train-tokenizer", "--images", str(tmp_path / "c.npz"), "--out",
                         str(tmp_path / "t.pt"), "--semantic", "none"], capsys)
    assert code == 2 and "real numbers" in err and len(err.strip().splitlines()) == 1, err

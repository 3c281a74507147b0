"""SFT on a user's own PyTorch model (issue #52): load it from a file, adapt only its cores (or a matched
LoRA / subset), and get back the user's own architecture with adapted weights, as a state dict and as
TorchScript; refusals are one line."""

import re
import textwrap

import numpy as np
import pytest
import torch
from torch import nn

from iclr25.core.cli import main
from iclr25.core.errors import UserError
from iclr25.tucker_sfda import UserModel, adapt, load_module, to_dense, tucker_reparameterize
from iclr25.tucker_sfda.adapt import AdaptConfig

NET = textwrap.dedent("""
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Conv1d(3, 16, 5, padding=2), nn.BatchNorm1d(16), nn.ReLU(),
                                      nn.Conv1d(16, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool1d(1),
                                      nn.Flatten())
            self.fc = nn.Linear(16, 2)

        def forward(self, x):
            return self.fc(self.body(x))

    def build():
        return Net()

    def not_a_module():
        return 3
""")


@pytest.fixture(scope="module")
def user(tmp_path_factory):
    d = tmp_path_factory.mktemp("user")
    (d / "mynet.py").write_text(NET)
    rng = np.random.default_rng(0)
    y = np.arange(64) % 2
    X = (rng.normal(size=(64, 3, 32)) + y[:, None, None]).astype(np.float32)
    np.savez(d / "src.npz", X=X, y=y)
    np.savez(d / "target.npz", X=(X[:32] * 1.2 + 0.3).astype(np.float32), y=y[:32])
    torch.manual_seed(0)
    net = load_module(f"{d / 'mynet.py'}:build")
    opt = torch.optim.Adam(net.parameters(), 1e-2)
    for _ in range(30):  # the user's source training
        loss = nn.functional.cross_entropy(net(torch.from_numpy(X)), torch.from_numpy(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.save(net.state_dict(), d / "src_state.pt")
    return d


def test_user_model_exposes_the_heads_input_and_adapts_only_its_cores(user):
    net = load_module(f"{user / 'mynet.py'}:build", user / "src_state.pt")
    model = UserModel(net, channels=3)
    x = torch.randn(4, 3, 32)
    feat, _ = model.extract(x)
    assert feat.shape == (4, 16) and torch.allclose(model.classifier(feat), net(x))
    assert not net.fc._forward_pre_hooks  # no hook outlives the call
    dec = tucker_reparameterize(model, 4)
    X = np.load(user / "target.npz")["X"]
    res = adapt(dec, X, "shot", "core", AdaptConfig(epochs=2, lr=1e-2, batch_size=8))
    assert res.trainable == sum(m.core.weight.numel() for m in dec.modules() if hasattr(m, "core"))
    dense = to_dense(res.model)
    assert [type(m) for m in dense.net.modules()] == [type(m) for m in net.modules()]  # the user's layers
    z = torch.from_numpy(X[:5])
    assert torch.allclose(dense.eval()(z), res.model.eval()(z), atol=1e-5)


def _cli(capsys, *args):
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "tucker_sfda", *args])
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


@pytest.mark.parametrize("tune", ["core", "lora"])
def test_cli_adapts_a_users_model_and_exports_their_architecture(user, tmp_path, capsys, tune):
    state, ts = tmp_path / "adapted.pt", tmp_path / "adapted.ts"
    code, out, err = _cli(capsys, "adapt-model", "--module", f"{user / 'mynet.py'}:build", "--weights",
                          str(user / "src_state.pt"), "--target", str(user / "target.npz"), "--source",
                          str(user / "src.npz"), "--rf", "4", "--tune", tune, "--epochs", "2",
                          "-o", str(state), "--torchscript", str(ts))
    assert code == 0, err
    assert re.search(r"adapted [\d,]+ of [\d,]+ feature-extractor parameters", out)
    assert "macro-F1 on target.npz: source-only" in out and "information-maximisation" in out
    net = load_module(f"{user / 'mynet.py'}:build", state)  # loads into the user's own class
    scripted = torch.jit.load(str(ts))
    x = torch.from_numpy(np.load(user / "target.npz")["X"][:4])
    assert torch.allclose(scripted(x), net.eval()(x), atol=1e-5)
    source = load_module(f"{user / 'mynet.py'}:build", user / "src_state.pt")
    assert not torch.equal(net.body[0].weight, source.body[0].weight)  # adapted
    if tune == "lora":  # no source fine-tuning: the head is the source's (target adaptation freezes it)
        assert torch.equal(net.fc.weight, source.fc.weight)


@pytest.mark.parametrize("args, needle", [
    (["--module", "{d}/mynet.py"], "must be FILE.py:NAME"),
    (["--module", "{d}/model.ts"], "TorchScript file is a compiled graph"),
    (["--module", "{d}/nothere.py:build"], "file not found"),
    (["--module", "{d}/mynet.py:missing"], "has no function or class 'missing'"),
    (["--module", "{d}/mynet.py:not_a_module"], "returned int, expected a torch nn.Module"),
    (["--module", "{d}/mynet.py:build", "--head", "body"], "the head must be an nn.Linear"),
    (["--module", "{d}/mynet.py:build", "--head", "nope"], "no submodule 'nope'"),
    (["--module", "{d}/mynet.py:build", "--weights", "{d}/src.npz"], "is not a state dict"),
    (["--module", "{d}/mynet.py:build", "--method", "mapu"], "choose from shot, shot_im, nrc, aad"),
])
def test_cli_adapt_model_refuses_with_one_line(user, capsys, args, needle):
    code, _, err = _cli(capsys, "adapt-model", "--target", str(user / "target.npz"),
                        *[a.format(d=user) for a in args])
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and needle in lines[0], lines


def test_weights_that_do_not_fit_are_named(user, tmp_path):
    bad = tmp_path / "bad.pt"
    torch.save({"fc.weight": torch.zeros(3, 3)}, bad)
    with pytest.raises(UserError, match="does not fit the model"):
        load_module(f"{user / 'mynet.py'}:build", bad)

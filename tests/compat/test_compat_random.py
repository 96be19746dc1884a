"""A changed output is ``random`` only where values drawn without a seed moved: the same
text with its numbers left out, after an unseeded draw; a seed, JAX's explicit keys, or a
change of text keep it a change."""

from __future__ import annotations

from polybook.drift.randomness import by_chance

BEFORE = "tensor([[ 0.7363, -0.5315]], grad_fn=<AddBackward0>)"
AFTER = "tensor([[-0.5150,  1.6179]], grad_fn=<AddBackward0>)"
LAYER = "net = nn.Sequential(nn.LazyLinear(8))"


def test_values_after_an_unseeded_draw_are_random() -> None:
    assert by_chance("pytorch", [LAYER, "net(X)"], ["changed"], [(BEFORE, AFTER)])
    assert by_chance("tensorflow", ["X = tf.random.uniform((2, 4))"], ["changed"], [("1.5", "2")])


def test_a_seed_before_the_draw_makes_it_a_change() -> None:
    code = ["torch.manual_seed(0)", LAYER, "net(X)"]
    assert not by_chance("pytorch", code, ["changed"], [(BEFORE, AFTER)])


def test_a_changed_text_is_a_change() -> None:
    renamed = (BEFORE, BEFORE.replace("AddBackward0", "AddmmBackward0"))
    assert not by_chance("pytorch", [LAYER], ["changed"], [renamed])
    assert not by_chance("pytorch", [LAYER], ["new-error"], [(BEFORE, AFTER)])


def test_jax_keys_are_seeds_and_numpy_draws_are_not() -> None:
    keyed = ["params = net.init(jax.random.PRNGKey(0), X)", "net.apply(params, X)"]
    assert not by_chance("jax", keyed, ["changed"], [("Array(1.5)", "Array(2.5)")])
    drawn = ["X = d2l.randn((2, 5))", *keyed]
    assert by_chance("jax", drawn, ["changed"], [("Array(1.5)", "Array(2.5)")])

"""The d2l library for JAX, extracted by polybook from the book's #@save code.

Generated file: edit the book's sources instead.
"""

import sys

d2l = sys.modules[__name__]

# chapter_builders-guide/toolkit.md:51
import inspect

# chapter_builders-guide/toolkit.md:52
from dataclasses import field

# chapter_builders-guide/toolkit.md:53
from functools import partial

# chapter_builders-guide/toolkit.md:54
import numpy as np

# chapter_builders-guide/toolkit.md:55
import jax

# chapter_builders-guide/toolkit.md:56
from jax import numpy as jnp

# chapter_builders-guide/toolkit.md:57
from flax import linen as nn

# chapter_builders-guide/toolkit.md:58
from flax.training import train_state

# chapter_builders-guide/toolkit.md:79
def add_to_class(Class):
    """Decorator that installs the decorated function as a method of `Class`."""
    def register(method):
        setattr(Class, method.__name__, method)
        return method
    return register

# chapter_builders-guide/toolkit.md:115
class HyperParameters:
    """Base class whose constructors can store their arguments in one call."""
    def save_hyperparameters(self, ignore=()):
        """Turn the arguments of the calling function into attributes."""
        frame = inspect.currentframe().f_back
        info = inspect.getargvalues(frame)
        self.hparams = {name: info.locals[name] for name in info.args
                        if name != 'self' and name not in ignore
                        and not name.startswith('_')}
        for name, value in self.hparams.items():
            setattr(self, name, value)

# chapter_builders-guide/toolkit.md:157
class ProgressBoard(d2l.HyperParameters):
    """Collects points of named curves and plots them on request."""
    def __init__(self, xlabel=None, ylabel=None, xlim=None, ylim=None,
                 xscale='linear', yscale='linear', figsize=(3.5, 2.5),
                 display=True):
        self.save_hyperparameters()
        self.points = {}  # label -> list of (x, y) as they were added
        self.every = {}   # label -> how many points are merged into one

    def add(self, x, y, label, every_n=1):
        """Record the point (x, y) of the curve `label`."""
        self.points.setdefault(label, []).append((x, y))
        self.every[label] = max(1, int(every_n))

    def curves(self):
        """Return {label: (xs, ys)}, merging every `every_n` points."""
        result = {}
        for label, points in self.points.items():
            n, xs, ys = self.every[label], [], []
            for start in range(0, len(points), n):
                group = points[start:start + n]
                xs.append(group[-1][0])
                ys.append(sum(float(y) for _, y in group) / len(group))
            result[label] = (xs, ys)
        return result

    def draw(self):
        """Plot all curves into a new matplotlib figure and return it."""
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=self.figsize)
        styles = ['-', '--', '-.', ':']
        for i, (label, (xs, ys)) in enumerate(self.curves().items()):
            ax.plot(xs, ys, linestyle=styles[i % len(styles)], label=label)
        ax.set_xscale(self.xscale)
        ax.set_yscale(self.yscale)
        if self.xlim: ax.set_xlim(self.xlim)
        if self.ylim: ax.set_ylim(self.ylim)
        if self.xlabel: ax.set_xlabel(self.xlabel)
        if self.ylabel: ax.set_ylabel(self.ylabel)
        if self.points:  # beside the axes, where it hides no curve
            ax.legend(loc='upper left', bbox_to_anchor=(1.02, 1), borderaxespad=0,
                      frameon=False)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        return fig

    def show(self):
        """Draw the board and display the figure once (if `display`)."""
        if not self.display or not self.points:
            return
        import matplotlib.pyplot as plt
        fig = self.draw()
        try:
            from IPython import get_ipython
        except ImportError:
            get_ipython = lambda: None
        if get_ipython() is None:  # a plain Python script
            plt.show()
        else:  # a notebook: embed the figure as an SVG image
            import io
            from IPython.display import SVG, display
            buffer = io.BytesIO()
            with plt.rc_context({'svg.fonttype': 'none'}):  # text as text
                fig.savefig(buffer, format='svg', bbox_inches='tight')
            display(SVG(buffer.getvalue()))
        plt.close(fig)

# chapter_builders-guide/toolkit.md:368
class Module(nn.Module, d2l.HyperParameters):
    """Base class of the models in this book (a Flax dataclass)."""
    plot_train_per_epoch: int = field(default=2, init=False)
    plot_valid_per_epoch: int = field(default=1, init=False)
    board: d2l.ProgressBoard = field(
        default_factory=lambda: d2l.ProgressBoard(xlabel='epoch'), init=False)

    def loss(self, y_hat, y):
        raise NotImplementedError

    def forward(self, X, *args, **kwargs):
        assert hasattr(self, 'net'), 'define self.net or override forward'
        return self.net(X, *args, **kwargs)

    def __call__(self, X, *args, **kwargs):
        return self.forward(X, *args, **kwargs)

    def plot(self, key, value, train):
        """Record `value` on the board at the current position in training."""
        trainer = self.trainer
        if train:
            x = trainer.train_batch_idx / trainer.num_train_batches
            n = trainer.num_train_batches / self.plot_train_per_epoch
        else:
            x = trainer.epoch + 1
            n = trainer.num_val_batches / self.plot_valid_per_epoch
        label = ('train_' if train else 'val_') + key
        self.board.add(x, value, label, every_n=n)

    def batch_loss(self, params, batch):
        """Loss of the model with parameters `params` on one minibatch."""
        y_hat = self.apply({'params': params}, *batch[:-1])
        return self.loss(y_hat, batch[-1])

    @partial(jax.jit, static_argnums=0)
    def loss_and_grads(self, params, batch):
        return jax.value_and_grad(self.batch_loss)(params, batch)

    @partial(jax.jit, static_argnums=0)
    def eval_loss(self, params, batch):
        return self.batch_loss(params, batch)

    def training_step(self, params, batch):
        l, grads = self.loss_and_grads(params, batch)
        self.plot('loss', l, train=True)
        return l, grads

    def validation_step(self, params, batch):
        l = self.eval_loss(params, batch)
        self.plot('loss', l, train=False)

    def configure_optimizers(self):
        raise NotImplementedError

# chapter_builders-guide/toolkit.md:545
class _ArrayLoader:
    """Iterate over minibatches of host arrays, reshuffling at every pass."""
    def __init__(self, arrays, batch_size, shuffle):
        self.arrays, self.batch_size, self.shuffle = arrays, batch_size, shuffle
        self.num_examples = len(arrays[0])

    def __len__(self):
        return -(-self.num_examples // self.batch_size)  # rounded up

    def __iter__(self):
        order = np.arange(self.num_examples)
        if self.shuffle:
            np.random.shuffle(order)
        for start in range(0, self.num_examples, self.batch_size):
            idx = order[start:start + self.batch_size]
            yield tuple(a[idx] for a in self.arrays)

# chapter_builders-guide/toolkit.md:562
class DataModule(d2l.HyperParameters):
    """Base class of the data sets in this book."""
    def __init__(self, root='../data', num_workers=0):
        self.save_hyperparameters()

    def get_dataloader(self, train):
        raise NotImplementedError

    def train_dataloader(self):
        return self.get_dataloader(train=True)

    def val_dataloader(self):
        return self.get_dataloader(train=False)

    def get_tensorloader(self, tensors, train, indices=slice(0, None)):
        arrays = tuple(np.asarray(a[indices]) for a in tensors)
        return d2l._ArrayLoader(arrays, self.batch_size, shuffle=train)

# chapter_builders-guide/toolkit.md:651
class SyntheticRegressionData(d2l.DataModule):
    """Examples of a known linear function plus Gaussian noise."""
    def __init__(self, w, b, noise=0.01, num_train=1000, num_val=1000,
                 batch_size=32, seed=0):
        super().__init__()
        self.save_hyperparameters()
        n = num_train + num_val
        key_x, key_eps = jax.random.split(jax.random.PRNGKey(seed))
        self.X = jax.random.normal(key_x, (n, len(w)))
        eps = jax.random.normal(key_eps, (n, 1)) * noise
        self.y = self.X @ w.reshape((-1, 1)) + b + eps

    def get_dataloader(self, train):
        i = slice(0, self.num_train) if train else slice(self.num_train, None)
        return self.get_tensorloader((self.X, self.y), train, i)

# chapter_builders-guide/toolkit.md:844
class Trainer(d2l.HyperParameters):
    """Fits a Module to a DataModule."""
    def prepare_data(self, data):
        self.train_dataloader = data.train_dataloader()
        self.val_dataloader = data.val_dataloader()
        self.num_train_batches = len(self.train_dataloader)
        self.num_val_batches = (len(self.val_dataloader)
                                if self.val_dataloader is not None else 0)

    def fit(self, model, data, key=None):
        self.prepare_data(data)
        self.optim = model.configure_optimizers()
        self.prepare_model(model, key)
        self.epoch = self.train_batch_idx = self.val_batch_idx = 0
        for epoch in range(self.max_epochs):
            self.epoch = epoch
            self.fit_epoch()
        model.board.show()

    def fit_epoch(self):
        for batch in self.train_dataloader:
            _, grads = self.model.training_step(self.state.params,
                                                self.prepare_batch(batch))
            if self.gradient_clip_val > 0:
                grads = self.clip_gradients(self.gradient_clip_val, grads)
            self.state = self.state.apply_gradients(grads=grads)
            self.train_batch_idx += 1
        if self.val_dataloader is None:
            return
        for batch in self.val_dataloader:
            self.model.validation_step(self.state.params,
                                       self.prepare_batch(batch))
            self.val_batch_idx += 1

    def clip_gradients(self, max_norm, grads):
        leaves = jax.tree_util.tree_leaves(grads)
        norm = jnp.sqrt(sum(jnp.sum(g ** 2) for g in leaves))
        scale = jnp.minimum(1.0, max_norm / (norm + 1e-6))
        return jax.tree_util.tree_map(lambda g: g * scale, grads)

    # chapter_builders-guide/use-gpu.md:392
    def __init__(self, max_epochs, num_gpus=0, gradient_clip_val=0):
        self.save_hyperparameters()
        self.gpus = [d2l.gpu(i) for i in range(min(num_gpus, d2l.num_gpus()))]

    # chapter_builders-guide/use-gpu.md:469
    def prepare_batch(self, batch):
        device = self.gpus[0] if self.gpus else d2l.cpu()
        return [d2l.to(a, device) for a in batch]

    # chapter_builders-guide/use-gpu.md:474
    def prepare_model(self, model, key=None):
        model.trainer = self
        model.board.xlim = [0, self.max_epochs]
        self.model = model
        if key is None:
            key = jax.random.PRNGKey(0)
        first = next(iter(self.train_dataloader))
        params = model.init(key, *first[:-1])['params']
        device = self.gpus[0] if self.gpus else d2l.cpu()
        self.state = train_state.TrainState.create(
            apply_fn=model.apply, params=d2l.to(params, device), tx=self.optim)

# chapter_builders-guide/toolkit.md:1036
class SGD(d2l.HyperParameters):
    """Minibatch stochastic gradient descent as an Optax-style optimizer."""
    def __init__(self, lr):
        self.save_hyperparameters()

    def init(self, params):
        return ()

    def update(self, grads, state, params=None):
        updates = jax.tree_util.tree_map(lambda g: -self.lr * g, grads)
        return updates, state

# chapter_builders-guide/toolkit.md:1107
class LinearRegression(d2l.Module):
    """Linear regression built on a fully connected layer."""
    lr: float

    def setup(self):
        self.net = nn.Dense(1)

    def loss(self, y_hat, y):
        return ((y_hat - y) ** 2).mean()

    def configure_optimizers(self):
        return d2l.SGD(self.lr)

    def get_w_b(self, state):
        params = state.params['net']
        return params['kernel'], params['bias']

# chapter_builders-guide/toolkit.md:1200
def cpu():
    """The CPU device."""
    return jax.devices('cpu')[0]

# chapter_builders-guide/toolkit.md:1204
def gpu(i=0):
    """GPU number `i` (raises an error if there is no such GPU)."""
    return jax.devices('gpu')[i]

# chapter_builders-guide/toolkit.md:1208
def num_gpus():
    """The number of GPUs available."""
    try:
        return len(jax.devices('gpu'))
    except RuntimeError:  # JAX has no GPU backend on this machine
        return 0

# chapter_builders-guide/toolkit.md:1215
def try_gpu(i=0):
    """GPU number `i` if it exists, otherwise the CPU."""
    return d2l.gpu(i) if d2l.num_gpus() > i else d2l.cpu()

# chapter_builders-guide/toolkit.md:1219
def try_all_gpus():
    """All available GPUs, or the CPU alone if there are none."""
    return [d2l.gpu(i) for i in range(d2l.num_gpus())] or [d2l.cpu()]

# chapter_builders-guide/toolkit.md:1325
def tensor(data, device=None):
    return jnp.array(data, device=device)

# chapter_builders-guide/toolkit.md:1328
def ones(shape, device=None):
    return jnp.ones(shape, device=device)

# chapter_builders-guide/toolkit.md:1331
def zeros(shape, device=None):
    return jnp.zeros(shape, device=device)

# chapter_builders-guide/toolkit.md:1334
def randn(shape, device=None):
    """Samples from the standard normal distribution (a fresh key each call)."""
    key = jax.random.PRNGKey(np.random.randint(2 ** 31 - 1))
    with jax.default_device(device):
        return jax.device_put(jax.random.normal(key, shape), device)

# chapter_builders-guide/toolkit.md:1340
def to(x, device):
    """`x` on `device`."""
    return jax.device_put(x, device)

# chapter_builders-guide/toolkit.md:1344
def device_of(x):
    return x.device

# chapter_builders-guide/toolkit.md:1347
def to_numpy(x):
    return np.asarray(x)

# chapter_builders-guide/toolkit.md:1350
def sync(x):
    """Wait until `x` has been computed; return `x`."""
    return x.block_until_ready()

"""The d2l library for PyTorch, extracted by polybook from the book's #@save code.

Generated file: edit the book's sources instead.
"""

import sys

d2l = sys.modules[__name__]

# chapter_builders-guide/toolkit.md:33
import inspect

# chapter_builders-guide/toolkit.md:34
import torch

# chapter_builders-guide/toolkit.md:35
from torch import nn

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

# chapter_builders-guide/toolkit.md:286
class Module(nn.Module, d2l.HyperParameters):
    """Base class of the models in this book."""
    def __init__(self, plot_train_per_epoch=2, plot_valid_per_epoch=1):
        super().__init__()
        self.save_hyperparameters()
        self.board = d2l.ProgressBoard(xlabel='epoch')

    def loss(self, y_hat, y):
        raise NotImplementedError

    def forward(self, X):
        assert hasattr(self, 'net'), 'define self.net or override forward'
        return self.net(X)

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
        self.board.add(x, value.detach(), label, every_n=n)

    def training_step(self, batch):
        l = self.loss(self(*batch[:-1]), batch[-1])
        self.plot('loss', l, train=True)
        return l

    def validation_step(self, batch):
        l = self.loss(self(*batch[:-1]), batch[-1])
        self.plot('loss', l, train=False)

    def configure_optimizers(self):
        raise NotImplementedError

# chapter_builders-guide/toolkit.md:500
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
        tensors = tuple(a[indices] for a in tensors)
        dataset = torch.utils.data.TensorDataset(*tensors)
        return torch.utils.data.DataLoader(dataset, self.batch_size,
                                           shuffle=train)

# chapter_builders-guide/toolkit.md:615
class SyntheticRegressionData(d2l.DataModule):
    """Examples of a known linear function plus Gaussian noise."""
    def __init__(self, w, b, noise=0.01, num_train=1000, num_val=1000,
                 batch_size=32):
        super().__init__()
        self.save_hyperparameters()
        n = num_train + num_val
        self.X = torch.randn(n, len(w))
        eps = torch.randn(n, 1) * noise
        self.y = self.X @ w.reshape((-1, 1)) + b + eps

    def get_dataloader(self, train):
        i = slice(0, self.num_train) if train else slice(self.num_train, None)
        return self.get_tensorloader((self.X, self.y), train, i)

# chapter_builders-guide/toolkit.md:732
class Trainer(d2l.HyperParameters):
    """Fits a Module to a DataModule."""
    def prepare_data(self, data):
        self.train_dataloader = data.train_dataloader()
        self.val_dataloader = data.val_dataloader()
        self.num_train_batches = len(self.train_dataloader)
        self.num_val_batches = (len(self.val_dataloader)
                                if self.val_dataloader is not None else 0)

    def fit(self, model, data):
        self.prepare_data(data)
        self.prepare_model(model)
        self.optim = model.configure_optimizers()
        self.epoch = self.train_batch_idx = self.val_batch_idx = 0
        for epoch in range(self.max_epochs):
            self.epoch = epoch
            self.fit_epoch()
        model.board.show()

    def fit_epoch(self):
        self.model.train()
        for batch in self.train_dataloader:
            loss = self.model.training_step(self.prepare_batch(batch))
            self.optim.zero_grad()
            loss.backward()
            if self.gradient_clip_val > 0:
                self.clip_gradients(self.gradient_clip_val, self.model)
            self.optim.step()
            self.train_batch_idx += 1
        if self.val_dataloader is None:
            return
        self.model.eval()
        with torch.no_grad():
            for batch in self.val_dataloader:
                self.model.validation_step(self.prepare_batch(batch))
                self.val_batch_idx += 1

    def clip_gradients(self, max_norm, model):
        nn.utils.clip_grad_norm_(model.parameters(), max_norm)

    # chapter_builders-guide/use-gpu.md:392
    def __init__(self, max_epochs, num_gpus=0, gradient_clip_val=0):
        self.save_hyperparameters()
        self.gpus = [d2l.gpu(i) for i in range(min(num_gpus, d2l.num_gpus()))]

    # chapter_builders-guide/use-gpu.md:423
    def prepare_batch(self, batch):
        if self.gpus:
            batch = [d2l.to(a, self.gpus[0]) for a in batch]
        return batch

    # chapter_builders-guide/use-gpu.md:429
    def prepare_model(self, model):
        model.trainer = self
        model.board.xlim = [0, self.max_epochs]
        if self.gpus:
            model.to(self.gpus[0])
        self.model = model

# chapter_builders-guide/toolkit.md:997
class SGD(d2l.HyperParameters):
    """Minibatch stochastic gradient descent, written by hand."""
    def __init__(self, params, lr):
        self.save_hyperparameters(ignore=['params'])
        self.params = list(params)

    def step(self):
        with torch.no_grad():
            for p in self.params:
                if p.grad is not None:
                    p -= self.lr * p.grad

    def zero_grad(self):
        for p in self.params:
            if p.grad is not None:
                p.grad.zero_()

# chapter_builders-guide/toolkit.md:1068
class LinearRegression(d2l.Module):
    """Linear regression built on a fully connected layer."""
    def __init__(self, lr):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.LazyLinear(1)

    def loss(self, y_hat, y):
        return ((y_hat - y) ** 2).mean()

    def configure_optimizers(self):
        return d2l.SGD(self.parameters(), self.lr)

    def get_w_b(self):
        return self.net.weight.data, self.net.bias.data

# chapter_builders-guide/toolkit.md:1154
def cpu():
    """The CPU device."""
    return torch.device('cpu')

# chapter_builders-guide/toolkit.md:1158
def gpu(i=0):
    """GPU number `i` (the device need not exist)."""
    return torch.device(f'cuda:{i}')

# chapter_builders-guide/toolkit.md:1162
def num_gpus():
    """The number of GPUs available."""
    return torch.cuda.device_count()

# chapter_builders-guide/toolkit.md:1166
def try_gpu(i=0):
    """GPU number `i` if it exists, otherwise the CPU."""
    return d2l.gpu(i) if d2l.num_gpus() > i else d2l.cpu()

# chapter_builders-guide/toolkit.md:1170
def try_all_gpus():
    """All available GPUs, or the CPU alone if there are none."""
    return [d2l.gpu(i) for i in range(d2l.num_gpus())] or [d2l.cpu()]

# chapter_builders-guide/toolkit.md:1262
def tensor(data, device=None):
    return torch.tensor(data, device=device)

# chapter_builders-guide/toolkit.md:1265
def ones(shape, device=None):
    return torch.ones(shape, device=device)

# chapter_builders-guide/toolkit.md:1268
def zeros(shape, device=None):
    return torch.zeros(shape, device=device)

# chapter_builders-guide/toolkit.md:1271
def randn(shape, device=None):
    """Samples from the standard normal distribution."""
    return torch.randn(shape, device=device)

# chapter_builders-guide/toolkit.md:1275
def to(x, device):
    """`x` on `device` (`x` itself if it is already there)."""
    return x.to(device)

# chapter_builders-guide/toolkit.md:1279
def device_of(x):
    return x.device

# chapter_builders-guide/toolkit.md:1282
def to_numpy(x):
    return x.detach().cpu().numpy()

# chapter_builders-guide/toolkit.md:1285
def sync(x):
    """Wait until `x` has been computed; return `x`."""
    if x.device.type == 'cuda':
        torch.cuda.synchronize(x.device)
    return x

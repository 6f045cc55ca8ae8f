"""
The small convolutional network both of this project's texture networks are made of (the
selfie's, scripts/train-texture-net.py, and the document's, scripts/train-document-medium-net.py),
and the conversion of HWC uint8 patches to its input. Imported by those scripts only.

Four 3x3 convolutions (32, 32, 64, 64 channels, the last three with stride 2, ReLU), the mean over
the last map, one linear layer: one logit a patch (outputs=1, squeezed) or one per class.
"""
import sys
import numpy as np
import torch
from torch import nn


class TextureNet(nn.Module):
    def __init__(self, outputs=1):
        super().__init__()
        self.outputs = outputs
        self.body = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(),
            nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(64, 64, 3, stride=2, padding=1), nn.ReLU(),
        )
        self.head = nn.Linear(64, outputs)

    def forward(self, x):
        # x: N x 3 x H x W, values 0..255 (the normalisation is part of the network, so the
        # engine feeds raw pixel values).
        x = (x - 128.0) / 64.0
        y = self.head(self.body(x).mean(dim=(2, 3)))
        return y.squeeze(1) if self.outputs == 1 else y


def to_tensor(patches):
    """N x H x W x 3 uint8 patches to the network's N x 3 x H x W floats."""
    return torch.from_numpy(np.ascontiguousarray(patches.transpose(0, 3, 1, 2))).float()


def run_epoch(net, opt, sched, loss_fn, xs, ys, ws, rng, label, batch=256):
    """One epoch: a pass over these patches (labels ys, weights ws) in an order drawn from rng, in
    batches, then the learning rate's step; prints the mean weighted loss after `label`."""
    order = rng.permutation(len(xs))
    X = to_tensor(np.stack(xs)[order])
    Y = torch.tensor(np.array(ys)[order])
    W = torch.tensor(np.array(ws, dtype=np.float32)[order])
    net.train()
    total = 0.0
    for b in range(0, len(order), batch):
        opt.zero_grad()
        loss = (loss_fn(net(X[b:b + batch]), Y[b:b + batch]) * W[b:b + batch]).mean()
        loss.backward()
        opt.step()
        total += loss.item() * min(batch, len(order) - b)
    sched.step()
    print(f'    epoch {label} loss {total / len(order):.4f}', file=sys.stderr, flush=True)

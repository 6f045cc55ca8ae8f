"""
Trains the texture network of the still's medium judgement
(packages/engine/src/faces/medium/texture-net.ts) on the TRAINING half of bench:pad's set only,
and scores every crop for the model's refit (scripts/fit-pad-model.ts, PAD_TEXTURE_SCORES).

Input: the directory scripts/pad-texture-crops.ts wrote (its index-*.json and crops/*.png: each
still's texture window, texture-window.ts). Output, in that directory: scores.json (each
still's id and its texture logit) and texture-net.onnx (the network trained on the whole
training half), which is committed as packages/engine/models/texture-net/texture-net.onnx.

The network: four 3x3 convolutions (32, 32, 64, 64 channels, the last three with stride 2,
ReLU), the mean over the 4x4 map, one linear output: the log-odds that a 32x32 patch of the face
at its own resolution is a screen or a print. About 66,000 weights. Chosen on the training half's
held-out folds (the rates this script prints first) against half the width and 24 epochs: at
the same bona fide rates (2.4% of photos, 3.2% of the control, 0 of NUAA's live frames), the
wider network trained 40 epochs let 10% of generated prints and 2.7% of generated screens
through instead of 21.9% and 8%, and 56% of NUAA's prints instead of 50% (alone; the model
combines it with the other measures). A still's logit is the mean
over a 4x4 grid of patches of its window (the same grid the engine reads).

Training: patches drawn at random places in the windows (8 a still an epoch), mirrored at random;
every species weighted alike within its side, the attack side as much as the bona fide side
(as the model's own fit does): bona fide photos, the generated control (the same photos filmed
by the same simulated camera: without it the network could learn the simulator's camera alone),
NUAA's live frames; generated screens, prints and documents held as the selfie, NUAA's prints.
Never the reported half, never the clips, never the news re-captures.

The training half's own scores, which the logistic model is fitted on, come from four networks
each trained without one quarter of the training half's people and scoring that quarter (cross-
fitting): a network's scores on the stills it was trained on are more confident than on new
ones, and a model fitted on those would lean on it too much. The reported half and the clips are
scored by the network trained on the whole training half, the one the engine runs.

Needs Debian's python3-torch, python3-numpy and python3-pil (/usr/bin/python3; the machine's
registries have no PyPI). Run: /usr/bin/python3 scripts/train-texture-net.py <dir>.
Deterministic: seeded, one thread order.
"""
import hashlib, json, sys, os
import numpy as np
import torch
from torch import nn
from PIL import Image
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from texture_net import TextureNet, run_epoch, to_tensor  # noqa: E402

PATCH = 32
GRID = 4
EPOCHS = 40
PER_STILL = 8
BONA_FIDE = ['bona_fide_photos', 'generated_bona_fide', 'bona_fide_pad_dev']
ATTACK = ['generated_screen', 'generated_print', 'generated_document_as_selfie', 'pad_dev_print']
torch.set_num_threads(2)


def grid(side):
    return [round(k * (side - PATCH) / (GRID - 1)) for k in range(GRID)]


def grid_patches(img):
    s = img.shape[0]
    return np.stack([img[y:y + PATCH, x:x + PATCH] for y in grid(s) for x in grid(s)])


def fold_of(person):
    return hashlib.sha256(('fold:' + person).encode()).digest()[0] % 4


def train(items, seed):
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = TextureNet()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, EPOCHS)
    counts = {}
    for it in items:
        counts[it['species']] = counts.get(it['species'], 0) + 1
    side_species = {True: [s for s in ATTACK if s in counts], False: [s for s in BONA_FIDE if s in counts]}
    weight = {s: 1.0 / (len(side_species[a]) * counts[s]) for a in (True, False) for s in side_species[a]}
    w_all = np.array([weight[it['species']] for it in items])
    w_all = w_all / w_all.mean()
    y_all = np.array([1.0 if it['attack'] else 0.0 for it in items], dtype=np.float32)
    loss_fn = nn.BCEWithLogitsLoss(reduction='none')
    for epoch in range(EPOCHS):
        xs, ys, ws = [], [], []
        for k, it in enumerate(items):
            img = it['img']
            s = img.shape[0]
            for _ in range(PER_STILL):
                y0, x0 = rng.integers(0, s - PATCH + 1, size=2)
                p = img[y0:y0 + PATCH, x0:x0 + PATCH]
                if rng.random() < 0.5:
                    p = p[:, ::-1]
                xs.append(p)
                ys.append(y_all[k])
                ws.append(w_all[k])
        run_epoch(net, opt, sched, loss_fn, xs, ys, ws, rng, f'{epoch + 1}/{EPOCHS}')
    net.eval()
    return net


def score(net, items):
    with torch.no_grad():
        return {it['id']: float(net(to_tensor(grid_patches(it['img']))).mean()) for it in items}


def by_species(items, scores):
    by = {}
    for it in items:
        by.setdefault(it['species'], []).append(scores[it['id']])
    return by


def threshold(items, scores):
    """The threshold keeping 97% of every bona fide species of these items under it."""
    by = by_species(items, scores)
    return max(np.quantile(by[s], 0.97) for s in BONA_FIDE if s in by)


def rates(items, scores, label, t):
    """Each species' error rate at the threshold t (the network alone; the refit decides how it is used)."""
    by = by_species(items, scores)
    out = {s: round(float(np.mean([v < t if s in ATTACK or s in ('real_screen_replay', 'news_recapture') else v >= t for v in vals])), 3) for s, vals in sorted(by.items())}
    print(f'  {label}: threshold {t:.3f} {json.dumps(out)}', file=sys.stderr)


def main():
    root = sys.argv[1]
    # Every index the crops script wrote here (one a run: index-h012.json, or index-h0.json and index-h12.json).
    index = [it for name in sorted(os.listdir(root)) if name.startswith('index') and name.endswith('.json')
             for it in json.load(open(os.path.join(root, name)))]
    for it in index:
        it['img'] = np.asarray(Image.open(os.path.join(root, it['file'])).convert('RGB'))
    train_items = [it for it in index if it['half'] == 0 and it['species'] in BONA_FIDE + ATTACK]
    print(f'{len(index)} crops, {len(train_items)} in the training half', file=sys.stderr)
    scores = {}
    for fold in range(4):
        fit = [it for it in train_items if fold_of(it['person']) != fold]
        held = [it for it in train_items if fold_of(it['person']) == fold]
        print(f'  fold {fold}: {len(fit)} to fit, {len(held)} held out', file=sys.stderr)
        scores.update(score(train(fit, 1000 + fold), held))
    t = threshold(train_items, scores)
    rates(train_items, scores, 'training half, held-out folds', t)
    net = train(train_items, 7)
    others = [it for it in index if it['half'] != 0 or it['species'] not in BONA_FIDE + ATTACK]
    final = score(net, others)
    rates([it for it in others if it['half'] != 0], final, 'reported half and clips, at the held-out folds\' threshold', t)
    scores.update(final)
    json.dump([{'id': k, 'logit': round(v, 4)} for k, v in scores.items()], open(os.path.join(root, 'scores.json'), 'w'))
    torch.onnx.export(net, torch.zeros(GRID * GRID, 3, PATCH, PATCH), os.path.join(root, 'texture-net.onnx'),
                      input_names=['patches'], output_names=['logits'], dynamic_axes={'patches': {0: 'n'}, 'logits': {0: 'n'}}, opset_version=13)
    # A check the engine's test repeats: the first reported crop's logit.
    print(json.dumps({'check': {'id': others[0]['id'], 'file': others[0]['file'], 'logit': round(final[others[0]['id']], 4)}}))


main()

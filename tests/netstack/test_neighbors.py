import numpy as np

from netstack.fast.neighbors import CellIndex


def cloud(n, spread, seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(-spread, spread, size=(n, 3)) * (1, 1, 0.2)


def test_cell_index_candidates_cover_everyone_in_range():
    pos = cloud(5000, 200, 1)
    idx = CellIndex(pos, 15.0)
    for i in (0, 17, 4999):
        d = np.linalg.norm(pos - pos[i], axis=1)
        assert set(np.nonzero(d <= 15.0)[0]) <= set(idx.candidates(pos[i]).tolist())

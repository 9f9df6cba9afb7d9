"""Grasp quality benchmark: the Ferrari–Canny epsilon against scipy's ConvexHull; Markdown.

    python benchmarks/bench_epsilon.py [--contacts 4 8 16 32] [--grasps 1000]

Random grasps: contacts on a 5 cm sphere about the centre of mass, pushing along the
inward normal, friction 0.5 with 8-edge cones, torques divided by the radius. For each
contact count: milliseconds per evaluation of the L1 epsilon by ``core.quality``
(``epsilon``: the expanding polytope, compiled with numba) and by the reference in the
tests (``test/epsilon_reference.py``: scipy's ConvexHull of every wrench), on the same
grasps in the same run, and their ratio; each as the calling thread's CPU time (what the
evaluation costs; the target) and as wall time (on a shared machine also the waits for a
core); the L∞ epsilon's time (its reference, the hull
of the Minkowski sum, is out of reach beyond a few contacts). Then the largest relative
difference of the two L1 values over ``--grasps`` random grasps of 4 to 16 contacts.
"""

import argparse
from pathlib import Path
import platform
import sys
import time

try:
    import grasp_monitor  # noqa: F401
except ImportError:  # a checkout that is not installed: use its src/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'test'))

from grasp_monitor.core.threads import limit_to_one_thread  # noqa: E402, I100
limit_to_one_thread()

from epsilon_reference import epsilon_l1, random_grasp  # noqa: E402, I100
from grasp_monitor.core.quality import contact_wrenches, epsilon  # noqa: E402
import numba  # noqa: E402
import numpy as np  # noqa: E402
import scipy  # noqa: E402

RADIUS_M = 0.05
FRICTION = 0.5
EDGES = 8


def grasps(rng, contacts, count):
    """Return ``count`` random grasps' (contacts, 8, 6) wrenches."""
    return [contact_wrenches(*random_grasp(rng, contacts, RADIUS_M), FRICTION, EDGES, 0.0,
                             RADIUS_M) for _ in range(count)]


def per_call_ms(function, cases):
    """Return the mean and largest CPU time, and the mean wall time, of a call, ms."""
    cpu, wall = [], []
    for case in cases:
        start, start_cpu = time.perf_counter(), time.thread_time()
        function(case)
        cpu.append(time.thread_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    return 1e3 * float(np.mean(cpu)), 1e3 * float(np.max(cpu)), 1e3 * float(np.mean(wall))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--contacts', type=int, nargs='+', default=[4, 8, 16, 32])
    parser.add_argument('--grasps', type=int, default=1000,
                        help='random grasps the values are compared on')
    parser.add_argument('--timed', type=int, default=50, help='grasps timed per row')
    args = parser.parse_args()
    rng = np.random.default_rng(23)
    epsilon(grasps(rng, 4, 1)[0], 'l1')  # compile (or load numba's cache) first
    epsilon(grasps(rng, 4, 1)[0], 'linf')
    rows = []
    for contacts in args.contacts:
        cases = grasps(rng, contacts, args.timed)
        fast = per_call_ms(lambda w: epsilon(w, 'l1'), cases)
        reference = per_call_ms(epsilon_l1, cases)
        linf = per_call_ms(lambda w: epsilon(w, 'linf'), cases[:max(3, args.timed // 5)])
        rows.append((contacts, fast, reference, linf))
    worst, worst_case, closed = 0.0, None, 0
    sizes = [c for c in (4, 8, 16) if c in args.contacts] or args.contacts[:1]
    for index in range(args.grasps):
        contacts = sizes[index % len(sizes)]
        wrenches = grasps(rng, contacts, 1)[0]
        expected = epsilon_l1(wrenches)
        value = epsilon(wrenches, 'l1')[0]
        closed += expected > 0
        difference = abs(value - expected) / expected if expected > 0 else abs(value)
        if difference >= worst:
            worst, worst_case = difference, contacts
    print('### Grasp quality: Ferrari–Canny epsilon (`benchmarks/bench_epsilon.py`)')
    print()
    print(f'Random grasps on a {100 * RADIUS_M:.0f} cm sphere, friction {FRICTION}, '
          f'{EDGES}-edge cones, point contacts; ms per evaluation over {args.timed} grasps '
          'per row, one thread: CPU time, mean (largest), then wall time, mean.')
    print()
    print('| contacts × edges | L1, expanding polytope | L1, ConvexHull reference | '
          'speed-up (CPU) | L∞, expanding polytope | ≤ 1 ms (L1, CPU) |')
    print('|---|---|---|---|---|---|')
    for contacts, fast, reference, linf in rows:
        print(f'| {contacts} × {EDGES} | {fast[0]:.3f} ({fast[1]:.3f}), wall {fast[2]:.3f} | '
              f'{reference[0]:.2f} ({reference[1]:.2f}), wall {reference[2]:.2f} | '
              f'{reference[0] / fast[0]:.0f}× | {linf[0]:.2f} ({linf[1]:.2f}) | '
              f'{"yes" if fast[0] <= 1.0 else "no"} |')
    print()
    print(f'Largest relative difference of the L1 epsilon from the reference over '
          f'{args.grasps} random grasps of {", ".join(map(str, sizes))} contacts '
          f'({closed} in force closure): {worst:.1e} (at {worst_case} contacts; target < 1 %).')
    print(f'numpy {np.__version__}, scipy {scipy.__version__}, numba {numba.__version__}, '
          f'Python {platform.python_version()}.')


if __name__ == '__main__':
    main()

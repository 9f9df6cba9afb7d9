"""Tactile force distribution: vectorised TactilePad against a per-contact Python loop.

Two pads of 960 taxels each (spread_linear, force_vector, 5 mm resolution)
squeeze a 4 x 4 wall of cubes: 128 pad contacts per sample. Both
implementations run in this process on the same samples and must agree to
1e-9 of the largest value:

* vectorised: ``TactilePad.compute`` per pad (after ``extract_contacts``
  once, on the path from MjData);
* loop: the straightforward way, one contact at a time: pick the pad, flip,
  rotate into the pad frame, distance to every taxel, linear weights,
  accumulate (with ``mj_contactForce`` per contact on the path from MjData).

Each implementation makes REPEATS passes over every sample and each sample
counts its fastest pass (timeit's rule, per sample), which keeps the other
processes of a shared machine out of the figure. Passes from MjData rebuild
the sample with ``mj_forward`` first (not timed), as a simulator step would.

    python benchmarks/bench_tactile.py [--samples 200]
"""

import argparse
import math
import platform
import time

from grasp_monitor.core.tactile import TactileConfig, TactilePad
from grasp_monitor.core.tactile.geom_taxels import pad_layout
from grasp_monitor.sim.contacts import extract_contacts, geom_shapes
import mujoco
import numpy as np

RESOLUTION_M = 0.005
GRID = 4
CUBE_HALF_M = 0.01
SQUEEZE_N = 60.0
TARGET_RATIO = 20.0
REPEATS = 5
STATE_FIELDS = ('qpos', 'qvel', 'qacc_warmstart', 'ctrl')


def scene_xml() -> str:
    """Return two pads on slides along y pressing a GRID x GRID wall of cubes."""
    cubes = []
    for row in range(GRID):
        for column in range(GRID):
            x = (column - (GRID - 1) / 2) * 0.024
            z = 0.5 + (row - (GRID - 1) / 2) * 0.024
            cubes.append(
                f'<body name="cube_{row}_{column}" pos="{x} 0 {z}"><freejoint/>'
                f'<geom type="box" size="{CUBE_HALF_M} {CUBE_HALF_M} {CUBE_HALF_M}" '
                'mass="0.05"/></body>')
    pads = []
    for side, sign in (('left', -1), ('right', 1)):
        y = sign * (CUBE_HALF_M + 0.005)
        pads.append(
            f'<body name="{side}_pad" pos="0 {y} 0.5"><joint name="{side}" type="slide" '
            f'axis="0 {-sign} 0" damping="20"/>'
            '<geom type="box" size="0.05 0.005 0.05" mass="0.5"/></body>')
    actuators = ''.join(f'<motor joint="{side}" gear="1"/>' for side in ('left', 'right'))
    return ('<mujoco><option timestep="0.002" gravity="0 0 -9.81" cone="pyramidal"/>'
            f'<worldbody>{"".join(pads)}{"".join(cubes)}</worldbody>'
            f'<actuator>{actuators}</actuator></mujoco>')


class LoopPads:
    """The straightforward per-contact implementation of the same distribution."""

    def __init__(self, pads: list[TactilePad]) -> None:
        self.pads = pads
        self.geom_sets = [{int(g) for g in pad.geom_ids} for pad in pads]
        self.force6 = np.zeros(6)

    def _add(self, values, pad, sign, force_in_contact, frame, position, rotation,
             point_in_world) -> None:
        force_in_pad = rotation.T @ (sign * force_in_contact @ frame)
        point_in_pad = rotation.T @ (point_in_world - position)
        distance = np.linalg.norm(pad.positions_in_pad - point_in_pad, axis=1)
        weights = np.maximum(0.0, 1.0 - distance / pad.spread_radius_m)
        total = weights.sum()
        if total == 0.0:
            weights[np.argmin(distance)] = 1.0
            total = 1.0
        values += np.outer(weights / total, force_in_pad)

    def _pick(self, geom1: int, geom2: int):
        for index, geoms in enumerate(self.geom_sets):
            if (geom1 in geoms) != (geom2 in geoms):
                yield index, (1.0 if geom2 in geoms else -1.0)

    def from_data(self, model, data, poses) -> list[np.ndarray]:
        """Return values per pad, reading MjData one contact at a time."""
        values = [np.zeros((len(pad.layout), 3)) for pad in self.pads]
        for i in range(data.ncon):
            contact = data.contact[i]
            if contact.efc_address < 0:
                continue
            picked = list(self._pick(int(contact.geom1), int(contact.geom2)))
            if not picked:
                continue
            mujoco.mj_contactForce(model, data, i, self.force6)
            frame = contact.frame.reshape(3, 3)
            for index, sign in picked:
                position, rotation = poses[index]
                self._add(values[index], self.pads[index], sign, self.force6[:3], frame,
                          position, rotation, contact.pos)
        return values

    def from_contacts(self, contacts, poses) -> list[np.ndarray]:
        """Return values per pad, looping over already extracted contacts."""
        values = [np.zeros((len(pad.layout), 3)) for pad in self.pads]
        for k in range(len(contacts)):
            for index, sign in self._pick(int(contacts.geom1[k]), int(contacts.geom2[k])):
                position, rotation = poses[index]
                self._add(values[index], self.pads[index], sign, contacts.force_in_contact[k],
                          contacts.frame_in_world[k], position, rotation,
                          contacts.position_in_world[k])
        return values


def record_states(model, data, samples: int) -> list[dict]:
    """Simulate the squeeze and keep what mj_forward needs to rebuild each sample."""
    data.ctrl[:] = SQUEEZE_N
    mujoco.mj_step(model, data, nstep=200)  # let the squeeze settle in
    states = []
    for _ in range(samples):
        mujoco.mj_step(model, data, nstep=5)
        state = {name: getattr(data, name).copy() for name in STATE_FIELDS}
        state['time'] = data.time
        states.append(state)
    return states


def restore(model, data, state: dict) -> None:
    """Put a recorded sample back (same state, same warm start: same contacts)."""
    for name in STATE_FIELDS:
        getattr(data, name)[:] = state[name]
    data.time = state['time']
    mujoco.mj_forward(model, data)


def fastest_pass(function, samples, before=None) -> tuple[float, list]:
    """Return the summed per-sample fastest time over REPEATS passes, and the results."""
    fastest = np.full(len(samples), math.inf)
    for _ in range(REPEATS):
        results = []
        for index, sample in enumerate(samples):
            if before is not None:
                before(index)
            start = time.perf_counter()
            results.append(function(*sample))
            fastest[index] = min(fastest[index], time.perf_counter() - start)
    return float(fastest.sum()), results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--samples', type=int, default=200, help='sampled steps')
    args = parser.parse_args()
    model = mujoco.MjModel.from_xml_string(scene_xml())
    data = mujoco.MjData(model)
    names = ('left_pad', 'right_pad')
    body_ids = [mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, n) for n in names]
    config = TactileConfig('force_vector', 'spread_linear')
    pads = [TactilePad(pad_layout(geom_shapes(model, [name]), RESOLUTION_M), config=config)
            for name in names]
    loop = LoopPads(pads)
    states = record_states(model, data, args.samples)
    samples = []
    for state in states:
        restore(model, data, state)
        samples.append((
            extract_contacts(model, data),
            [(data.xpos[b].copy(), data.xquat[b].copy()) for b in body_ids],
            [(data.xpos[b].copy(), data.xmat[b].reshape(3, 3).copy()) for b in body_ids]))

    def vectorised_from_data(contacts, quaternions, matrices):
        contacts = extract_contacts(model, data)
        return [pad.compute(contacts, pose) for pad, pose in zip(pads, quaternions)]

    def vectorised_compute(contacts, quaternions, matrices):
        return [pad.compute(contacts, pose) for pad, pose in zip(pads, quaternions)]

    def rebuild(index):
        restore(model, data, states[index])

    timings, results = {}, {}
    for key, function, before in (
            ('vectorised', vectorised_from_data, rebuild),
            ('loop', lambda c, q, m: loop.from_data(model, data, m), rebuild),
            ('compute', vectorised_compute, None),
            ('loop_compute', lambda c, q, m: loop.from_contacts(c, m), None)):
        timings[key], results[key] = fastest_pass(function, samples, before)

    worst = 0.0
    for key in ('loop', 'compute', 'loop_compute'):
        for fast, other in zip(results['vectorised'], results[key]):
            for a, b in zip(fast, other):
                worst = max(worst, np.abs(a - b).max() / max(1.0, np.abs(b).max()))
    vectorised_compute(*samples[-1])
    pad_contacts = sum(pad.contact_count for pad in pads)
    full_ratio = timings['loop'] / timings['vectorised']
    compute_ratio = timings['loop_compute'] / timings['compute']
    print(f'machine: {platform.processor() or platform.machine()}, '
          f'python {platform.python_version()}, numpy {np.__version__}, '
          f'mujoco {mujoco.__version__}')
    print(f'pads: {", ".join(str(len(pad.layout)) for pad in pads)} taxels; '
          f'{pad_contacts} pad contacts in the last sample; {args.samples} samples, '
          f'fastest of {REPEATS} passes each\n')
    print('| path | vectorised (ms/sample) | per-contact loop (ms/sample) | speed-up |')
    print('|---|---|---|---|')
    for label, fast_key, slow_key, ratio in (
            ('TactilePad.compute, from Contacts', 'compute', 'loop_compute', compute_ratio),
            ('extract + compute, from MjData', 'vectorised', 'loop', full_ratio)):
        print(f'| {label} | {1e3 * timings[fast_key] / args.samples:.3f} '
              f'| {1e3 * timings[slow_key] / args.samples:.3f} | {ratio:.1f}x |')
    print(f'\nlargest difference / largest value: {worst:.2e} (must be < 1e-9)')
    verdict = 'meets' if compute_ratio >= TARGET_RATIO else 'MISSES'
    print(f'TactilePad.compute {verdict} the {TARGET_RATIO:.0f}x target')
    if worst >= 1e-9:
        raise SystemExit('the two implementations disagree')


if __name__ == '__main__':
    main()

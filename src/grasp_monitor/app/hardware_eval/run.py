"""``grasp-monitor hardware-eval``: the family run once, every preset's monitor scored.

Each trial is simulated once; every preset's monitor watches it (``trial``). The
monitor's settings are ``config/hardware.yaml``'s (with ``--set`` on top), chosen on
the tuning split; the tables are of the held-out rest (the tuning split's are in the
JSON).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
import sys
import time
from typing import Any, Mapping, Sequence, TextIO

from grasp_monitor.app.hardware_eval.family import KINDS, make_family
from grasp_monitor.app.hardware_eval.score import score_preset, table
from grasp_monitor.app.hardware_eval.trial import hardware_values, run_hardware_trial
from grasp_monitor.core.errors import ConfigError

#: Trials of each kind by default, and with ``--quick``.
PER_KIND, QUICK_PER_KIND = 24, 2


def hardware_eval(output_dir: Path, per_kind: int, seed: int = 0, jobs: int = 1,
                  presets: Sequence[str] = ('ideal', 'typical', 'harsh'),
                  overrides: Mapping[str, Any] = (), out: TextIO = sys.stdout
                  ) -> dict[str, Any]:
    """Run ``per_kind`` trials of each kind; score each preset; write the tables.

    Writes ``hardware_eval.md`` (a table per preset, held-out trials) and
    ``hardware_eval.json`` (every figure of both splits, every trial's times) into
    ``output_dir``.

    Raises:
        ConfigError: fewer than 1 trial per kind, an unknown preset, or a bad override.
    """
    from grasp_monitor.core.realism import PRESETS
    from grasp_monitor.sim.process_pool import check_jobs, run_each
    if per_kind < 1:
        raise ConfigError(f'--per-kind must be at least 1, got {per_kind}')
    unknown = [name for name in presets if name not in PRESETS]
    if unknown:
        raise ConfigError(f'unknown preset {unknown[0]!r}; valid: {", ".join(PRESETS)}')
    monitor = hardware_values(_checked(overrides))
    family = make_family(per_kind, seed)
    chosen = {name: PRESETS[name] for name in presets}
    results: list[Any] = [None] * len(family)
    started = time.monotonic()

    def finish(index: int, result: Any) -> None:
        results[index] = result
        done = sum(r is not None for r in results)
        print(f'\rtrial {done}/{len(family)}', end='', file=out, flush=True)

    run_each(run_hardware_trial, [(trial, monitor, chosen) for trial in family],
             check_jobs(jobs), finish)
    print(file=out)
    wall_s = time.monotonic() - started
    splits = {'held_out': [r for r in results if not r['tuning']],
              'tuning': [r for r in results if r['tuning']]}
    scores = {split: {name: score_preset(runs, name) for name in presets}
              for split, runs in splits.items()}
    output_dir.mkdir(parents=True, exist_ok=True)
    held = splits['held_out']
    counts = ', '.join(f'{sum(r["kind"] == kind for r in held)} {kind}' for kind in KINDS)
    text = [f'# Hardware-fed monitor against the simulator ({len(held)} held-out trials: '
            f'{counts}; seed {seed})', '',
            "Monitor: config/hardware.yaml's grasp_monitor, every event, at "
            f'{monitor["rate"]:g} Hz' + (f', with {_describe(overrides)}' if overrides else '')
            + '; fed tactile clouds and finger joint states only (friction unknown).', '']
    for name in presets:
        text += [f'## {name}', '', table(scores['held_out'][name]), '']
    (output_dir / 'hardware_eval.md').write_text('\n'.join(text))
    (output_dir / 'hardware_eval.json').write_text(json.dumps(
        {'seed': seed, 'per_kind': per_kind, 'presets': list(presets),
         'monitor': dict(monitor), 'wall_s': wall_s,
         'scores': scores, 'trials': results}, indent=1, default=_plain))
    print('\n'.join(text), file=out)
    print(f'wrote {output_dir / "hardware_eval.md"} and hardware_eval.json '
          f'({len(family)} trials, {wall_s:.0f} s)', file=out)
    return scores


def _checked(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``grasp_monitor`` overrides checked as a parameter file's values are."""
    from grasp_monitor.app.scenario_config import ScenarioConfig
    config = ScenarioConfig.for_scenario('hardware').with_values(
        {f'grasp_monitor.{name}': value for name, value in dict(overrides).items()}, '--set')
    return {name: config.given['grasp_monitor'][name] for name in dict(overrides)}


def _describe(overrides: Mapping[str, Any]) -> str:
    return ', '.join(f'{name} {value}' for name, value in dict(overrides).items())


def _plain(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, 'tolist'):
        return value.tolist()
    raise TypeError(f'{type(value).__name__} is not JSON')

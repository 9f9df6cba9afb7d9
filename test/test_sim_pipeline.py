"""The offline pipeline: its block tactile equals the per-step path; what a run reports."""

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.offline import OfflinePipeline, PipelineConfig
from grasp_monitor.sim.scenario_run import default_drive, run_scenario
from grasp_monitor.sim.scenes import build_scene
from grasp_monitor.sim.sensors import pad_specs, SimTactileArrays
import mujoco
import numpy as np
import pytest


def per_step_twin(pipeline):
    """Return a second simulator of the same model, with the per-step tactile path."""
    sim = Simulator(pipeline.sim.scene, command_timeout_s=0.0, drive=pipeline.sim.drive)
    return sim, SimTactileArrays(sim, pipeline.arrays.specs)


@pytest.mark.parametrize('scenario, params, settings, until_s', [
    # The pads close on the object from 1 s: contacts appear, then grip.
    ('pick_lift', {}, {'touch': ['force_vector', 'normal_force'],
                       'response': ['spread_linear', 'nearest']}, 1.3),
    ('pick_lift', {}, {'touch': ['normal'], 'noise_type': ['gaussian'],
                       'noise_range': [0.01], 'noise_seed': [7]}, 1.2),
    # Each contact point moved onto the pad's surface by its penetration (the sensor's dist).
    ('pick_lift', {}, {'contact_point': ['surface', 'midpoint']}, 1.3),
    # The slip channel, from the pad contact sensors' linvel; with distances too; through the
    # lift (the object creeps in the pads).
    ('pick_lift', {}, {'slip': [True], 'contact_point': ['surface']}, 2.6),
    # Cubes between two blocks: one pad is each contact's geom1, the other its geom2.
    ('multi_block', {'n_cubes': 2}, {'touch': ['force_vector_global'],
                                     'resolution': [0.02]}, 0.3),
])
def test_block_tactile_equals_compute_after_every_step(scenario, params, settings, until_s):
    scene = build_scene(scenario, **params)
    pipeline = OfflinePipeline(
        scene, PipelineConfig(control_rate_hz=100.0, block_s=0.05, force_test=None),
        pad_specs(scene.pads, **settings), drive=default_drive(scene))
    sim, arrays = per_step_twin(pipeline)
    compared = touching = slipping = 0
    while sim.time_s < until_s:
        pipeline.step_block(pipeline.block_steps)
        for row in range(pipeline.block_steps):
            if row % pipeline.steps_per_tick == 0:
                sim.apply_control()
            mujoco.mj_step(sim.model, sim.data)
            reading = arrays.compute()
            assert reading.time_s == pytest.approx(pipeline.block_time_s[row], abs=1e-12)
            for pad, values in enumerate(reading.values):
                np.testing.assert_allclose(pipeline.values[pad][row], values,
                                           rtol=1e-12, atol=1e-12)
                if reading.slip[pad] is not None:
                    np.testing.assert_allclose(pipeline.tactile.pads[pad].slip[row],
                                               reading.slip[pad], rtol=1e-9, atol=1e-12)
                    slipping += bool(np.abs(reading.slip[pad]).max() > 1e-5)
                compared += 1
                touching += bool(arrays.pads[pad].contact_count)
    # Same physics, bit for bit, and the comparison saw contacts on the pads.
    np.testing.assert_array_equal(pipeline.sim.data.qpos, sim.data.qpos)
    assert touching >= 100 and compared >= 500
    assert slipping >= 100 if settings.get('slip') else slipping == 0


def test_run_reports_events_contact_force_and_energy():
    result = run_scenario('pick_lift', duration_s=2.0)
    kinds = [event['type'] for event in result.events]
    assert kinds[:3] == ['trial_start', 'contact', 'grasp']
    # The fingers close with 10 N each (PickLiftScript): the pads feel it.
    assert all(force > 5.0 for force in result.peak_contact_force_n.values())
    assert set(result.peak_contact_force_n) == {'finger_left', 'finger_right'}
    assert np.isfinite(result.peak_energy_j) and result.peak_energy_j >= 0.0
    assert result.steps == 2000 and not result.diverged


def test_grasp_starts_the_force_test_and_its_stop_ends_it():
    scene = build_scene('pick_lift')
    pipeline = OfflinePipeline(scene, PipelineConfig(block_s=0.1), drive=default_drive(scene))
    while not any(event.kind == 'grasp' for event in pipeline.events):
        assert not pipeline.sim.force_test_active
        pipeline.step_block(pipeline.block_steps)
    # Started at the end of the block in which the monitor saw the grasp.
    assert pipeline.sim.force_test_active
    pipeline.run(5.1)
    assert [e.kind for e in pipeline.events][-2:] == ['stop_external_force', 'trial_end']
    assert not pipeline.sim.force_test_active


def test_block_must_hold_whole_ticks():
    scene = build_scene('pick_lift')
    pipeline = OfflinePipeline(scene, PipelineConfig(control_rate_hz=100.0, block_s=0.05))
    with pytest.raises(ConfigError, match='whole ticks of 10 steps, at most 50'):
        pipeline.step_block(15)
    with pytest.raises(ConfigError, match='contact_slots must be in'):
        PipelineConfig(contact_slots=0)


def test_more_contacts_than_slots_are_counted_and_logged(caplog):
    scene = build_scene('pick_lift')
    # Four contacts per pad while gripping; two slots hold half of them.
    pipeline = OfflinePipeline(scene, PipelineConfig(contact_slots=2, force_test=None),
                               drive=default_drive(scene))
    pipeline.run(1.5)
    assert pipeline.contact_overflows > 0
    assert 'more than its 2 sensor slots' in caplog.text


def pick_lift_run(**node_values):
    """Run config/pick_lift.yaml offline with ``<node>.<parameter>`` values set."""
    from grasp_monitor.app.scenario_config import offline_run, ScenarioConfig
    config = ScenarioConfig.for_scenario('pick_lift').with_values(node_values, 'test')
    settings, params, setup = offline_run(config)
    return run_scenario('pick_lift', None, settings, setup=setup, **params)


def test_the_energy_is_the_metrics_and_does_not_depend_on_their_rate():
    # dt is the physics step (1 ms) at 100 Hz and at 1 kHz alike: with the interval
    # between samples the pose term differed 100-fold between the two
    slow = pick_lift_run(**{'grasp_metrics.rate': 100.0})
    fast = pick_lift_run(**{'grasp_metrics.rate': 1000.0})
    assert fast.peak_energy_j == pytest.approx(slow.peak_energy_j, rel=1e-6)
    assert fast.peak_energy_time_s == pytest.approx(slow.peak_energy_time_s, abs=1e-9)
    # the reference is the box in the hand at the grasp (energy_from: grasp), not the box on
    # the table 10 cm below the open pads at the first step: that read 0.1 m / 1 ms = 1092 J
    assert 0.0 < slow.peak_energy_j < 10.0
    assert 1.21 <= slow.peak_energy_time_s <= 4.42 + 1e-9


def test_a_run_stops_at_its_verdict_unless_asked_to_go_on():
    stopped = run_scenario('pick_lift', duration_s=8.0)
    assert stopped.events[-1]['type'] == 'trial_end'
    end_s = float(stopped.events[-1]['time_s'])
    assert end_s < 8.0 and stopped.sim_time_s == pytest.approx(end_s, abs=0.5 + 1e-9)
    assert stopped.steps == round(stopped.sim_time_s / 0.001)
    going_on = run_scenario('pick_lift', duration_s=8.0, continue_after_end=True)
    assert going_on.steps == 8000
    assert [e['type'] for e in going_on.events] == [e['type'] for e in stopped.events]


def taxel_trial(block_s, **values):
    """Run pick_lift for 2.5 s with its monitor on the taxels; return the events."""
    import dataclasses
    from grasp_monitor.app.scenario_config import offline_run, ScenarioConfig
    config = ScenarioConfig.for_scenario('pick_lift').with_values(
        {'grasp_monitor.contacts': '', 'grasp_metrics.contacts': '', **values}, 'test')
    settings, params, setup = offline_run(config)
    pipeline = OfflinePipeline(
        build_scene('pick_lift', settings, **params),
        dataclasses.replace(setup.pipeline, block_s=block_s), setup.pads, setup.monitor,
        setup.drive, setup.metrics)
    pipeline.run(2.5)
    return pipeline, [(r.kind, round(r.time_s, 9)) for r in pipeline.events]


@pytest.mark.parametrize('preset', ['ideal', 'typical'])
def test_a_taxel_monitor_is_fed_as_the_node_whatever_the_blocks(preset):
    # the grasp starts the force test: blocks are stepped again up to its sample, the
    # monitor's inputs and the sensors' models with them; frames are dropped at typical
    values = {'tactile_sensor.realism.preset': preset, 'mujoco_sim.realism.preset': preset}
    pipeline, events = taxel_trial(0.5, **values)
    kinds = [kind for kind, _ in events]
    assert kinds[:3] == ['trial_start', 'contact', 'grasp'], events
    assert pipeline.sim.force_test_active  # asked for on the grasp, as the node asks
    assert pipeline.evaluation.feed.inputs.config.contacts is False
    assert (pipeline.evaluation.feed.tactile is None) == (preset == 'ideal')
    assert taxel_trial(0.05, **values)[1] == events

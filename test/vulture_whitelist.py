"""Uses vulture cannot see, for test_dead_code.py: a name here counts as used.

Each is called or read by name by something outside the code vulture reads: ROS, launch,
pytest, MuJoCo, the moteus library, an entry point, ``getattr``, ``dataclasses.asdict``.
Add a name only with such a reader; code nothing reads is removed instead.
"""

from vulture.whitelist_utils import Whitelist

_ = Whitelist()

# launch and launch_testing call these in every launch file and launch test
_.generate_launch_description
_.generate_test_description
# pytest reads a module's marks, and requests fixtures by their parameter's name
_.pytestmark
_.two_busy_loops
_.servo_node
# signatures Python sets: __deepcopy__(memo), __exit__(*exc_info); PEP 562 module hooks
_.memo
_.exc_info
_.__getattr__
_.__dir__
# console script (setup.py entry point tactile_sensor)
_.main_tactile
# scenario factories, found as make_<scenario> by sim.scenes.build_scene
_.make_pick_lift
_.make_multi_block
# plugin factories, registered by their @register_plugin decorator
_.make_joint_state_sensor
_.make_servo
# weights of CriteriaWeights, read by the criteria's names
_.object_cog
_.instant_force
_.instant_contacting_link
_.final_position
# ServoConfig field checked by name in its __post_init__
_.torque_constant_nm_per_a
# MoteusStats fields, published through dataclasses.asdict on /diagnostics
_.period_mean_s
_.jitter_s
_.period_max_s
_.overruns
# the moteus double's snapshot of one controller, whole (ServoState.torque_nm)
_.torque_nm
# the moteus library calls these on its transport (the double stands in for one)
_.empty_bus_tx_safe
_.transaction
# fields set for their readers: moteus.QueryResolution, PointCloud2,
# ParameterDescriptor, MjOption, MjvCamera
_.temperature
_.row_step
_.is_dense
_.additional_constraints
_.floating_point_range
_.integer_range
_.disableflags
_.fovy
_.elevation
# MonitorConfig's incipient_slip_* fields, read by name for SLIP_ARGUMENTS (core/monitor/config.py)
_.incipient_slip_slip_speed
_.incipient_slip_stall_rise
_.incipient_slip_stall_window
_.incipient_slip_settle
# the node holds its services' owner so the service callbacks live as long as the node
_.trial_services
# the gripper node holds its action servers so they serve as long as it lives
_.servers

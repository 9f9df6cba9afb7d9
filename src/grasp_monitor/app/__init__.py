"""What the ``grasp-monitor`` command runs: the demo, a scenario's configuration, run folders.

The application layer: it ties the nodes, the simulator and the recordings together
and is imported by ``cli.py`` only.
"""

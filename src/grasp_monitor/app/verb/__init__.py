"""The verbs of the ``grasp-monitor`` command, one module each, as ros2cli keeps them.

A verb module has ``HELP`` (its line in ``grasp-monitor --help``), ``DESCRIPTION`` (its
own ``--help`` text, or None), ``add_arguments(parser)`` and ``run(args) -> int`` (the exit
status). ``cli.py`` holds the table of verbs and the errors they share; ``arguments`` what
several verbs parse alike (the scenario and its parameter file, ``KEY=VALUE`` options).
"""

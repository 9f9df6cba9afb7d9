"""Hardware backends, ROS-free: moteus servos through the ``moteus`` library.

``moteus`` holds the backend the ``moteus_servos`` node wraps, and the transport double
that simulates controllers underneath the real library for tests. Nothing here imports
rclpy, and no module opens a device on import.
"""

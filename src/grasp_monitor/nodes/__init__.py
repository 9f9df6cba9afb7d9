"""rclpy nodes: thin adapters between ROS and the core."""

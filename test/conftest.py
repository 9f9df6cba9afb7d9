"""Fixtures shared by the node and graph tests: an isolated DDS domain, a spinning client."""

import os
import threading
import time

import pytest

# Every test process talks on its own domain, on this machine only.
os.environ['ROS_DOMAIN_ID'] = str(1 + os.getpid() % 100)
os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'


def wait_for(predicate, timeout_s=10.0, period_s=0.01):
    """Poll ``predicate`` until it is true or ``timeout_s`` passes; return its last value."""
    deadline = time.monotonic() + timeout_s
    value = predicate()
    while not value and time.monotonic() < deadline:
        time.sleep(period_s)
        value = predicate()
    return value


class RosHarness:
    """An rclpy context with an executor spinning in a thread."""

    def __init__(self):
        import rclpy
        from rclpy.executors import MultiThreadedExecutor
        self.rclpy = rclpy
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.executor = MultiThreadedExecutor(num_threads=2, context=self.context)
        self.nodes = []
        self.thread = threading.Thread(target=self.executor.spin, daemon=True)
        self.thread.start()

    def add(self, node):
        """Spin ``node`` with the others; it is destroyed at teardown."""
        self.nodes.append(node)
        self.executor.add_node(node)
        return node

    def client(self, name='test_client'):
        """Create a plain node in this context."""
        return self.add(self.rclpy.create_node(name, context=self.context))

    def call(self, client, request, timeout_s=10.0):
        """Call a service and wait for the response."""
        assert client.wait_for_service(timeout_sec=timeout_s), client.srv_name
        future = client.call_async(request)
        assert wait_for(future.done, timeout_s), f'{client.srv_name} did not answer'
        return future.result()

    def close(self):
        """Stop spinning and destroy everything."""
        self.executor.shutdown(timeout_sec=5.0)
        self.thread.join(timeout=5.0)
        for node in self.nodes:
            node.destroy_node()
        self.rclpy.try_shutdown(context=self.context)


@pytest.fixture
def ros():
    """Yield a RosHarness, closed after the test."""
    harness = RosHarness()
    yield harness
    harness.close()

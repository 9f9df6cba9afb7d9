"""A burst of concurrent service calls: every request gets its answer (none silently dropped)."""

from common import wait_for
from grasp_monitor.nodes.grasp_monitor import GraspMonitorNode
from rclpy.parameter import Parameter
from std_srvs.srv import Trigger

CLIENTS = 100


def test_a_hundred_clients_calling_at_once_get_a_hundred_answers(ros, tmp_path):
    ros.add(GraspMonitorNode(context=ros.context, parameter_overrides=[
        Parameter('simulator', value=''),
        Parameter('event_log', value=str(tmp_path / 'events.jsonl'))]))
    # each its own node, as 100 outside clients are, with the default client QoS
    clients = [ros.client(f'burst_client_{i}').create_client(Trigger, 'grasp_monitor/start')
               for i in range(CLIENTS)]
    assert all(client.wait_for_service(timeout_sec=10.0) for client in clients)
    futures = [client.call_async(Trigger.Request()) for client in clients]  # all at once
    answered = wait_for(lambda: sum(future.done() for future in futures) == CLIENTS,
                        timeout_s=60.0)
    done = sum(future.done() for future in futures)
    print(f'{done} of {CLIENTS} concurrent calls answered')
    assert answered, f'{done} of {CLIENTS} concurrent calls answered'
    # no input: each start waits for the first sample, so each names the same trial
    assert {(f.result().success, f.result().message) for f in futures} == {(True, '1')}

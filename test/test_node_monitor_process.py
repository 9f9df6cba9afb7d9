"""``monitor_metrics``: the grasp monitor and the metrics node, two nodes in one process."""

import signal
import subprocess

from common import NAMESPACE, Observer, wait_for
from grasp_monitor.nodes import node_command
from std_srvs.srv import Trigger


def test_both_nodes_run_in_one_process_answer_and_stop_on_a_signal(ros, tmp_path):
    observer = Observer(ros)
    process = subprocess.Popen(
        node_command('monitor_metrics', {'event_log': tmp_path / 'events.jsonl'},
                     namespace=NAMESPACE),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        start = ros.client().create_client(Trigger, 'grasp_monitor/start')
        assert ros.call(start, Trigger.Request(), timeout_s=30.0).message == '1'

        def senders():
            return {status.name.split(':')[0] for array in observer.diagnostics
                    for status in array.status}
        # each node reports under its own name, from the one process
        assert wait_for(lambda: {f'{NAMESPACE}/grasp_monitor', f'{NAMESPACE}/grasp_metrics'}
                        <= senders(), 20.0), senders()
    finally:
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=20.0)
    assert process.returncode == 0, stderr
    assert 'Traceback' not in stderr

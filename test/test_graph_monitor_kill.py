"""The monitor as its own process: SIGKILL mid-trial loses no event already published."""

import os
import signal
import subprocess
import sys
import time

from common import NAMESPACE, ScriptedHand, wait_for
from diagnostic_msgs.msg import DiagnosticStatus
from grasp_monitor.core.monitor import EventLog
from grasp_monitor.nodes.qos import EVENTS_QOS
from std_srvs.srv import Trigger


def test_sigkill_mid_trial_keeps_every_published_event_in_the_log(ros, tmp_path):
    log_path = tmp_path / 'events.jsonl'
    monitor = subprocess.Popen(
        [sys.executable, '-m', 'grasp_monitor.nodes.grasp_monitor', '--ros-args',
         '-r', f'__ns:={NAMESPACE}', '-p', "simulator:=''", '-p', f'event_log:={log_path}',
         '-p', 'force_test_time:=60.0'],
        env=os.environ.copy(), stdout=(tmp_path / 'monitor.log').open('w'),
        stderr=subprocess.STDOUT)  # a file: an unread pipe could fill and block the node
    try:
        client = ros.client()
        hand = ScriptedHand(client)
        events = []
        client.create_subscription(DiagnosticStatus, 'grasp_monitor/events', events.append,
                                   EVENTS_QOS)
        start = client.create_client(Trigger, 'grasp_monitor/start')
        hand.pad_force_n.update(finger_left=1.0, finger_right=1.0)
        time.sleep(0.5)  # the touching hand's readings are in
        assert ros.call(start, Trigger.Request(), timeout_s=30.0).message == '1'
        assert wait_for(lambda: 'grasp' in [e.name for e in events], timeout_s=20.0)
        monitor.send_signal(signal.SIGKILL)
        monitor.wait(timeout=10)
        published = [{kv.key: kv.value for kv in e.values} for e in events]
        logged = [record.as_strings() for record in EventLog.read(log_path)]
        # everything that reached the topic was in the log first
        assert logged[:len(published)] == published
        kinds = [r['type'] for r in logged if not r['type'].startswith('sensor_')]
        assert kinds[:3] == ['trial_start', 'contact', 'grasp']
    finally:
        if monitor.poll() is None:
            monitor.kill()
            monitor.wait(timeout=10)

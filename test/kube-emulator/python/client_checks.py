# Drives the Kubernetes emulator with the official Python client (python3-kubernetes), the
# way a Python controller would, and prints what came back as one JSON object.
import datetime
import json
import sys

from kubernetes import client, config, watch

config.load_kube_config(config_file=sys.argv[1])
result = {}
objects = client.CustomObjectsApi()

# A watch: the client sends watch=True (capital T).
stream = watch.Watch()
for event in stream.stream(objects.list_namespaced_custom_object, "example.com", "v1", "default", "widgets", timeout_seconds=5):
    result["watchEvent"] = {"type": event["type"], "name": event["object"]["metadata"]["name"]}
    stream.stop()
    break

# A Lease written with a MicroTime in another zone.
leases = client.CoordinationV1Api()
sent = datetime.datetime(2026, 1, 1, 1, 0, 0, 123456, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))
lease = client.V1Lease(
    metadata=client.V1ObjectMeta(name="python-lease"),
    spec=client.V1LeaseSpec(holder_identity="python", acquire_time=sent, renew_time=sent, lease_duration_seconds=15),
)
raw = leases.create_namespaced_lease("default", lease, _preload_content=False)
result["leaseSpec"] = json.loads(raw.data)["spec"]

# A completed delete of a custom resource.
result["deleted"] = objects.delete_namespaced_custom_object("example.com", "v1", "default", "widgets", "python-widget")

print(json.dumps(result))

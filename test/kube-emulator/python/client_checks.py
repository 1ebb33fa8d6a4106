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

# A replace that changes nothing: the object read with the typed API and sent straight back
# (its datetimes re-serialized by the client as +00:00). A real server keeps resourceVersion.
core = client.CoreV1Api()
apps = client.AppsV1Api()
core.create_namespaced_config_map("default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="python-noop"), data={"a": "1"}))
read_map = core.read_namespaced_config_map("python-noop", "default")
replaced_map = core.replace_namespaced_config_map("python-noop", "default", read_map)
container = client.V1Container(name="agent", image="registry.example/agent:1")
apps.create_namespaced_deployment("default", client.V1Deployment(
    metadata=client.V1ObjectMeta(name="python-noop"),
    spec=client.V1DeploymentSpec(
        selector=client.V1LabelSelector(match_labels={"app": "noop"}),
        template=client.V1PodTemplateSpec(
            metadata=client.V1ObjectMeta(labels={"app": "noop"}),
            spec=client.V1PodSpec(containers=[container]),
        ),
    ),
))
read_deployment = apps.read_namespaced_deployment("python-noop", "default")
replaced_deployment = apps.replace_namespaced_deployment("python-noop", "default", read_deployment)
result["noopReplace"] = {
    "configMap": [read_map.metadata.resource_version, replaced_map.metadata.resource_version],
    "deployment": [read_deployment.metadata.resource_version, replaced_deployment.metadata.resource_version],
}

print(json.dumps(result))

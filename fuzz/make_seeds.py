#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (fuzz/corpus/<target>/): small valid inputs of every
shape each target reads. Run again after changing it; the files are committed."""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
LEASE = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
         "metadata": {"name": "l", "namespace": "default", "labels": {"a": "1"},
                      "finalizers": ["f1", "f2"],
                      "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "x", "uid": "u1"}]},
         "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15,
                  "renewTime": "2026-01-01T00:00:00.000000Z", "acquireTime": "2026-01-01T00:00:00.000000Z",
                  "leaseTransitions": 3}}
CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default",
             "annotations": {"control-plane.alpha.kubernetes.io/leader": "{\"holderIdentity\":\"a\"}"}},
             "data": {"k": "v"}, "binaryData": {"b": "AAEC"}}
CANDIDATE = {"apiVersion": "coordination.k8s.io/v1beta1", "kind": "LeaseCandidate",
             "metadata": {"name": "c1", "namespace": "kube-system"},
             "spec": {"leaseName": "l", "binaryVersion": "1.33.0", "emulationVersion": "1.33.0",
                      "strategy": "OldestEmulationVersion", "renewTime": "2026-01-01T00:00:00.000000Z"}}
NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}}
EVENT = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "namespace": "default"},
         "involvedObject": {"kind": "Lease", "name": "l"}, "reason": "LeaderElection", "message": "m",
         "type": "Normal", "count": 1, "firstTimestamp": "2026-01-01T00:00:00Z"}


def write(target: str, name: str, data: bytes) -> None:
    folder = os.path.join(HERE, "corpus", target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as fh:
        fh.write(data)


def j(value) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def varint(n: int) -> bytes:
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out


def field(number: int, payload: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def envelope(api_version: str, kind: str, raw: bytes) -> bytes:
    type_meta = field(1, api_version.encode()) + field(2, kind.encode())
    return b"k8s\x00" + field(1, type_meta) + field(2, raw)


def main() -> None:
    for i, obj in enumerate([NAMESPACE, CONFIGMAP, EVENT, LEASE, CANDIDATE]):
        for k in range(5):  # the first byte picks the kind: every kind gets every object
            write("fuzz_object", f"obj{i}-kind{k}", bytes([k]) + j(obj))
    write("fuzz_object", "deep", bytes([3]) + b'{"spec":{"x":' + b"[" * 40 + b"]" * 40 + b"}}")

    patches = [
        (0, LEASE, {"spec": {"holderIdentity": "b", "leaseDurationSeconds": None}}),
        (1, LEASE, {"metadata": {"finalizers": ["f3"], "$deleteFromPrimitiveList/finalizers": ["f1"],
                                 "$setElementOrder/finalizers": ["f3", "f2"],
                                 "ownerReferences": [{"uid": "u1", "$patch": "delete"}, {"uid": "u2"}]},
                    "spec": {"$patch": "replace", "holderIdentity": "c"}}),
        (1, LEASE, {"metadata": {"$retainKeys": ["name"], "labels": {"$patch": "delete"}}}),
        (2, LEASE, [{"op": "replace", "path": "/spec/holderIdentity", "value": "b"},
                    {"op": "copy", "from": "/metadata/labels", "path": "/metadata/annotations"},
                    {"op": "move", "from": "/spec/leaseTransitions", "path": "/spec/x"},
                    {"op": "test", "path": "/spec/holderIdentity", "value": "b"},
                    {"op": "remove", "path": "/metadata/finalizers/0"},
                    {"op": "add", "path": "/metadata/finalizers/-", "value": "f9"}]),
        (3, LEASE, {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                    "metadata": {"name": "l", "finalizers": ["f2", "f5"]}, "spec": {"holderIdentity": "z"}}),
    ]
    for i, (kind, target, patch) in enumerate(patches):
        write("fuzz_patch", f"patch{i}", bytes([kind]) + j(target) + b"\x00" + j(patch))

    body = j(LEASE)
    requests = [
        b"GET /apis/coordination.k8s.io/v1/namespaces/default/leases/l HTTP/1.1\r\nHost: x\r\n"
        b"Authorization: Bearer t\r\nAccept: application/json\r\n\r\n",
        b"PUT /apis/coordination.k8s.io/v1/namespaces/default/leases/l?fieldManager=m HTTP/1.1\r\nHost: x\r\n"
        b"Content-Type: application/json\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body,
        b"GET /api/v1/namespaces/default/configmaps?labelSelector=app%3Dx%2Ctier+in+(a,b)&fieldSelector="
        b"metadata.name%3Dc&watch=1&resourceVersion=5&allowWatchBookmarks=true HTTP/1.1\r\nHost: x\r\n\r\n",
        b"POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
        b"Content-Type: application/json\r\n\r\n5\r\n{\"a\":\r\n2\r\n1}\r\n0\r\n\r\n",
        b"HEAD /apis HTTP/1.1\r\nHost: x\r\nX-Twice: 1\r\nx-twice: 2\r\n\r\n",
    ]
    for i, r in enumerate(requests):
        write("fuzz_request", f"request{i}", r)

    for i, s in enumerate(["app=x,tier!=b", "env in (a, b),!legacy", "x.io/y notin (z)", "a==b,c",
                           "metadata.name=c,metadata.namespace!=kube-system", "spec.holderIdentity=",
                           "!a,b>1"]):
        write("fuzz_selectors", f"selector{i}", s.encode())

    meta = field(1, b"ns")  # ObjectMeta.name
    namespace = field(1, meta) + field(2, field(1, b"kubernetes"))  # metadata, spec.finalizers
    entry = field(1, b"k") + field(2, b"v")
    configmap = field(1, field(1, b"c") + field(3, b"default")) + field(2, entry) + field(3, entry) + b"\x20\x01"
    write("fuzz_protobuf_body", "namespace", envelope("v1", "Namespace", namespace))
    write("fuzz_protobuf_body", "configmap", envelope("v1", "ConfigMap", configmap))
    write("fuzz_protobuf_body", "lease", envelope("coordination.k8s.io/v1", "Lease", b""))

    for i, t in enumerate(["2026-01-01T00:00:00Z", "2023-12-05T02:33:08.685777Z", "9999-12-31T23:59:59.999999Z",
                           "0000-01-01T00:00:00+01:00", "2024-02-29T12:00:00.123456789-02:30"]):
        write("fuzz_time", f"time{i}", t.encode())


if __name__ == "__main__":
    main()

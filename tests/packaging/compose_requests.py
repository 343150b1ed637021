#!/usr/bin/env python3
"""Prints, for each Compose file given, the AuthZReq dockerd sends the gate when Compose v2 creates
its first service's container: one JSON line per file. The translation follows Compose v2.30+
(docker/compose pkg/compose/create.go, compose-go transform/), as gathered in
shared/research/cdi-docker.md section 3, for the keys the examples use."""
import base64
import json
import re
import sys

import yaml

CDI_NAME = re.compile(r"^[a-z0-9][a-z0-9.-]*/[a-zA-Z0-9][a-zA-Z0-9_.-]*=[a-zA-Z0-9_.:-]+$")


def count_of(entry):
    count = entry.get("count")
    if count is None and entry.get("device_ids") is None:
        count = "all"  # neither count nor device_ids: all
    return -1 if count == "all" else count


def device_requests(svc):
    requests = []
    for d in svc.get("deploy", {}).get("resources", {}).get("reservations", {}).get("devices", []):
        requests.append({"Driver": d.get("driver", ""), "Count": count_of(d), "DeviceIDs": d.get("device_ids"),
                         "Capabilities": [d.get("capabilities", [])], "Options": d.get("options")})
    cdi = []
    for d in svc.get("devices", []):
        source, target = (d.split(":") + [None])[:2]
        if (target is None or target == source) and CDI_NAME.match(source):
            cdi.append(source)  # source == target and a qualified CDI name: a cdi request
    if cdi:
        requests.append({"Driver": "cdi", "DeviceIDs": cdi})
    gpus = svc.get("gpus")
    for g in [{"count": "all"}] if gpus == "all" else (gpus or []):
        requests.append({"Driver": g.get("driver", ""), "Count": count_of(g), "DeviceIDs": g.get("device_ids"),
                         "Capabilities": [g.get("capabilities", []) + ["gpu"]], "Options": g.get("options")})
    return requests


def raw_devices(svc):
    out = []
    for d in svc.get("devices", []):
        parts = d.split(":")
        source, target = parts[0], parts[1] if len(parts) > 1 else parts[0]
        if source == target and CDI_NAME.match(source):
            continue
        out.append({"PathOnHost": source, "PathInContainer": target,
                    "CgroupPermissions": parts[2] if len(parts) > 2 else "rwm"})
    return out


def create_body(svc):
    host = {"Binds": [v if v.count(":") >= 2 else v + ":rw" for v in svc.get("volumes", [])],
            "Devices": raw_devices(svc), "DeviceRequests": device_requests(svc),
            "DeviceCgroupRules": svc.get("device_cgroup_rules"), "GroupAdd": svc.get("group_add"),
            "Privileged": svc.get("privileged", False), "Runtime": svc.get("runtime", ""),
            "NetworkMode": "bridge"}
    env = svc.get("environment") or {}
    return {"Image": svc["image"], "Cmd": svc.get("command", "").split() or None,
            "Env": [f"{k}={v}" for k, v in env.items()], "HostConfig": host}


for path in sys.argv[1:]:
    doc = yaml.safe_load(open(path))
    name, svc = next(iter(doc["services"].items()))
    body = json.dumps(create_body(svc)).encode()
    print(json.dumps({"RequestMethod": "POST", "RequestUri": f"/v1.47/containers/create?name=demo-{name}-1",
                      "RequestHeaders": {"Content-Type": "application/json"},
                      "RequestBody": base64.b64encode(body).decode()}))

# The Python peer of admit --jsonl: per line, the envelope and the base64-decoded body with
# Python's C json module, two fields looked at, one answer line.
import base64, json, sys
out = sys.stdout
for line in sys.stdin:
    body = json.loads(line).get("RequestBody")
    req = json.loads(base64.b64decode(body)) if body else {}
    hc = req.get("HostConfig") or {} if isinstance(req, dict) else {}
    bad = hc.get("Privileged") or hc.get("Devices")
    out.write('{"Allow":false}\n' if bad else '{"Allow":true}\n')

"""Watch a running simulation's ZeroMQ stream (`cosim run SCENARIO --stream tcp://127.0.0.1:5556`).

Needs only pyzmq and numpy; the format is in docs/viewing.md (any language with ZeroMQ and JSON
can read it). Prints one line per publication, or with --json one JSON object per publication.

    python docs/stream_subscriber.py tcp://127.0.0.1:5556
"""

import argparse
import json

import numpy as np
import zmq


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("url", help="the stream's address, e.g. tcp://127.0.0.1:5556")
    p.add_argument("--json", action="store_true", help="a JSON object per publication instead of a text line")
    p.add_argument("--timeout", type=float, default=60.0, help="give up after this many seconds of silence")
    args = p.parse_args()
    sock = zmq.Context().socket(zmq.SUB)
    sock.setsockopt(zmq.SUBSCRIBE, b"cosim.v1")
    sock.connect(args.url)
    while sock.poll(int(args.timeout * 1000)):
        frames = sock.recv_multipart()
        topic, header = frames[0].decode(), json.loads(frames[1])
        if header["version"] != 1:
            raise SystemExit(f"stream version {header['version']}; this subscriber reads version 1")
        arrays = {a["name"]: np.frombuffer(buf, dtype=a["dtype"]).reshape(a["shape"])
                  for a, buf in zip(header["arrays"], frames[2:])}
        summary = {"topic": topic, "seq": header["seq"], "t_ns": header["t_ns"], "dropped": header["dropped"],
                   "alive": int(arrays["alive"].sum()) if "alive" in arrays else None,
                   "deliveries": len(arrays["rx_src"]) if "rx_src" in arrays else 0,
                   "sends": len(arrays["send_src"]) if "send_src" in arrays else 0,
                   "events": header["events"],
                   "mean_position": arrays["pos"].mean(axis=0).round(3).tolist() if "pos" in arrays else None}
        print(json.dumps(summary) if args.json else
              f"{topic} #{header['seq']} t={header['t_ns'] / 1e9:.3f} s  alive {summary['alive']}  "
              f"sends {summary['sends']}  deliveries {summary['deliveries']}  events {len(header['events'])}", flush=True)
        if topic.endswith(".end"):
            break


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""frag_flood -- first fragments of messages that never complete, from
many ports of one address, as any user could send them without a key:
  frag_flood.py SRC-ADDR DST-ADDR:PORT MAX-DATAGRAMS MAX-SECONDS STOP-FILE [N]
With N, from N addresses counted up from SRC-ADDR (127.66.0.0, 127.66.0.1,
...), one port each, in turn.
Prints "flooding" once the first 1000 are out (about a second), then floods until
STOP-FILE exists or either bound is reached, and prints the count."""
import ipaddress
import os
import socket
import struct
import sys
import time

MAGIC, VERSION, KIND_FRAGMENT = 0xC1, 1, 2
DGRAM_MAX, HDR = 1472, 16
DATA = DGRAM_MAX - HDR


def main():
    src, dst, most, secs, stop = sys.argv[1:6]
    naddr = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    host, port = dst.rsplit(":", 1)
    total = 3 * DATA - 100          # three fragments; only the first sent
    count = (total + DATA - 1) // DATA
    socks = []
    for i in range(64 if naddr == 1 else naddr):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        a = src if naddr == 1 else str(ipaddress.IPv4Address(src) + i)
        s.bind((a, 0))
        socks.append(s)
    end = time.monotonic() + float(secs)
    sent = 0
    while sent < int(most) and time.monotonic() < end:
        hdr = struct.pack(">BBBBIHHI", MAGIC, VERSION, KIND_FRAGMENT, 0,
                          sent, 0, count, total)
        try:
            socks[sent % len(socks)].sendto(hdr + bytes(DATA),
                                            (host, int(port)))
        except OSError:
            pass                    # a full buffer: try the next one
        sent += 1
        if sent == 1000:
            print("flooding", flush=True)
        if sent % 256 == 0:
            if os.path.exists(stop):
                break
            time.sleep(0.2)         # ~1,200 a second: every slot stays
                                    # full (the attack took 400 a second)
    print("sent %d" % sent, flush=True)


main()

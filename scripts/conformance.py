#!/usr/bin/env python3
"""Independent check of lanchat protocol v2's cryptographic layer.

Implements Noise XX, XXpsk3, XXpsk0+psk3 and the one-way X (25519,
ChaChaPoly, SHA256; spec rev 34) from scratch on the `cryptography` package, then:

  1. passes the published Noise vectors the Swift tests use
     (Tests/ChatCryptoTests/Fixtures/noise-vectors.json), which shows this
     implementation is right;
  2. recomputes every byte of docs/PROTOCOL.md's v2 test vectors from their
     fixed keys (handshake messages, identity payload signatures, records,
     node numbers, fingerprints, psk, beacon tag), and that a node with
     another group secret, or none, fails on message 1 (before message 2,
     which would reveal the responder's identity);
  3. checks docs/PROTOCOL.md's signed public message example: the canonical
     bytes, and the exact signature of the RFC 8032 test key; and its sealed
     group beacon vector (2.6: HKDF seal key, associated data, plaintext,
     datagram), which must open only for its own address and port; and its
     sealed envelope vector (Noise X to one recipient, "Sealed envelopes");
  4. with --live, starts .build/debug/lanchat --json --in-memory (loopback
     only: --broadcast 127.255.255.255, its own discovery port) and talks to
     it as a peer would: a full handshake with a valid hello, the node's ping
     as acceptance, ping/pong, a signed public message each way (shown on
     the node's stdout; verified with the key from message 2), then hostile
     links (a tampered record, a hello claiming another number, a v1 hello)
     and a second node with --secret-file (the right secret links; another
     secret or none gets no message 2; its beacons show no name or number
     in clear and open, with the secret, to its own number and port). A node that does not speak v2 FAILS.
     --node HOST:PORT does the handshake alone with a node already running.

Usage:
  scripts/conformance.py                  vectors only
  scripts/conformance.py --live           also start .build/debug/lanchat and talk to it
  scripts/conformance.py --node HOST:PORT also handshake with a node already running
                                          (--secret-file FILE: its group secret)
Exit status: 0 all checks passed, 1 a check failed.
"""
import argparse, atexit, base64, hashlib, hmac, json, os, random, re, socket, struct, subprocess, sys, tempfile, \
    threading, time, uuid

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives import serialization, hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.exceptions import InvalidSignature, InvalidTag

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROLOGUE = b"lanchat v2"
STATIC_KEY_CONTEXT = b"lanchat v2 static key\x00"
MAX_MESSAGE = 65535
RAW = serialization.Encoding.Raw


# --- primitives ---------------------------------------------------------------

def x25519_public(private: bytes) -> bytes:
    return X25519PrivateKey.from_private_bytes(private).public_key().public_bytes(RAW, serialization.PublicFormat.Raw)


def dh(private: bytes, public: bytes) -> bytes:
    return X25519PrivateKey.from_private_bytes(private).exchange(X25519PublicKey.from_public_bytes(public))


def nonce(n: int) -> bytes:
    return b"\x00" * 4 + struct.pack("<Q", n)


def hkdf(ck: bytes, ikm: bytes, outputs: int):
    temp = hmac.new(ck, ikm, hashlib.sha256).digest()
    out1 = hmac.new(temp, b"\x01", hashlib.sha256).digest()
    out2 = hmac.new(temp, out1 + b"\x02", hashlib.sha256).digest()
    if outputs == 2:
        return out1, out2
    return out1, out2, hmac.new(temp, out2 + b"\x03", hashlib.sha256).digest()


def ed25519_public(seed: bytes) -> bytes:
    return Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes(RAW, serialization.PublicFormat.Raw)


# --- Noise ---------------------------------------------------------------------

class Cipher:
    def __init__(self, key=None):
        self.k, self.n = key, 0

    def encrypt(self, ad: bytes, plaintext: bytes) -> bytes:
        if self.k is None:
            return plaintext
        out = ChaCha20Poly1305(self.k).encrypt(nonce(self.n), plaintext, ad)
        self.n += 1
        return out

    def decrypt(self, ad: bytes, ciphertext: bytes) -> bytes:
        if self.k is None:
            return ciphertext
        out = ChaCha20Poly1305(self.k).decrypt(nonce(self.n), ciphertext, ad)  # InvalidTag on failure
        self.n += 1
        return out


PATTERNS = {
    "XX": [["e"], ["e", "ee", "s", "es"], ["s", "se"]],
    "XXpsk3": [["e"], ["e", "ee", "s", "es"], ["s", "se", "psk"]],
    "XXpsk0+psk3": [["psk", "e"], ["e", "ee", "s", "es"], ["s", "se", "psk"]],
    "X": [["e", "es", "s", "ss"]],  # pre-message <- s; one-way
}
ONE_WAY = {"X"}
GROUP_PATTERN = "XXpsk0+psk3"


def psk_count(pattern):
    return sum(message.count("psk") for message in PATTERNS[pattern])


class Handshake:
    def __init__(self, pattern, initiator, prologue, static, ephemeral=None, psks=(), remote_static=None):
        """psks: one per psk token of the pattern, used in order;
        remote_static: the responder's static public key (X's initiator)."""
        if len(psks) != psk_count(pattern) or any(len(p) != 32 for p in psks):
            raise ValueError(f"{pattern} needs {psk_count(pattern)} psk(s) of 32 bytes")
        name = f"Noise_{pattern}_25519_ChaChaPoly_SHA256".encode()
        self.h = name.ljust(32, b"\x00") if len(name) <= 32 else hashlib.sha256(name).digest()
        self.ck, self.cipher = self.h, Cipher()
        self.pattern, self.messages, self.initiator = pattern, PATTERNS[pattern], initiator
        self.s, self.e, self.psks = static, ephemeral, list(psks)
        self.uses_psk = psk_count(pattern) > 0  # then every e is also mixed as a key
        self.rs = self.re = None
        self.index = 0
        self.mix_hash(prologue)
        if pattern in ONE_WAY:  # the pre-message <- s
            if initiator:
                if remote_static is None or len(remote_static) != 32:
                    raise ValueError(f"{pattern} needs the responder's static key")
                self.rs = remote_static
            self.mix_hash(self.rs if initiator else x25519_public(static))

    def mix_hash(self, data):
        self.h = hashlib.sha256(self.h + data).digest()

    def mix_key(self, ikm):
        self.ck, k = hkdf(self.ck, ikm, 2)
        self.cipher = Cipher(k)

    def mix_key_and_hash(self, ikm):
        self.ck, th, k = hkdf(self.ck, ikm, 3)
        self.mix_hash(th)
        self.cipher = Cipher(k)

    def encrypt_and_hash(self, plaintext):
        ct = self.cipher.encrypt(self.h, plaintext)
        self.mix_hash(ct)
        return ct

    def decrypt_and_hash(self, ct):
        pt = self.cipher.decrypt(self.h, ct)
        self.mix_hash(ct)
        return pt

    def dh_token(self, token):
        ours_e = {"ee": True, "es": self.initiator, "se": not self.initiator, "ss": False}[token]
        theirs_e = {"ee": True, "es": not self.initiator, "se": self.initiator, "ss": False}[token]
        return dh(self.e if ours_e else self.s, self.re if theirs_e else self.rs)

    @property
    def finished(self):
        return self.index == len(self.messages)

    def write(self, payload=b""):
        out = b""
        for token in self.messages[self.index]:
            if token == "e":
                if self.e is None:
                    self.e = X25519PrivateKey.generate().private_bytes(RAW, serialization.PrivateFormat.Raw,
                                                                       serialization.NoEncryption())
                pub = x25519_public(self.e)
                out += pub
                self.mix_hash(pub)
                if self.uses_psk:
                    self.mix_key(pub)
            elif token == "s":
                out += self.encrypt_and_hash(x25519_public(self.s))
            elif token == "psk":
                self.mix_key_and_hash(self.psks.pop(0))
            else:
                self.mix_key(self.dh_token(token))
        out += self.encrypt_and_hash(payload)
        assert len(out) <= MAX_MESSAGE
        self.index += 1
        return out

    def read(self, message):
        offset = 0
        for token in self.messages[self.index]:
            if token == "e":
                self.re = message[offset:offset + 32]
                if len(self.re) != 32:
                    raise ValueError("message too short")
                offset += 32
                self.mix_hash(self.re)
                if self.uses_psk:
                    self.mix_key(self.re)
            elif token == "s":
                length = 48 if self.cipher.k is not None else 32
                self.rs = self.decrypt_and_hash(message[offset:offset + length])
                offset += length
            elif token == "psk":
                self.mix_key_and_hash(self.psks.pop(0))
            else:
                self.mix_key(self.dh_token(token))
        if self.cipher.k is not None and len(message) - offset < 16:
            raise ValueError("message too short for its tag")
        payload = self.decrypt_and_hash(message[offset:])
        self.index += 1
        return payload

    def split(self):
        k1, k2 = hkdf(self.ck, b"", 2)
        return (Cipher(k1), Cipher(k2)) if self.initiator else (Cipher(k2), Cipher(k1))


# --- lanchat v2 ----------------------------------------------------------------

def identity_payload(seed, static_public, hello):
    """Identity key || its signature over the static key || hello."""
    signature = Ed25519PrivateKey.from_private_bytes(seed).sign(STATIC_KEY_CONTEXT + static_public)
    return ed25519_public(seed) + signature + hello


def verify_identity_payload(payload, remote_static):
    if len(payload) < 96:
        raise ValueError("identity payload shorter than 96 bytes")
    public, signature, hello = payload[:32], payload[32:96], payload[96:]
    Ed25519PublicKey.from_public_bytes(public).verify(signature, STATIC_KEY_CONTEXT + remote_static)
    return public, hello


def node_number(public):
    value = int.from_bytes(hashlib.sha256(b"lanchat node number" + public).digest()[:8], "big") & ((1 << 53) - 1)
    return value or 1


def fingerprint(public):
    digits = hashlib.sha256(public).digest()[:16].hex()
    return " ".join(digits[i:i + 4] for i in range(0, 32, 4))


def group_keys(contents):
    if contents.endswith(b"\r\n"):
        contents = contents[:-2]
    elif contents.endswith(b"\n"):
        contents = contents[:-1]
    return hashlib.sha256(b"lanchat group psk" + contents).digest(), hashlib.sha256(b"lanchat group beacon" + contents).digest()


# --- sealed group beacons (PROTOCOL.md 2.6) -------------------------------------

SEALED_PLAINTEXT = 340
SEALED_WINDOW_MS = 25 * 3600 * 1000


def beacon_seal_key(contents):
    beacon_key = group_keys(contents)[1]
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"lanchat sealed beacon v2").derive(beacon_key)


def beacon_associated_data(address, tcp_port):
    return b"lanchat sealed beacon" + bytes([2]) + socket.inet_aton(address) + struct.pack(">H", tcp_port)


def beacon_plaintext(kind, number, time_ms, instance_id, nickname, stage):
    out = bytes([1 if kind == "leave" else 0]) + struct.pack(">Qq", number, time_ms)
    for field in (instance_id, nickname, stage or ""):
        data = field.encode()
        out += bytes([len(data)]) + data
    return out + bytes(SEALED_PLAINTEXT - len(out))


def seal_beacon(key, nonce, address, tcp_port, plaintext):
    sealed = nonce + ChaCha20Poly1305(key).encrypt(nonce, plaintext, beacon_associated_data(address, tcp_port))
    return ('{"proto":"lanchat","version":2,"tcpPort":%d,"sealed":"%s"}'
            % (tcp_port, base64.b64encode(sealed).decode())).encode()


def open_beacon(key, datagram, address, now_ms):
    """The fields of a sealed beacon from `address`, or None if it does not open, is stale or malformed."""
    envelope = json.loads(datagram)
    if envelope.get("proto") != "lanchat" or envelope.get("version") != 2:
        return None
    sealed, port = base64.b64decode(envelope["sealed"]), envelope["tcpPort"]
    if len(sealed) != 12 + SEALED_PLAINTEXT + 16:
        return None
    try:
        plain = ChaCha20Poly1305(key).decrypt(sealed[:12], sealed[12:], beacon_associated_data(address, port))
    except InvalidTag:
        return None
    kind, number, time_ms = plain[0], *struct.unpack(">Qq", plain[1:17])
    fields, offset = [], 17
    for _ in range(3):
        n = plain[offset]
        fields.append(plain[offset + 1:offset + 1 + n].decode())
        offset += 1 + n
    if kind > 1 or any(plain[offset:]) or abs(now_ms - time_ms) > SEALED_WINDOW_MS:
        return None
    return {"kind": "leave" if kind else "beacon", "number": number, "time": time_ms, "instance_id": fields[0],
            "nickname": fields[1], "stage": fields[2] or None, "tcp_port": port}


def sealed_beacon_vector():
    v = marked_vector("sealed-beacon-vector", "the sealed beacon vector")
    if v is None:
        return
    key = beacon_seal_key(bytes.fromhex(v["group_secret_file"]))
    check(key.hex() == v["seal_key"], "sealed beacon: seal key = HKDF-SHA256(beacon key, info)")
    ad = beacon_associated_data(v["source_address"], v["tcp_port"])
    check(ad.hex() == v["associated_data"], "sealed beacon: associated data (context, version, address, port)")
    plain = beacon_plaintext(v["kind"], v["number"], v["time"], v["instance_id"], v["nickname"], v["stage"])
    check(plain.hex() == v["plaintext"], f"sealed beacon: plaintext ({len(plain)} bytes, zero-padded)")
    datagram = seal_beacon(key, bytes.fromhex(v["nonce"]), v["source_address"], v["tcp_port"], plain)
    check(datagram.decode() == v["datagram"], f"sealed beacon: datagram ({len(datagram)} bytes)")
    opened = open_beacon(key, datagram, v["source_address"], v["time"])
    check(opened is not None and opened["nickname"] == v["nickname"] and opened["number"] == v["number"],
          "sealed beacon: opens to its fields")
    for word in (v["nickname"], v["stage"], str(v["number"]), v["instance_id"]):
        check(word.encode() not in datagram, f"sealed beacon: {word!r} is not in clear")
    check(open_beacon(key, datagram, "192.168.1.21", v["time"]) is None, "sealed beacon: from another address it does not open")
    moved = datagram.replace(b'"tcpPort":%d' % v["tcp_port"], b'"tcpPort":%d' % (v["tcp_port"] + 1))
    check(open_beacon(key, moved, v["source_address"], v["time"]) is None, "sealed beacon: with another port it does not open")
    check(open_beacon(key, datagram, v["source_address"], v["time"] + SEALED_WINDOW_MS + 1) is None,
          "sealed beacon: a day and an hour later it is stale")
    check(open_beacon(beacon_seal_key(b"another group"), datagram, v["source_address"], v["time"]) is None,
          "sealed beacon: another group's key does not open it")


def live_group_beacon(node, secret):
    """The group node's beacons, heard on its discovery port: nothing but the port in clear; they open with the secret."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(("0.0.0.0", node.discovery_port))
        sock.settimeout(LIVE_TIMEOUT)
        datagram, source = sock.recvfrom(2048)
    except OSError as error:
        check(False, f"live group: a beacon heard on the discovery port ({error})")
        return
    finally:
        sock.close()
    keys = sorted(json.loads(datagram))
    check(keys == ["proto", "sealed", "tcpPort", "version"], f"live group: a beacon says in clear only {keys}")
    check(b"conform" not in datagram and str(node.number).encode() not in datagram,
          "live group: no nickname or number in clear")
    opened = open_beacon(beacon_seal_key(secret), datagram, source[0], now_ms())
    check(opened is not None and opened["number"] == node.number and opened["nickname"] == "conform"
          and opened["tcp_port"] == node.port and opened["instance_id"] == node.instance,
          f"live group: the beacon opens with the secret to the node's number, name, port and instance ({opened})")


# --- checks --------------------------------------------------------------------

failures = 0


def check(condition, what):
    global failures
    print(("ok    " if condition else "FAIL  ") + what)
    if not condition:
        failures += 1


def protocol_text():
    with open(os.path.join(ROOT, "docs", "PROTOCOL.md"), encoding="utf-8") as document:
        return document.read()


def marked_vector(marker, what):
    """The JSON of the fenced block between `<!-- lanchat-MARKER:begin -->`
    and `<!-- lanchat-MARKER:end -->` in docs/PROTOCOL.md; None, after a
    failed check that names `what`, when the markers are missing."""
    block = re.search(rf"<!-- lanchat-{re.escape(marker)}:begin -->\s*```\w*\n(.*?)```\s*<!-- lanchat-{re.escape(marker)}:end -->",
                      protocol_text(), re.S)
    check(block is not None, f"docs/PROTOCOL.md has {what}")
    return json.loads(block.group(1)) if block else None


def noise_vectors():
    path = os.path.join(ROOT, "Tests/ChatCryptoTests/Fixtures/noise-vectors.json")
    for v in json.load(open(path))["vectors"]:
        pattern = v["protocol_name"].split("_")[1]
        init_psks = [bytes.fromhex(p) for p in v.get("init_psks") or []]
        resp_psks = [bytes.fromhex(p) for p in v.get("resp_psks") or []]
        remote = bytes.fromhex(v["init_remote_static"]) if v.get("init_remote_static") else None
        i = Handshake(pattern, True, bytes.fromhex(v["init_prologue"]), bytes.fromhex(v["init_static"]),
                      bytes.fromhex(v["init_ephemeral"]), init_psks, remote)
        r_ephemeral = bytes.fromhex(v["resp_ephemeral"]) if v.get("resp_ephemeral") else None
        r = Handshake(pattern, False, bytes.fromhex(v["resp_prologue"]), bytes.fromhex(v["resp_static"]),
                      r_ephemeral, resp_psks)
        ok, transport = True, None
        for n, m in enumerate(v["messages"]):
            payload, sender_is_i = bytes.fromhex(m["payload"]), pattern in ONE_WAY or n % 2 == 0
            if not i.finished:
                a, b = (i, r) if sender_is_i else (r, i)
                ct = a.write(payload)
                ok &= b.read(ct) == payload
                if i.finished:
                    transport = (i.split(), r.split())
            else:
                (i_send, i_recv), (r_send, r_recv) = transport
                send, recv = (i_send, r_recv) if sender_is_i else (r_send, i_recv)
                ct = send.encrypt(b"", payload)
                ok &= recv.decrypt(b"", ct) == payload
            ok &= ct.hex() == m["ciphertext"]
        if v.get("handshake_hash"):
            ok &= i.h.hex() == v["handshake_hash"]
        check(ok, f"Noise vector {v['protocol_name']} ({v['origin']})")


def protocol_vectors():
    vectors = marked_vector("v2-vectors", "the v2 vector block")
    if vectors is None:
        return
    for v in vectors["vectors"]:
        name = v["protocol_name"]
        pattern = name.split("_")[1]
        h = lambda key: bytes.fromhex(v[key])
        check(h("prologue") == PROLOGUE, f"{name}: prologue is 'lanchat v2'")
        psks = ()
        if "group_secret_file" in v:
            check(pattern == GROUP_PATTERN, f"{name}: a group uses {GROUP_PATTERN}")
            psk, beacon_key = group_keys(h("group_secret_file"))
            check(psk == h("psk"), f"{name}: psk from the group secret file")
            check(hmac.new(beacon_key, h("beacon_datagram"), hashlib.sha256).digest() == h("beacon_tag"), f"{name}: beacon tag")
            psks = [psk] * psk_count(pattern)  # the same group psk at every psk token
            group_outsiders(name, h, psk)
        else:
            check(pattern == "XX", f"{name}: no group uses XX")
        i = Handshake(pattern, True, PROLOGUE, h("init_static"), h("init_ephemeral"), psks)
        r = Handshake(pattern, False, PROLOGUE, h("resp_static"), h("resp_ephemeral"), psks)
        m1 = i.write()
        check(m1 == bytes.fromhex(v["messages"][0]) and len(m1) == (48 if psks else 32),
              f"{name}: message 1 ({len(m1)} bytes)")
        r.read(m1)
        m2 = r.write(identity_payload(h("resp_identity_seed"), x25519_public(h("resp_static")), h("resp_hello")))
        check(m2 == bytes.fromhex(v["messages"][1]), f"{name}: message 2 (responder identity payload)")
        public, hello = verify_identity_payload(i.read(m2), i.rs)
        check(public == ed25519_public(h("resp_identity_seed")) and hello == h("resp_hello"), f"{name}: message 2 verifies")
        m3 = i.write(identity_payload(h("init_identity_seed"), x25519_public(h("init_static")), h("init_hello")))
        check(m3 == bytes.fromhex(v["messages"][2]), f"{name}: message 3 (initiator identity payload)")
        public, hello = verify_identity_payload(r.read(m3), r.rs)
        check(public == ed25519_public(h("init_identity_seed")) and hello == h("init_hello"), f"{name}: message 3 verifies")
        check(i.h == r.h == h("handshake_hash"), f"{name}: handshake hash")
        (i_send, i_recv), (r_send, r_recv) = i.split(), r.split()
        for n, rec in enumerate(v["records"]):
            send, recv = (i_send, r_recv) if rec["from"] == "initiator" else (r_send, i_recv)
            record = send.encrypt(b"", bytes.fromhex(rec["plaintext"]))
            check(record.hex() == rec["record"] and recv.decrypt(b"", record) == bytes.fromhex(rec["plaintext"]),
                  f"{name}: record {n} ({rec['from']})")
        for side in ("init", "resp"):
            facts, public = v[f"{side}_identity"], ed25519_public(h(f"{side}_identity_seed"))
            check(facts["public_key"] == public.hex() and facts["node_number"] == node_number(public)
                  and facts["fingerprint"] == fingerprint(public) and facts["tag"] == f"{node_number(public) & 0xFFFF:04x}",
                  f"{name}: {side} identity: public key, node number, fingerprint, tag")
        # Tampering is refused: one flipped bit in message 2.
        r2 = Handshake(pattern, False, PROLOGUE, h("resp_static"), h("resp_ephemeral"), psks)
        i2 = Handshake(pattern, True, PROLOGUE, h("init_static"), h("init_ephemeral"), psks)
        r2.read(i2.write())
        bent = bytearray(r2.write(identity_payload(h("resp_identity_seed"), x25519_public(h("resp_static")), b"")))
        bent[-1] ^= 1
        try:
            i2.read(bytes(bent))
            check(False, f"{name}: a flipped bit in message 2 is refused")
        except InvalidTag:
            check(True, f"{name}: a flipped bit in message 2 is refused")


FILE_PROLOGUE = b"lanchat file v1"


def file_vectors():
    """The transfer link's vector (PROTOCOL.md, "File transfer"): the chat
    link's handshake with its own prologue, the receiver's request in
    message 3, then records whose plaintexts are a kind byte and u64s."""
    v = marked_vector("file-vectors", "the file transfer vector block")
    if v is None:
        return
    h = lambda key: bytes.fromhex(v[key])
    name = "file transfer link"
    check(h("prologue") == FILE_PROLOGUE, f"{name}: prologue is 'lanchat file v1'")
    request = uuid.UUID(v["transfer_id"]).bytes + struct.pack(">Q", v["offset"])
    check(request == h("init_request"), f"{name}: request = transfer id (16) || offset (u64 BE)")
    i = Handshake("XX", True, FILE_PROLOGUE, h("init_static"), h("init_ephemeral"))
    r = Handshake("XX", False, FILE_PROLOGUE, h("resp_static"), h("resp_ephemeral"))
    m1 = i.write()
    check(m1 == bytes.fromhex(v["messages"][0]), f"{name}: message 1")
    r.read(m1)
    m2 = r.write(identity_payload(h("resp_identity_seed"), x25519_public(h("resp_static")), b""))
    check(m2 == bytes.fromhex(v["messages"][1]), f"{name}: message 2 (sender identity, nothing after it)")
    public, rest = verify_identity_payload(i.read(m2), i.rs)
    check(public == ed25519_public(h("resp_identity_seed")) and rest == b"", f"{name}: message 2 verifies")
    m3 = i.write(identity_payload(h("init_identity_seed"), x25519_public(h("init_static")), request))
    check(m3 == bytes.fromhex(v["messages"][2]), f"{name}: message 3 (receiver identity and request)")
    public, rest = verify_identity_payload(r.read(m3), r.rs)
    check(public == ed25519_public(h("init_identity_seed")) and rest == request, f"{name}: message 3 verifies")
    check(i.h == r.h == h("handshake_hash"), f"{name}: handshake hash")
    (i_send, i_recv), (r_send, r_recv) = i.split(), r.split()
    content, offset, received = h("file"), v["offset"], bytearray(h("file")[:v["offset"]])
    check(hashlib.sha256(content).digest() == h("file_sha256"), f"{name}: the file's SHA-256")
    kinds = []
    for n, rec in enumerate(v["records"]):
        send, recv = (i_send, r_recv) if rec["from"] == "initiator" else (r_send, i_recv)
        record = send.encrypt(b"", bytes.fromhex(rec["plaintext"]))
        plain = recv.decrypt(b"", record)
        check(record.hex() == rec["record"] and plain == bytes.fromhex(rec["plaintext"]), f"{name}: record {n} ({rec['from']})")
        kinds.append(plain[0])
        if plain[0] == 0x01:
            check(struct.unpack(">QQ", plain[1:]) == (offset, len(content)), f"{name}: start names offset and size")
        elif plain[0] == 0x02:
            (at,) = struct.unpack(">Q", plain[1:9])
            check(at == len(received), f"{name}: data at the next offset")
            received += plain[9:]
    check(kinds == [0x01, 0x02, 0x03, 0x05], f"{name}: start, data, end, verified")
    check(bytes(received) == content and hashlib.sha256(received).digest() == h("file_sha256"),
          f"{name}: the resumed file is whole and verifies")


def group_outsiders(name, h, psk):
    """A responder in the group refuses message 1 from a dialler with another
    secret, or none, so it never writes message 2 (its static key and
    identity): the outsider learns nothing about the group."""
    other = hashlib.sha256(b"lanchat group psk" + b"another group").digest()
    for label, pattern, psks in (("another secret", GROUP_PATTERN, [other, other]), ("no secret", "XX", [])):
        outsider = Handshake(pattern, True, PROLOGUE, h("init_static"), h("init_ephemeral"), psks)
        member = Handshake(GROUP_PATTERN, False, PROLOGUE, h("resp_static"), h("resp_ephemeral"), [psk, psk])
        try:
            member.read(outsider.write())
            check(False, f"{name}: a dialler with {label} fails on message 1")
        except (InvalidTag, ValueError):
            check(True, f"{name}: a dialler with {label} fails on message 1")


# --- signed public messages ------------------------------------------------------

SIGNATURE_CONTEXT = "lanchat-v2 public message"


def signed_str(text):
    data = text.encode()
    return struct.pack(">I", len(data)) + data


def canonical_public_message(f):
    """PROTOCOL.md "Signed public messages": the bytes the author signs."""
    stage = f.get("senderStage")
    return (signed_str(SIGNATURE_CONTEXT) + uuid.UUID(f["messageId"]).bytes
            + struct.pack(">Q", f["senderNumber"]) + struct.pack(">q", f["timestamp"])
            + signed_str(f["senderNickname"]) + (b"\x00" if stage is None else b"\x01" + signed_str(stage))
            + signed_str(f["content"]) + (b"\x01" if f.get("automatic") is True else b"\x00"))


def sign_public_message(seed, f):
    f["signature"] = base64.b64encode(Ed25519PrivateKey.from_private_bytes(seed).sign(canonical_public_message(f))).decode()
    f["authorKey"] = base64.b64encode(ed25519_public(seed)).decode()
    return f


def public_message_verdict(f):
    """None when the signature verifies and authorKey derives senderNumber, else why not."""
    try:
        key, signature = base64.b64decode(f["authorKey"], validate=True), base64.b64decode(f["signature"], validate=True)
    except (KeyError, TypeError, ValueError) as error:
        return f"unsigned or malformed ({type(error).__name__})"
    if len(key) != 32 or node_number(key) != f.get("senderNumber"):
        return "authorKey does not derive senderNumber"
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(signature, canonical_public_message(f))
        return None
    except (InvalidSignature, ValueError):
        return "bad signature"


def signature_vectors():
    """The canonical bytes and the signed frame of PROTOCOL.md's example."""
    section = re.search(r"\n## Signed public messages\n(.*?)(?=\n## |\Z)", protocol_text(), re.S)
    check(section is not None, "docs/PROTOCOL.md has the section Signed public messages")
    if not section:
        return
    section = section.group(1)
    canonical = re.search(r"```text\n(.*?)```", section, re.S)
    signed = re.search(r"```json\n(.*?)```", section, re.S)
    secret = re.search(r"secret\s*`([0-9a-f]{64})`", section)
    number = re.search(r"derives node number (\d+)", section)
    if not (canonical and signed and secret and number):
        check(False, "signature example: canonical bytes, frame, secret and number found")
        return
    signed = json.loads(signed.group(1))
    example = dict(signed, senderNumber=4711)
    example.pop("signature"), example.pop("authorKey")
    expected = bytes.fromhex("".join(canonical.group(1).split()))
    check(canonical_public_message(example) == expected and len(expected) == 90,
          f"signature example: canonical bytes ({len(expected)})")
    seed = bytes.fromhex(secret.group(1))
    check(node_number(ed25519_public(seed)) == int(number.group(1)) == signed["senderNumber"],
          "signature example: the RFC 8032 key derives the frame's senderNumber")
    mine = sign_public_message(seed, {k: v for k, v in signed.items() if k not in ("signature", "authorKey")})
    check(mine["signature"] == signed["signature"] and mine["authorKey"] == signed["authorKey"],
          "signature example: the same signature and authorKey (Ed25519 is deterministic)")
    check(public_message_verdict(signed) is None, "signature example: the frame verifies")
    bent = dict(signed, content=signed["content"] + "!")
    check(public_message_verdict(bent) == "bad signature", "signature example: changed content does not verify")


# --- live node -------------------------------------------------------------------

LIVE_TIMEOUT = 5.0  # seconds for any one answer from the node (its handshakeTimeout is 3 s)


def safety_number_half(public):
    d = hashlib.sha512(b"\x00\x00" + public + str(node_number(public)).encode()).digest()
    for _ in range(5200):
        d = hashlib.sha512(d + public).digest()
    return "".join("%05d" % (int.from_bytes(d[i * 5:i * 5 + 5], "big") % 100000) for i in range(6))


def safety_number_vectors():
    """PROTOCOL.md "Safety numbers": the vector, from hashlib alone."""
    v = marked_vector("safety-number-vector", "the safety number vector")
    if v is None:
        return
    keys = [bytes.fromhex(k) for k in v["keys"]]
    check([node_number(k) for k in keys] == v["numbers"], "safety number: node numbers of the two keys")
    halves = [safety_number_half(k) for k in keys]
    check(halves == v["halves"], "safety number: each side's 30 digits")
    for a, b in ((0, 1), (1, 0)):
        joined = halves[a] + halves[b] if halves[a] <= halves[b] else halves[b] + halves[a]
        grouped = " ".join(joined[i:i + 5] for i in range(0, 60, 5))
        check(grouped == v["safetyNumber"], f"safety number: the same from side {a + 1}")


def sealed_envelope_vectors():
    """docs/PROTOCOL.md "Sealed envelopes": the recipient card verifies,
    the envelope is exactly Noise X's message 1 from the fixed keys, it
    opens for the recipient, names the sender by its signature, and does
    not open under another recipient's prologue."""
    v = marked_vector("sealed-vector", "the sealed-envelope vector block")
    if v is None:
        return
    b = {k: bytes.fromhex(val) for k, val in v.items() if k != "protocol_name"}
    check(v["protocol_name"] == "Noise_X_25519_ChaChaPoly_SHA256", "sealed envelope: Noise X")
    recipient_identity = ed25519_public(b["recipient_identity_seed"])
    check(b["prologue"] == b"lanchat sealed v1\x00" + recipient_identity,
          "sealed envelope: prologue = label, NUL, recipient identity key")
    card = b["recipient_card"]
    recipient_static = x25519_public(b["recipient_static"])
    check(card == recipient_static + identity_payload(b["recipient_identity_seed"], recipient_static, b""),
          "sealed envelope: recipient card = static key || identity || signature")
    try:
        verify_identity_payload(card[32:], card[:32])
        card_ok = True
    except Exception:
        card_ok = False
    check(card_ok, "sealed envelope: the card's signature covers its static key")
    sender_static_public = x25519_public(b["sender_static"])
    i = Handshake("X", True, b["prologue"], b["sender_static"], b["sender_ephemeral"], remote_static=card[:32])
    sealed = i.write(identity_payload(b["sender_identity_seed"], sender_static_public, b["plaintext"]))
    check(sealed == b["envelope"], "sealed envelope: exact bytes from the fixed keys")
    r = Handshake("X", False, b["prologue"], b["recipient_static"])
    sender, plaintext = verify_identity_payload(r.read(b["envelope"]), r.rs)
    check(sender == ed25519_public(b["sender_identity_seed"]) and plaintext == b["plaintext"],
          "sealed envelope: opens for the recipient and names the sender")
    other = Handshake("X", False, b"lanchat sealed v1\x00" + bytes(32), b["recipient_static"])
    try:
        other.read(b["envelope"])
        misaddressed = False
    except Exception:
        misaddressed = True
    check(misaddressed, "sealed envelope: does not open under another recipient's prologue")


def frame(body):
    return struct.pack(">H", len(body)) + body


def read_exact(sock, n, deadline):
    data = b""
    while len(data) < n:
        remaining = deadline - time.time()
        if remaining <= 0:
            raise socket.timeout("deadline")
        sock.settimeout(remaining)
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError(f"closed after {len(data)} of {n} bytes")
        data += chunk
    return data


def read_frame(sock, deadline):
    header = read_exact(sock, 2, deadline)
    if header[:1] == b"{":
        raise ConnectionAbortedError("a v1 JSON line")
    (length,) = struct.unpack(">H", header)
    if length < 16:
        raise ValueError(f"frame of {length} bytes")
    return read_exact(sock, length, deadline)


def closes_silently(sock, deadline):
    """(closed, bytes received) once the peer closes, or at the deadline."""
    got = b""
    while time.time() < deadline:
        sock.settimeout(max(0.01, deadline - time.time()))
        try:
            chunk = sock.recv(4096)
        except socket.timeout:
            break
        except (ConnectionResetError, BrokenPipeError):
            return True, got
        if not chunk:
            return True, got
        got += chunk
    return False, got


def encode(f):
    return json.dumps(f, separators=(",", ":"), ensure_ascii=False).encode()


def uuid7():
    ms, rand = int(time.time() * 1000), int.from_bytes(os.urandom(10), "big")
    value = (ms << 80) | (0x7 << 76) | (((rand >> 62) & 0xFFF) << 64) | (0b10 << 62) | (rand & ((1 << 62) - 1))
    return str(uuid.UUID(int=value))


def now_ms():
    return int(time.time() * 1000)


class Link:
    """One v2 link dialled to the node: this script is the Noise initiator."""

    def __init__(self, port, psk=None, nickname="conform-py", host="127.0.0.1"):
        self.seed = os.urandom(32)
        self.public = ed25519_public(self.seed)
        self.number = node_number(self.public)
        self.nickname, self.instance = nickname, str(uuid.uuid4())
        static = X25519PrivateKey.generate().private_bytes(RAW, serialization.PrivateFormat.Raw, serialization.NoEncryption())
        self.static_public = x25519_public(static)
        pattern = GROUP_PATTERN if psk else "XX"
        self.hs = Handshake(pattern, True, PROLOGUE, static, None, [psk] * psk_count(pattern))
        self.sock = socket.create_connection((host, port), timeout=LIVE_TIMEOUT)
        self.started = time.time()
        self.send_cipher = self.recv_cipher = None
        self.received = []  # every frame the node sent in a record, decoded

    def close(self):
        self.sock.close()

    def message1(self):
        m1 = self.hs.write()
        self.sock.sendall(frame(m1))
        return m1

    def message2(self):
        """The node's (identity key, hello bytes); raises if it does not answer or verify."""
        payload = self.hs.read(read_frame(self.sock, self.started + LIVE_TIMEOUT))
        return verify_identity_payload(payload, self.hs.rs)

    def hello(self, **override):
        f = {"version": 2, "type": "hello", "messageId": uuid7(), "senderNumber": self.number,
             "senderNickname": self.nickname, "content": "", "timestamp": now_ms(), "instanceId": self.instance,
             "listenPort": 9, "capabilities": []}
        f.update(override)
        return f

    def message3(self, hello):
        self.sock.sendall(frame(self.hs.write(identity_payload(self.seed, self.static_public, encode(hello)))))
        self.send_cipher, self.recv_cipher = self.hs.split()

    def frame_of(self, kind, **fields):
        f = {"version": 2, "type": kind, "messageId": uuid7(), "senderNumber": self.number,
             "senderNickname": self.nickname, "content": "", "timestamp": now_ms()}
        f.update(fields)
        return f

    def send(self, f):
        self.sock.sendall(frame(self.send_cipher.encrypt(b"", encode(f))))

    def receive(self, deadline):
        """The next record, opened (InvalidTag if it does not) and decoded."""
        plaintext = self.recv_cipher.decrypt(b"", read_frame(self.sock, deadline))
        try:
            f = json.loads(plaintext)
        except ValueError:
            f = None
        self.received.append((plaintext, f))
        return f

    def receive_until(self, predicate, timeout=LIVE_TIMEOUT):
        """Reads records (answering pings) until one matches; None at the deadline or close."""
        deadline = time.time() + timeout
        while True:
            try:
                f = self.receive(deadline)
            except (socket.timeout, ConnectionError, OSError):
                return None
            if isinstance(f, dict) and predicate(f):
                return f
            if isinstance(f, dict) and f.get("type") == "ping":
                self.send(self.frame_of("pong", refId=f.get("messageId")))


class Node:
    """A `lanchat --json --in-memory` process on loopback only, its events read by a thread."""

    def __init__(self, binary, extra=()):
        self.discovery_port = random.randint(20000, 29999)
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [binary, "--json", "--in-memory", "--nick", "conform", "--broadcast", "127.255.255.255",
             "--discovery-port", str(self.discovery_port), *extra],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, text=True, bufsize=1)
        self.events, self.ended, self.condition = [], False, threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        ready = self.wait_event(lambda e: e.get("event") == "ready", 60)
        self.number, self.port, self.instance = (ready or {}).get("number"), (ready or {}).get("port"), (ready or {}).get("instanceId")

    def _read(self):
        for line in self.process.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                event = {"event": "unparsable", "line": line}
            with self.condition:
                self.events.append(event)
                self.condition.notify_all()
        with self.condition:
            self.ended = True
            self.condition.notify_all()

    def wait_event(self, predicate, timeout=LIVE_TIMEOUT, start=0):
        deadline = time.time() + timeout
        with self.condition:
            while True:
                for event in self.events[start:]:
                    if predicate(event):
                        return event
                remaining = deadline - time.time()
                if remaining <= 0 or self.ended:
                    return None
                self.condition.wait(remaining)

    def command(self, c):
        self.process.stdin.write(json.dumps(c) + "\n")
        self.process.stdin.flush()

    def statistics(self):
        """The node's `stats` reply (its counters; transport ones under `transport`)."""
        tag = uuid7()
        self.command({"cmd": "stats", "id": tag})
        return self.wait_event(lambda e: e.get("event") == "ok" and str(e.get("re")) == tag) or {}

    def counters(self):
        return self.statistics().get("transport") or {}

    def stop(self):
        try:
            self.process.stdin.close()  # end of input: the node quits cleanly
            self.process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait(timeout=10)

    def stderr_tail(self, lines=15):
        self.stderr.seek(0)
        return "\n".join(self.stderr.read().decode(errors="replace").splitlines()[-lines:])


def handshake(node, link, what):
    """Messages 1-3 and the node's first record; returns (identity key, hello dict, first frame) or None."""
    link.message1()
    try:
        public, hello = link.message2()
    except (ConnectionAbortedError, ConnectionError, socket.timeout, ValueError, InvalidTag, InvalidSignature) as error:
        check(False, f"live{what}: the node answers message 1 with a verified v2 message 2 ({type(error).__name__}: {error})")
        return None
    try:
        node_hello = json.loads(hello)
    except ValueError:
        node_hello = None
    link.message3(link.hello())
    try:
        first = link.receive(time.time() + LIVE_TIMEOUT)
    except (InvalidTag, ConnectionError, socket.timeout, ValueError) as error:
        check(False, f"live{what}: the node's first record opens ({type(error).__name__}: {error})")
        return None
    return public, node_hello, first


def live_chat(node):
    link = Link(node.port)
    try:
        done = handshake(node, link, "")
        if not done:
            return
        public, hello, first = done
        check(True, f"live: v2 handshake with node {node.number} (identity {fingerprint(public)})")
        check(node_number(public) == node.number, "live: the node's identity key derives the number it reports (ready)")
        check(isinstance(hello, dict) and hello.get("type") == "hello" and hello.get("version") == 2
              and hello.get("senderNumber") == node.number and hello.get("instanceId") == node.instance
              and hello.get("listenPort") == node.port and isinstance(hello.get("capabilities", []), list)
              and hello.get("senderNickname") == "conform",
              f"live: message 2 carries the node's v2 hello (version 2, its number, instanceId, listenPort): {hello}")
        check(isinstance(first, dict) and first.get("type") == "ping" and first.get("senderNumber") == node.number,
              f"live: the node accepts with a ping as its first record ({first and first.get('type')})")
        link.send(link.frame_of("pong", refId=first.get("messageId") if isinstance(first, dict) else None))
        joined = node.wait_event(lambda e: e.get("event") == "peerJoined" and (e.get("peer") or {}).get("number") == link.number)
        check(joined is not None, f"live: the node reports peerJoined for this script's number {link.number}")

        ping = link.frame_of("ping")
        link.send(ping)
        pong = link.receive_until(lambda f: f.get("type") == "pong" and f.get("refId") == ping["messageId"])
        check(pong is not None, "live: the node answers a ping with a pong naming it")

        # The link proves its peer's key, so a live public message from the
        # link's own number and key is shown without a verify; one with no
        # signature, or another key, is refused. Refused ones first: the link
        # is in order, so once the good one is shown the node has judged
        # these (no sleep needed to say "not shown").
        refusals = node.statistics().get("signatureRefusals") or {}
        unsigned = link.frame_of("publicMessage", content="unsigned")
        other_key = sign_public_message(os.urandom(32), link.frame_of("publicMessage", content="another key"))
        forged = sign_public_message(link.seed, link.frame_of("publicMessage", content="forged"))
        forged["content"] = "forged, changed after signing"
        text = f"conformance says hi {os.urandom(3).hex()} 👋"
        message = sign_public_message(link.seed, link.frame_of("publicMessage", content=text))
        mark = len(node.events)
        for f in (unsigned, other_key, forged, message):
            link.send(f)
        shown = node.wait_event(lambda e: e.get("event") == "message" and e.get("id") == message["messageId"], start=mark)
        check(shown is not None and shown.get("from") == link.number and shown.get("text") == text
              and shown.get("room") == "public" and shown.get("mine") is False,
              f"live: the node shows a signed public message from {link.number} with its text ({shown})")
        bad_ids = (unsigned["messageId"], other_key["messageId"])
        leaked = [e for e in node.events[mark:] if e.get("event") == "message" and e.get("id") in bad_ids]
        after = node.statistics().get("signatureRefusals") or {}
        grew = {k: after.get(k, 0) - refusals.get(k, 0) for k in ("unsigned", "notLinkKey", "badSignature")}
        check(not leaked and grew == {"unsigned": 1, "notLinkKey": 1, "badSignature": 0},
              f"live: an unsigned public message and one with a key not the link's are not shown, counted {grew}")
        tampered = [e for e in node.events[mark:] if e.get("event") == "message" and e.get("id") == forged["messageId"]]
        check(len(tampered) == 1, "live: one with a broken signature on its author's own link is shown (the link proves the author)")
        # A relayer verifies before relaying: asked for its history, the node
        # sends the good message with its signature, never the broken one.
        ask = link.frame_of("historyRequest", catchUp={"epoch": "", "seq": 0}, limit=50)
        link.send(ask)
        history = link.receive_until(lambda f: f.get("type") == "historyReply" and f.get("refId") == ask["messageId"])
        relayed = {m.get("messageId"): m for m in (history or {}).get("messages") or []}
        relay_refused = node.statistics().get("relayRefusals") or {}
        check(history is not None and message["messageId"] in relayed and forged["messageId"] not in relayed
              and relayed[message["messageId"]].get("signature") == message["signature"]
              and relay_refused.get("badSignature") == 1,
              f"live: its history reply relays the good message, signature intact, and not the broken one "
              f"({len(relayed)} relayed, relayRefusals {relay_refused})")

        reply = f"node answers {os.urandom(3).hex()}"
        node.command({"cmd": "send", "text": reply})
        got = link.receive_until(lambda f: f.get("type") == "publicMessage" and f.get("content") == reply)
        check(got is not None, "live: a public message sent by the node arrives in a record that opens")
        if got:
            verdict = public_message_verdict(got)
            check(verdict is None and got.get("senderNumber") == node.number
                  and got.get("authorKey") == base64.b64encode(public).decode(),
                  f"live: its signature verifies with the node's identity key from message 2 ({verdict or 'ok'})")
        bad = [p for p, f in link.received if not isinstance(f, dict) or p.endswith(b"\n") or f.get("senderNumber") != node.number]
        check(not bad, f"live: each of the node's {len(link.received)} records is one JSON frame, no line end, "
                       f"with the node's number{f' (not: {bad[:2]})' if bad else ''}")
        return public
    finally:
        link.close()


def live_hostile(node):
    # A record with one flipped bit: the node must close the link.
    before = node.counters().get("recordFailures", 0)
    link = Link(node.port, nickname="conform-bent")
    try:
        done = handshake(node, link, " (tampered record)")
        if done:
            record = bytearray(link.send_cipher.encrypt(b"", encode(link.frame_of("pong", refId=done[2].get("messageId")))))
            record[len(record) // 2] ^= 0x01
            link.sock.sendall(frame(bytes(record)))
            closed, _ = closes_silently(link.sock, time.time() + LIVE_TIMEOUT)
            after = node.counters().get("recordFailures", 0)
            check(closed and after == before + 1,
                  f"live: a tampered record closes the link (closed {closed}, recordFailures {before} -> {after})")
    finally:
        link.close()

    # A hello naming the node's own number (someone else's): refused, no record.
    before = node.counters().get("claimedNumbers", 0)
    link = Link(node.port, nickname="conform-liar")
    try:
        link.message1()
        link.message2()
        link.message3(link.hello(senderNumber=node.number))
        closed, got = closes_silently(link.sock, time.time() + LIVE_TIMEOUT)
        after = node.counters().get("claimedNumbers", 0)
        check(closed and not got and after == before + 1,
              f"live: a hello claiming another number is closed without a record "
              f"(closed {closed}, {len(got)} bytes, claimedNumbers {before} -> {after})")
    except (ConnectionError, socket.timeout, ValueError, InvalidTag, InvalidSignature) as error:
        check(False, f"live: a hello claiming another number ({type(error).__name__}: {error})")
    finally:
        link.close()

    # A v1 hello line: one versionRefused line, then close.
    with socket.create_connection(("127.0.0.1", node.port), timeout=LIVE_TIMEOUT) as sock:
        v1 = {"version": 1, "type": "hello", "messageId": uuid7(), "senderNumber": 4711, "senderNickname": "old",
              "content": "", "timestamp": now_ms(), "instanceId": "v1-node", "listenPort": 9}
        sock.sendall(encode(v1) + b"\n")
        closed, got = closes_silently(sock, time.time() + LIVE_TIMEOUT)
        lines = got.split(b"\n")
        try:
            answer = json.loads(lines[0])
        except ValueError:
            answer = {}
        check(closed and len(lines) == 2 and lines[1] == b"" and answer.get("type") == "versionRefused"
              and "1" in answer.get("content", "") and "2" in answer.get("content", ""),
              f"live: a v1 hello gets one versionRefused line, then the close ({got[:160]!r})")


def refused(node, counter, what, act, timeout=LIVE_TIMEOUT, silent=True):
    """act() -> a socket the node must close (without writing a byte when
    silent), counting the refusal under transport `counter`."""
    before = node.counters().get(counter, 0)
    sock = None
    try:
        sock = act()
        closed, got = closes_silently(sock, time.time() + timeout)
        after = node.counters().get(counter, 0)
        check(closed and (not got or not silent) and after == before + 1,
              f"live: {what} (closed {closed}, {len(got)} bytes back, {counter} {before} -> {after})")
    except (ConnectionError, socket.timeout, ValueError, InvalidTag, InvalidSignature) as error:
        check(False, f"live: {what} ({type(error).__name__}: {error})")
    finally:
        if sock:
            sock.close()


def live_hostile_more(node):
    def spoofed():
        link = Link(node.port, nickname="conform-spoof")
        if handshake(node, link, " (spoofed sender)"):
            link.send(dict(link.frame_of("publicMessage", content="not mine"), senderNumber=node_number(os.urandom(32))))
        return link.sock

    def secret_on_one_side():
        link = Link(node.port, psk=hashlib.sha256(b"lanchat group psk" + b"ours").digest())
        link.message1()
        return link.sock

    def short_frame():
        sock = socket.create_connection(("127.0.0.1", node.port), timeout=LIVE_TIMEOUT)
        sock.sendall(struct.pack(">H", 15) + bytes(15))
        return sock

    def silent():
        link = Link(node.port)
        link.message1()
        link.message2()  # then nothing: no message 3
        return link.sock

    refused(node, "spoofed", "a frame whose senderNumber is not the link's closes the link", spoofed, silent=False)
    refused(node, "handshakeFailures", "a dialler with a group secret gets no message 2 from a node without one",
            secret_on_one_side)
    refused(node, "handshakeFailures", "a frame length under 16 closes the connection without a byte", short_frame)
    started = time.time()
    refused(node, "handshakeTimeout", "a dialler that stops after message 2 is closed after handshakeTimeout",
            silent, timeout=3 + LIVE_TIMEOUT)
    elapsed = time.time() - started
    check(elapsed >= 2.5, f"live: that close came at handshakeTimeout (3 s), not early ({elapsed:.1f} s)")


def live_dialled(node, node_key):
    """The node as dialler: a loopback beacon from a higher number makes it
    dial at once (3.1); this script answers as the Noise responder."""
    seed = os.urandom(32)
    while node_number(ed25519_public(seed)) <= node.number:
        seed = os.urandom(32)
    number, instance = node_number(ed25519_public(seed)), str(uuid.uuid4())
    static = X25519PrivateKey.generate().private_bytes(RAW, serialization.PrivateFormat.Raw, serialization.NoEncryption())
    with socket.socket() as listener, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        udp.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        beacon = encode({"proto": "lanchat", "version": 1, "kind": "beacon", "number": number, "nickname": "conform-acc",
                         "tcpPort": listener.getsockname()[1], "instanceId": instance})
        deadline, conn = time.time() + LIVE_TIMEOUT, None
        while conn is None and time.time() < deadline:
            udp.sendto(beacon, ("127.255.255.255", node.discovery_port))  # loopback broadcast only
            listener.settimeout(0.5)  # a beacon again if no dial came: datagrams may be lost
            try:
                conn, _ = listener.accept()
            except socket.timeout:
                pass
        check(conn is not None, "live dialled: a beacon from a higher number makes the node dial it")
        if conn is None:
            return
        with conn:
            deadline = time.time() + LIVE_TIMEOUT  # its handshakeTimeout counts from the connect
            hs = Handshake("XX", False, PROLOGUE, static, None, [])
            try:
                m1 = read_frame(conn, deadline)
                hs.read(m1)
                hello = {"version": 2, "type": "hello", "messageId": uuid7(), "senderNumber": number,
                         "senderNickname": "conform-acc", "content": "", "timestamp": now_ms(), "instanceId": instance,
                         "listenPort": listener.getsockname()[1], "capabilities": []}
                conn.sendall(frame(hs.write(identity_payload(seed, x25519_public(static), encode(hello)))))
                public, their_hello = verify_identity_payload(hs.read(read_frame(conn, deadline)), hs.rs)
            except (ConnectionError, socket.timeout, ValueError, InvalidTag, InvalidSignature) as error:
                check(False, f"live dialled: the node's messages 1 and 3 ({type(error).__name__}: {error})")
                return
            try:
                their_hello = json.loads(their_hello)
            except ValueError:
                their_hello = None
            check(len(m1) == 32 and public == node_key and isinstance(their_hello, dict)
                  and their_hello.get("type") == "hello" and their_hello.get("version") == 2
                  and their_hello.get("senderNumber") == node.number and their_hello.get("instanceId") == node.instance
                  and their_hello.get("listenPort") == node.port,
                  f"live dialled: message 1 of {len(m1)} bytes; message 3 has the node's identity key and v2 hello")
            send, recv = hs.split()
            # Until this side accepts, the dialler must stay silent: a short
            # look (a correct node never fails it, a wrong one may slip by).
            conn.settimeout(0.5)
            try:
                early = conn.recv(1)
            except socket.timeout:
                early = None
            check(early is None, f"live dialled: the node sends no record before the link is accepted ({early!r})")
            mark = len(node.events)
            ping = {"version": 2, "type": "ping", "messageId": uuid7(), "senderNumber": number,
                    "senderNickname": "conform-acc", "content": "", "timestamp": now_ms()}
            conn.sendall(frame(send.encrypt(b"", encode(ping))))  # the acceptance
            pong = None
            try:
                while pong is None:
                    f = json.loads(recv.decrypt(b"", read_frame(conn, time.time() + LIVE_TIMEOUT)))
                    if isinstance(f, dict) and f.get("type") == "pong" and f.get("refId") == ping["messageId"]:
                        pong = f
            except (ConnectionError, socket.timeout, ValueError, InvalidTag) as error:
                pong = error
            check(isinstance(pong, dict) and pong.get("senderNumber") == node.number,
                  f"live dialled: the node answers the accepting ping with a pong in a record that opens ({type(pong).__name__})")
            joined = node.wait_event(lambda e: e.get("event") == "peerJoined" and (e.get("peer") or {}).get("number") == number,
                                     start=mark)
            check(joined is not None, "live dialled: the node reports peerJoined once accepted")


def live_group(binary):
    """A node with a group secret: the right secret links; another or none gets no message 2."""
    directory = tempfile.mkdtemp(prefix="conform-")
    secret_path = os.path.join(directory, "secret")
    with open(os.open(secret_path, os.O_WRONLY | os.O_CREAT, 0o600), "wb") as out:
        out.write(os.urandom(24).hex().encode() + b"\n")
    psk = group_keys(open(secret_path, "rb").read())[0]
    node = Node(binary, ["--secret-file", secret_path])
    if node.port:
        live_group_beacon(node, open(secret_path, "rb").read())
    try:
        if not node.port:
            check(False, f"live group: the node with --secret-file reports ready\n{node.stderr_tail()}")
            return
        link = Link(node.port, psk=psk)
        try:
            done = handshake(node, link, " group")
            if done:
                check(done[2] is not None and done[2].get("type") == "ping" and node_number(done[0]) == node.number,
                      f"live group: the right secret completes the handshake (first record: {done[2] and done[2].get('type')})")
        finally:
            link.close()
        other = hashlib.sha256(b"lanchat group psk" + b"not our group").digest()
        for label, key in (("another secret (48-byte message 1)", other), ("no secret (32-byte message 1)", None)):
            link = Link(node.port, psk=key)
            try:
                link.message1()
                closed, got = closes_silently(link.sock, time.time() + LIVE_TIMEOUT)
                check(closed and not got, f"live group: a dialler with {label} gets no message 2, "
                                          f"only the close (closed {closed}, {len(got)} bytes)")
            finally:
                link.close()
    finally:
        node.stop()
        os.unlink(secret_path)
        os.rmdir(directory)


def live_node(host, port, secret_file=None):
    """--node: the handshake and the first record with a node already running."""
    psk = group_keys(open(secret_file, "rb").read())[0] if secret_file else None
    link = Link(port, psk=psk, host=host)
    try:
        done = handshake(None, link, "")
        if done:
            check(isinstance(done[2], dict), f"live: node {node_number(done[0])} ({fingerprint(done[0])}): "
                                             f"handshake done, first record {done[2] and done[2].get('type')}")
    finally:
        link.close()


def live():
    binary = os.path.join(ROOT, ".build/debug/lanchat")
    if not os.path.exists(binary):
        check(False, f"live: {binary} is built (swift build --product lanchat)")
        return
    node = Node(binary)
    atexit.register(lambda: node.process.poll() is None and node.process.kill())
    try:
        if not node.port:
            check(False, f"live: the node reports ready with its port\n{node.stderr_tail()}")
            return
        failed = failures
        node_key = live_chat(node)
        if node_key:
            live_dialled(node, node_key)
        live_hostile(node)
        live_hostile_more(node)
        if failures > failed:
            print(f"      node stderr (last lines):\n{node.stderr_tail()}")
    finally:
        node.stop()
    live_group(binary)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--live", action="store_true", help="start .build/debug/lanchat and talk to it")
    parser.add_argument("--node", metavar="HOST:PORT", help="handshake with a node already running")
    parser.add_argument("--secret-file", help=f"the --node's group secret file ({GROUP_PATTERN})")
    args = parser.parse_args()
    noise_vectors()
    protocol_vectors()
    sealed_beacon_vector()
    file_vectors()
    signature_vectors()
    safety_number_vectors()
    sealed_envelope_vectors()
    if args.node:
        host, port = args.node.rsplit(":", 1)
        live_node(host, int(port), args.secret_file)
    elif args.live:
        live()
    print(f"{failures} failure(s)" if failures else "all checks passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

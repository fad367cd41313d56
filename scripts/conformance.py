#!/usr/bin/env python3
"""Independent check of lanchat protocol v2's cryptographic layer.

Implements Noise XX, XXpsk3 and XXpsk0+psk3 (25519, ChaChaPoly, SHA256;
spec rev 34) from scratch on the `cryptography` package, then:

  1. passes the published Noise vectors the Swift tests use
     (Tests/ChatCryptoTests/Fixtures/noise-vectors.json), which shows this
     implementation is right;
  2. recomputes every byte of PROTOCOL.md's v2 test vectors from their
     fixed keys (handshake messages, identity payload signatures, records,
     node numbers, fingerprints, psk, beacon tag), and that a node with
     another group secret, or none, fails on message 1 (before message 2,
     which would reveal the responder's identity);
  3. with --live (or --node HOST:PORT), performs one real handshake and a
     record exchange with a running node. Against a node that still speaks
     v1 this part is SKIPPED with a clear message (exit status 0, "SKIP").

Usage:
  scripts/conformance.py                  vectors only
  scripts/conformance.py --live           also start .build/debug/lanchat and handshake with it
  scripts/conformance.py --node HOST:PORT also handshake with a node already running
Exit status: 0 all checks passed (or live part skipped), 1 a check failed.
"""
import argparse, hashlib, hmac, json, os, re, socket, struct, subprocess, sys, time

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives import serialization
from cryptography.exceptions import InvalidSignature, InvalidTag

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROLOGUE = b"lanchat v2"
IDENTITY_CONTEXT = b"lanchat v2 handshake identity\x00"
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
}
GROUP_PATTERN = "XXpsk0+psk3"


def psk_count(pattern):
    return sum(message.count("psk") for message in PATTERNS[pattern])


class Handshake:
    def __init__(self, pattern, initiator, prologue, static, ephemeral=None, psks=()):
        """psks: one per psk token of the pattern, used in order."""
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
        self.payload_hash = None
        self.mix_hash(prologue)

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

    def write(self, payload_for):
        """payload_for(h) -> payload bytes (h: the hash at the payload)."""
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
        self.payload_hash = self.h
        out += self.encrypt_and_hash(payload_for(self.h))
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
        self.payload_hash = self.h
        if self.cipher.k is not None and len(message) - offset < 16:
            raise ValueError("message too short for its tag")
        payload = self.decrypt_and_hash(message[offset:])
        self.index += 1
        return payload

    def split(self):
        k1, k2 = hkdf(self.ck, b"", 2)
        return (Cipher(k1), Cipher(k2)) if self.initiator else (Cipher(k2), Cipher(k1))


# --- lanchat v2 ----------------------------------------------------------------

def identity_payload(seed, static_public, h, hello):
    signature = Ed25519PrivateKey.from_private_bytes(seed).sign(IDENTITY_CONTEXT + static_public + h + hello)
    return ed25519_public(seed) + signature + hello


def verify_identity_payload(payload, remote_static, h):
    if len(payload) < 96:
        raise ValueError("identity payload shorter than 96 bytes")
    public, signature, hello = payload[:32], payload[32:96], payload[96:]
    Ed25519PublicKey.from_public_bytes(public).verify(signature, IDENTITY_CONTEXT + remote_static + h + hello)
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


# --- checks --------------------------------------------------------------------

failures = 0


def check(condition, what):
    global failures
    print(("ok    " if condition else "FAIL  ") + what)
    if not condition:
        failures += 1


def noise_vectors():
    path = os.path.join(ROOT, "Tests/ChatCryptoTests/Fixtures/noise-vectors.json")
    for v in json.load(open(path))["vectors"]:
        pattern = v["protocol_name"].split("_")[1]
        init_psks = [bytes.fromhex(p) for p in v.get("init_psks") or []]
        resp_psks = [bytes.fromhex(p) for p in v.get("resp_psks") or []]
        i = Handshake(pattern, True, bytes.fromhex(v["init_prologue"]), bytes.fromhex(v["init_static"]),
                      bytes.fromhex(v["init_ephemeral"]), init_psks)
        r = Handshake(pattern, False, bytes.fromhex(v["resp_prologue"]), bytes.fromhex(v["resp_static"]),
                      bytes.fromhex(v["resp_ephemeral"]), resp_psks)
        ok, transport = True, None
        for n, m in enumerate(v["messages"]):
            payload, sender_is_i = bytes.fromhex(m["payload"]), n % 2 == 0
            if not i.finished:
                a, b = (i, r) if sender_is_i else (r, i)
                ct = a.write(lambda h: payload)
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
    text = open(os.path.join(ROOT, "PROTOCOL.md")).read()
    block = re.search(r"<!-- lanchat-v2-vectors:begin -->\s*```\w*\n(.*?)```\s*<!-- lanchat-v2-vectors:end -->", text, re.S)
    check(block is not None, "PROTOCOL.md has the v2 vector block")
    if not block:
        return
    for v in json.loads(block.group(1))["vectors"]:
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
        m1 = i.write(lambda _: b"")
        check(m1 == bytes.fromhex(v["messages"][0]) and len(m1) == (48 if psks else 32),
              f"{name}: message 1 ({len(m1)} bytes)")
        r.read(m1)
        m2 = r.write(lambda hh: identity_payload(h("resp_identity_seed"), x25519_public(h("resp_static")), hh, h("resp_hello")))
        check(m2 == bytes.fromhex(v["messages"][1]), f"{name}: message 2 (responder identity payload)")
        public, hello = verify_identity_payload(i.read(m2), i.rs, i.payload_hash)
        check(public == ed25519_public(h("resp_identity_seed")) and hello == h("resp_hello"), f"{name}: message 2 verifies")
        m3 = i.write(lambda hh: identity_payload(h("init_identity_seed"), x25519_public(h("init_static")), hh, h("init_hello")))
        check(m3 == bytes.fromhex(v["messages"][2]), f"{name}: message 3 (initiator identity payload)")
        public, hello = verify_identity_payload(r.read(m3), r.rs, r.payload_hash)
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
        r2.read(i2.write(lambda _: b""))
        bent = bytearray(r2.write(lambda hh: identity_payload(h("resp_identity_seed"), x25519_public(h("resp_static")), hh, b"")))
        bent[-1] ^= 1
        try:
            i2.read(bytes(bent))
            check(False, f"{name}: a flipped bit in message 2 is refused")
        except InvalidTag:
            check(True, f"{name}: a flipped bit in message 2 is refused")


def group_outsiders(name, h, psk):
    """A responder in the group refuses message 1 from a dialler with another
    secret, or none, so it never writes message 2 (its static key and
    identity): the outsider learns nothing about the group."""
    other = hashlib.sha256(b"lanchat group psk" + b"another group").digest()
    for label, pattern, psks in (("another secret", GROUP_PATTERN, [other, other]), ("no secret", "XX", [])):
        outsider = Handshake(pattern, True, PROLOGUE, h("init_static"), h("init_ephemeral"), psks)
        member = Handshake(GROUP_PATTERN, False, PROLOGUE, h("resp_static"), h("resp_ephemeral"), [psk, psk])
        try:
            member.read(outsider.write(lambda _: b""))
            check(False, f"{name}: a dialler with {label} fails on message 1")
        except (InvalidTag, ValueError):
            check(True, f"{name}: a dialler with {label} fails on message 1")


# --- live node -----------------------------------------------------------------

def frame(body):
    return struct.pack(">H", len(body)) + body


def read_frame(sock, deadline):
    def read_exact(n):
        data = b""
        while len(data) < n:
            sock.settimeout(max(0.05, deadline - time.time()))
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return data
    header = read_exact(2)
    if header[:1] == b"{":
        raise ConnectionAbortedError("v1")
    (length,) = struct.unpack(">H", header)
    if length < 16:
        raise ValueError(f"frame of {length} bytes")
    return read_exact(length)


def live(host, port, secret_file=None):
    """One handshake as initiator with the node at host:port, then one record
    each way. Returns True (passed), False (failed) or None (skipped: v1)."""
    psk = group_keys(open(secret_file, "rb").read())[0] if secret_file else None
    static = X25519PrivateKey.generate().private_bytes(RAW, serialization.PrivateFormat.Raw, serialization.NoEncryption())
    seed = os.urandom(32)
    pattern = GROUP_PATTERN if psk else "XX"
    hs = Handshake(pattern, True, PROLOGUE, static, None, [psk] * psk_count(pattern))
    deadline = time.time() + 5
    with socket.create_connection((host, port), timeout=5) as sock:
        sock.sendall(frame(hs.write(lambda _: b"")))
        try:
            m2 = read_frame(sock, deadline)
        except (ConnectionAbortedError, ConnectionError, socket.timeout, ValueError) as error:
            print(f"SKIP  live: the node at {host}:{port} does not answer a v2 handshake ({error or type(error).__name__}); "
                  "it still speaks protocol v1")
            return None
        try:
            public, hello = verify_identity_payload(hs.read(m2), hs.rs, hs.payload_hash)
        except (InvalidTag, InvalidSignature, ValueError) as error:
            check(False, f"live: message 2 from the node verifies ({type(error).__name__})")
            return False
        check(True, f"live: node identity {fingerprint(public)} (node {node_number(public)}), hello {len(hello)} bytes")
        hello_out = json.dumps({"nickname": "conformance"}).encode()
        sock.sendall(frame(hs.write(lambda hh: identity_payload(seed, x25519_public(static), hh, hello_out))))
        send, recv = hs.split()
        # The first record from the node (its hello or first frame) must open.
        try:
            record = recv.decrypt(b"", read_frame(sock, time.time() + 5))
            check(True, f"live: first record from the node opens ({len(record)} bytes)")
        except (InvalidTag, ConnectionError, socket.timeout, ValueError) as error:
            check(False, f"live: first record from the node opens ({type(error).__name__})")
            return False
        sock.sendall(frame(send.encrypt(b"", b'{"type":"ping"}\n')))
        return True


def start_node():
    binary = os.path.join(ROOT, ".build/debug/lanchat")
    if not os.path.exists(binary):
        print(f"SKIP  live: {binary} not built (swift build)")
        return None, None
    port = 20000 + os.getpid() % 10000
    node = subprocess.Popen([binary, "--json", "--in-memory", "--nick", "conform", "--broadcast", "127.255.255.255",
                             "--discovery-port", str(port)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    for line in node.stdout:
        event = json.loads(line)
        if event.get("event") == "ready":
            return node, event.get("port")
    return node, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--live", action="store_true", help="start .build/debug/lanchat and handshake with it")
    parser.add_argument("--node", metavar="HOST:PORT", help="handshake with a node already running")
    parser.add_argument("--secret-file", help=f"the node's group secret file ({GROUP_PATTERN})")
    args = parser.parse_args()
    noise_vectors()
    protocol_vectors()
    if args.node:
        host, port = args.node.rsplit(":", 1)
        live(host, int(port), args.secret_file)
    elif args.live:
        node, port = start_node()
        if node:
            try:
                if port:
                    live("127.0.0.1", int(port), args.secret_file)
                else:
                    check(False, "live: the node reported its port")
            finally:
                node.terminate()
                node.wait(timeout=10)
    print(f"{failures} failure(s)" if failures else "all checks passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

// swift-tools-version:6.0
import PackageDescription

// No package dependencies by design: Foundation, Dispatch, Glibc, the
// toolchain's test modules and the system SQLite and libcrypto libraries only. Linux only
// for now (the socket layer is Glibc): no `platforms` claim until macOS is
// built and tested. scripts/check-manifest.py (run by scripts/test.sh)
// fails when a target's dependencies differ from what its sources import.
let package = Package(
    name: "lanchat",
    products: [
        .executable(name: "lanchat", targets: ["lanchat"]),
        .executable(name: "lanchat-bench", targets: ["LANChatBench"]),
    ],
    targets: [
        // Pure chat core: models, rules, the two ports. Foundation only.
        // The pinned Unicode look-alike data (Unicode/*.txt) is compiled in
        // at build time by the plugin below, not shipped as a resource bundle.
        .target(name: "ChatCore", plugins: ["LookAlikeDataPlugin"]),
        .executableTarget(name: "LookAlikeDataGenerator"),
        // The wire format: P2PPayload <-> the JSON bytes of one frame (codec, fast paths, FrameError). Pure.
        .target(name: "ChatWire", dependencies: ["ChatCore"]),
        .plugin(name: "LookAlikeDataPlugin", capability: .buildTool(), dependencies: ["LookAlikeDataGenerator"], path: "Sources/LookAlikeDataPlugin"),
        // SQLite from the system (Debian: libsqlite3-dev).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        // The SQLite history store behind ChatCore's storage ports (ChatStoring, FileTransferStoring).
        .target(name: "ChatStore", dependencies: ["ChatCore", "CSQLite"]),
        // OpenSSL 3 libcrypto from the system (Debian: libssl-dev).
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        // Noise handshakes, AEAD records, identity keys: thin wrappers over libcrypto's EVP.
        .target(name: "ChatCrypto", dependencies: ["ChatCore", "CCrypto"]),
        // epoll(7) from the system headers (Linux only; Glibc's module lacks it).
        .systemLibrary(name: "CEpoll"),
        // Sockets, discovery, peer links.
        // Optimised in debug builds too, as ChatOverlay: the discovery
        // simulations the unit suite runs (mass start, beacon rate) are
        // most of its CPU, several times slower unoptimised.
        .target(name: "P2PTransport", dependencies: ["ChatCore", "ChatWire", "ChatCrypto", "CEpoll", "ChatOverlay"],
                swiftSettings: [.unsafeFlags(["-O"])]),
        // The node actor: transport -> router -> models -> store, through the ports in ChatCore (no SQLite here).
        .target(name: "ChatNode", dependencies: ["ChatCore", "ChatWire", "ChatCrypto"]),
        // The overlay for large LANs (issue 29): HyParView membership, Plumtree broadcast, a simulator. Pure values; P2PService drives them.
        // Optimised in debug builds too: the simulator's loop is what the
        // 1,000-node tests time, and unoptimised it is ~20x slower.
        .target(name: "ChatOverlay", dependencies: ["ChatCore", "ChatWire"], swiftSettings: [.unsafeFlags(["-O"])]),
        // The full-screen client's screen model: state -> grid of cells. No I/O.
        .target(name: "ChatScreen", dependencies: ["ChatCore"]),
        // Argument parsing, console, JSON-lines control, bots.
        .target(name: "ChatApp", dependencies: ["ChatCore", "ChatStore", "P2PTransport", "ChatNode", "ChatScreen", "ChatCrypto"]),
        .executableTarget(name: "lanchat", dependencies: ["ChatApp"]),
        // What drives a node from outside, for the tests and the bench alike:
        // a raw v2 peer and the child-process harness. Not in `lanchat`.
        .target(name: "LANChatHarness", dependencies: ["ChatCore", "ChatWire", "ChatCrypto"]),
        // `swift run -c release lanchat-bench`: figures beside same-run baselines.
        .executableTarget(name: "LANChatBench", dependencies: ["ChatCore", "ChatWire", "CSQLite", "ChatNode", "ChatStore", "P2PTransport", "ChatApp", "ChatScreen", "ChatCrypto", "CCrypto", "ChatOverlay", "LANChatHarness"]),

        // Shared test helpers: manual clock, recording logger, in-memory network, waits with deadlines, `lanchat` under test (NodeProcess).
        .target(name: "TestSupport", dependencies: ["ChatCore", "ChatStore", "LANChatHarness", "P2PTransport", "ChatOverlay"], path: "Tests/TestSupport"),
        .testTarget(name: "ChatCoreTests", dependencies: ["ChatCore", "TestSupport"]),
        .testTarget(name: "ChatWireTests", dependencies: ["ChatCore", "ChatWire", "ChatCrypto", "TestSupport"]),
        .testTarget(name: "ChatStoreTests", dependencies: ["ChatCore", "ChatStore", "TestSupport"]),
        .testTarget(name: "ChatCryptoTests", dependencies: ["ChatCore", "ChatWire", "ChatCrypto", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "P2PTransportTests", dependencies: ["ChatCore", "ChatWire", "P2PTransport", "ChatCrypto", "LANChatHarness", "TestSupport", "ChatOverlay"]),
        .testTarget(name: "ChatNodeTests", dependencies: ["ChatCore", "ChatWire", "ChatNode", "ChatStore", "ChatCrypto", "TestSupport"]),
        .testTarget(name: "ChatOverlayTests", dependencies: ["ChatCore", "ChatWire", "ChatOverlay", "TestSupport"]),
        .testTarget(name: "ChatScreenTests", dependencies: ["ChatCore", "ChatScreen", "TestSupport"]),
        // Runs the built `lanchat` binary end to end.
        .testTarget(name: "ChatAppTests", dependencies: ["ChatCore", "ChatNode", "ChatApp", "ChatStore", "ChatCrypto", "P2PTransport", "ChatScreen", "LANChatHarness", "TestSupport"], exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)

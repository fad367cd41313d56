import CCrypto
import ChatCore
import ChatCrypto
import Foundation
import Glibc
import P2PTransport

/// Files between peers: one file (1 GiB; 256 MiB with --quick) over a
/// transfer link on loopback, two `FileTransferService`s in this process,
/// from offer-served to verified on the receiver's disk. Beside it, in the
/// same run and alternating with it: the ceiling on this machine (the
/// minimal C pipeline `scripts/bench/file_baseline.c`: read, seal, TCP,
/// open, SHA-256, write, fsync, no lanchat code, hashing on the receiving
/// thread or on a third), and the two baselines: raw TCP on
/// loopback (64 KiB writes, no crypto, nothing on disk) and libcrypto's
/// ChaCha20-Poly1305 sealing 64 KiB records on one core. The source is
/// sparse (reads cost no disk); received files go to the temporary
/// directory and are removed.
enum FileRow {
    /// One lanchat transfer: wall and process CPU seconds, RSS growth (KiB).
    struct Transfer {
        var seconds: Double
        var cpu: Double
        var rssGrowthKiB: Int
    }

    static func run(quick: Bool, baselines: CBaselines) async throws -> [BenchRow] {
        let runs = quick ? 1 : 3
        let file = try SparseSourceFile(label: "files", quick: quick)
        defer { file.remove() }
        let (size, directory, source) = (file.size, file.directory, file.path)

        // The offer's hash also brings the source into the page cache, for
        // every run after it (lanchat's and the C pipeline's alike).
        let hashStart = ContinuousClock.now
        let facts = try FileTransferService(identity: try IdentityKey.generate(), groupSecret: nil).inspect(path: source)
        let hashSeconds = Measure.seconds(ContinuousClock.now - hashStart)
        var transfers: [Transfer] = []
        var ceilings: [FileCeiling] = [], twoThreads: [FileCeiling] = []
        for _ in 0..<runs {
            transfers.append(try await transfer(source: source, facts: facts, directory: directory))
            ceilings.append(try baselines.fileCopy(source: source, destination: directory + "/c.bin", threads: 3))
            twoThreads.append(try baselines.fileCopy(source: source, destination: directory + "/c.bin", threads: 2))
        }
        let tcpRate = try rawTCPRate(bytes: size)
        let aeadRate = try aeadSealRate(bytes: size)
        let shaRate = sha256Rate(bytes: size)
        let goal = min(tcpRate, aeadRate) / 2

        let median = transfers.sorted { $0.seconds < $1.seconds }[runs / 2]
        let ceiling = ceilings.sorted { $0.seconds < $1.seconds }[runs / 2]
        let two = twoThreads.sorted { $0.seconds < $1.seconds }[runs / 2]
        let fileRate = Double(size) / median.seconds
        let list = { (rates: [Double]) in rates.map { String(format: "%.0f", $0 / 1e6) }.joined(separator: ", ") }
        let gib = Double(1 << 30) / Double(size)
        var row = BenchRow(
            key: "file",
            figure: "a \(size >> 20) MiB file over a transfer link on loopback, offer served to verified on disk (MB/s, median of \(runs))",
            value: String(format: "%.0f MB/s (runs: %@)", fileRate / 1e6, list(transfers.map { Double(size) / $0.seconds })),
            baseline: String(format: "ceiling, C pipeline, same steps, no lanchat code: %.0f MB/s hashing on a third thread (%@), %.0f MB/s on the receiving thread; raw TCP loopback %.0f MB/s; ChaCha20-Poly1305 seal, one core %.0f MB/s; SHA-256, one core %.0f MB/s",
                             ceiling.rate / 1e6, list(ceilings.map(\.rate)), two.rate / 1e6, tcpRate / 1e6, aeadRate / 1e6, shaRate / 1e6),
            target: String(format: "≥ half the slower of TCP and ChaCha20-Poly1305 (%.0f MB/s)", goal / 1e6), met: fileRate >= goal,
            numbers: ["file_bytes_per_second": fileRate, "ceiling_bytes_per_second": ceiling.rate, "ceiling_two_threads_bytes_per_second": two.rate,
                      "raw_tcp_bytes_per_second": tcpRate, "aead_seal_bytes_per_second": aeadRate, "sha256_bytes_per_second": shaRate,
                      "seconds": median.seconds, "hash_seconds": hashSeconds, "rss_growth_kib": Double(transfers.map(\.rssGrowthKiB).max() ?? 0),
                      "cpu_seconds_per_gib": median.cpu * gib, "ceiling_cpu_seconds_per_gib": ceiling.cpu * gib])
        row.note = String(format: "offering hashed the file first: %.2f s (%.0f MB/s SHA-256, page cache cold); the receiver hashes beside writing and fsyncs at the end",
                          hashSeconds, Double(size) / hashSeconds / 1e6)
        let stages = ceiling.perGiB.map { String(format: "%@ %.2f", $0.0, $0.1) }.joined(separator: ", ")
        var cpu = BenchRow(
            key: "file",
            figure: "CPU seconds per GiB moved (both ends, both in one process; 2 cores: wall ≥ CPU / 2)",
            value: String(format: "%.2f s (%.2f s wall)", median.cpu * gib, median.seconds * gib),
            baseline: String(format: "C pipeline %.2f s (%@; fsync %.2f s wall, not CPU)", ceiling.cpu * gib, stages, ceiling.fsync * gib),
            target: "-", met: nil)
        cpu.numbers = ["cpu_seconds_per_gib": median.cpu * gib, "ceiling_cpu_seconds_per_gib": ceiling.cpu * gib]
        let rss = BenchRow(
            key: "file", figure: "process RSS growth during a transfer (sender and receiver in one process; worst of \(runs))",
            value: Measure.mib(Double(transfers.map(\.rssGrowthKiB).max() ?? 0)), baseline: "-", target: "receiver < 20 MB",
            met: (transfers.map(\.rssGrowthKiB).max() ?? 0) < 20 * 1024)
        return [row, cpu, rss]
    }

    /// One transfer between two new services; RSS sampled at each progress
    /// event (4 a second).
    static func transfer(source: String, facts: FileFacts, directory: String) async throws -> Transfer {
        let senderKey = try IdentityKey.generate()
        let sender = try FileTransferService(identity: senderKey, groupSecret: nil)
        let receiverKey = try IdentityKey.generate()
        let receiver = try FileTransferService(identity: receiverKey, groupSecret: nil)
        _ = try sender.start()
        _ = try receiver.start()
        defer { sender.stop(); receiver.stop() }
        let id = MessageID(millis: Int64(Date().timeIntervalSince1970 * 1000), random: (.random(in: 0...UInt64.max), .random(in: 0...UInt64.max)))
        sender.serve(ServedFile(id: id, peerKey: Data(receiverKey.publicKey.rawValue).base64EncodedString(),
                                peer: receiverKey.nodeNumber, path: source, facts: facts))
        let partial = directory + "/received.part"
        defer { try? FileManager.default.removeItem(atPath: partial) }
        let rssBefore = residentKiB()
        var peakRSS = rssBefore
        let cpuBefore = MeshRow.processCPU()
        let started = ContinuousClock.now
        receiver.fetch(FetchRequest(id: id, peerKey: Data(senderKey.publicKey.rawValue).base64EncodedString(), host: "127.0.0.1",
                                    port: sender.port, partialPath: partial, size: facts.size, sha256: facts.sha256))
        var outcome: FileLinkEvent?
        for await event in receiver.linkEvents {
            peakRSS = max(peakRSS, residentKiB())
            switch event {
            case .received, .failed: outcome = event
            default: continue
            }
            break
        }
        let seconds = Measure.seconds(ContinuousClock.now - started)
        let cpu = MeshRow.processCPU() - cpuBefore
        guard case .received? = outcome else { throw BenchFailure("the transfer did not finish: \(String(describing: outcome))") }
        return Transfer(seconds: seconds, cpu: cpu, rssGrowthKiB: peakRSS - rssBefore)
    }

    /// 64 KiB writes through a TCP connection on 127.0.0.1, read on another thread.
    static func rawTCPRate(bytes: Int64) throws -> Double {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        guard bound == 0, listen(listener, 1) == 0 else { throw BenchFailure("raw TCP listener") }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) } }
        let server = accept(listener, nil, nil)
        close(listener)
        guard connected == 0, server >= 0 else { throw BenchFailure("raw TCP connect") }
        defer { close(client); close(server) }
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            var total: Int64 = 0
            while total < bytes {
                let got = buffer.withUnsafeMutableBytes { recv(server, $0.baseAddress, $0.count, 0) }
                if got <= 0 { break }
                total += Int64(got)
            }
        }
        let chunk = [UInt8](repeating: 0x5A, count: 1 << 16)
        let started = ContinuousClock.now
        reader.start()
        var sent: Int64 = 0
        while sent < bytes {
            let count = chunk.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw BenchFailure("raw TCP send") }
            sent += Int64(count)
        }
        shutdown(client, Int32(SHUT_WR))
        // The reader has everything once it stops.
        while !reader.isFinished { usleep(100) }
        return Double(bytes) / Measure.seconds(ContinuousClock.now - started)
    }

    /// EVP ChaCha20-Poly1305 sealing 65 510-byte records with a reused context.
    static func aeadSealRate(bytes: Int64) throws -> Double {
        let key = [UInt8](repeating: 7, count: 32)
        guard let context = EVP_CIPHER_CTX_new(),
              EVP_CipherInit_ex(context, EVP_chacha20_poly1305(), nil, key, [UInt8](repeating: 0, count: 12), 1) == 1 else {
            throw BenchFailure("EVP init")
        }
        defer { EVP_CIPHER_CTX_free(context) }
        let plain = [UInt8](repeating: 1, count: FileTransferLimits.chunkBytes + 9)
        var sealed = [UInt8](repeating: 0, count: plain.count + 32)
        var tag = [UInt8](repeating: 0, count: 16)
        let records = Int(bytes / Int64(plain.count))
        let started = ContinuousClock.now
        for counter in 0..<records {
            let nonce = ChaChaPoly.nonce(counter: UInt64(counter))
            var length: Int32 = 0
            guard EVP_CipherInit_ex(context, nil, nil, nil, nonce, 1) == 1,
                  EVP_EncryptUpdate(context, &sealed, &length, plain, Int32(plain.count)) == 1,
                  EVP_EncryptFinal_ex(context, &sealed, &length) == 1,
                  EVP_CIPHER_CTX_ctrl(context, CCRYPTO_CTRL_AEAD_GET_TAG, 16, &tag) == 1 else { throw BenchFailure("EVP seal") }
        }
        return Double(records * plain.count) / Measure.seconds(ContinuousClock.now - started)
    }

    /// `SHA256Stream` over 64 KiB pieces of memory: what the receiver's
    /// running hash (and the sender's hashing before the offer) is bound by.
    static func sha256Rate(bytes: Int64) -> Double {
        let piece = [UInt8](repeating: 3, count: 1 << 16)
        let hasher = SHA256Stream()
        let started = ContinuousClock.now
        for _ in 0..<Int(bytes >> 16) { hasher.update(piece) }
        _ = hasher.finish()
        return Double(bytes) / Measure.seconds(ContinuousClock.now - started)
    }

    /// VmRSS of this process, KiB.
    static func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

import Foundation

/// Which rows run, in which order, and what happens to their results.
enum BenchPlan {
    /// Row keys for `--only`, in table order.
    static let allKeys = ["latency", "handshake", "dm", "receive", "send", "throughput", "mesh", "discovery", "store", "grouping", "idle",
                          "flood", "codec", "json", "screen", "crypto", "search", "search-receive",
                          "beacon-flood", "skeleton", "file", "file-chat", "ledger", "overlay-sim", "beacon-rate", "overlay-processes", "overlay-codec"]

    static func run(_ options: Options) async -> Int32 {
        let machine = Machine.describe()
        log("lanchat-bench\(options.quick ? " --quick" : ""): \(machine["cores"] ?? "?") cores, \(machine["cpu"] ?? "?"), \(machine["memory"] ?? "?")")
        let baselines: CBaselines
        do {
            baselines = try CBaselines()
        } catch {
            log("cannot build the C baselines: \(error)")
            return 1
        }
        defer { baselines.remove() }
        let quick = options.quick
        var rows: [BenchRow] = []
        var failed = false
        for key in allKeys where options.only?.contains(key) ?? true {
            let load = Machine.loadAverage() ?? .nan
            log(String(format: "running %@... (load average %.2f)", key, load))
            let firstRow = rows.count
            let started = ContinuousClock.now
            do {
                switch key {
                case "latency": rows += try await NetworkRows.publicLatency(quick: quick, baselines: baselines)
                case "handshake": rows.append(try await HandshakeRow.run(quick: quick))
                case "throughput": rows.append(try await ThroughputRow.run(quick: quick))
                case "mesh": rows.append(try await MeshRow.run(quick: quick))
                case "dm":
                    rows.append(try await NetworkRows.directAck(quick: quick, baselines: baselines, onDisk: false))
                    rows.append(try await NetworkRows.directAck(quick: quick, baselines: baselines, onDisk: true))
                case "receive": rows.append(try await NetworkRows.receiving(quick: quick, baselines: baselines))
                case "send": rows.append(try await NetworkRows.sending(quick: quick, baselines: baselines))
                case "discovery": rows.append(try await ProcessRows.discovery(quick: quick))
                case "store": rows += try await StoreRows.run(quick: quick, baselines: baselines)
                case "grouping": rows.append(StoreRows.grouping(quick: quick))
                case "idle": rows.append(try await ProcessRows.idle(quick: quick))
                case "flood":
                    rows.append(try await FloodRow.run(quick: quick, inMemory: false))
                    rows.append(try await FloodRow.run(quick: quick, inMemory: true))
                case "codec": rows.append(CodecRow.run(quick: quick))
                case "json": rows.append(JSONEventsRow.run(quick: quick))
                case "screen": rows.append(ScreenRow.run(quick: quick))
                case "crypto": rows += try CryptoRows.run(quick: quick)
                case "search": rows += try await SearchRows.run(quick: quick)
                case "search-receive": rows.append(try await SearchRows.receiving(quick: quick))
                case "beacon-flood": rows.append(try await BeaconFloodRow.run(quick: quick))
                case "skeleton": rows.append(SkeletonRow.run(quick: quick))
                case "file": rows += try await FileRow.run(quick: quick, baselines: baselines)
                case "file-chat": rows += try await FileChatRow.run(quick: quick)
                case "ledger": rows.append(try await KeyLedgerRow.run(quick: quick))
                case "overlay-sim": rows.append(OverlaySimRow.run(quick: quick))
                case "beacon-rate": rows.append(try await BeaconRateRow.run(quick: quick))
                case "overlay-processes": rows += try await OverlayProcessRow.run(quick: quick)
                case "overlay-codec": rows.append(try OverlayCodecRow.run(quick: quick))
                default: break
                }
            } catch {
                failed = true
                log("\(key) failed: \(error)")
                rows.append(BenchRow(key: key, figure: key, value: "failed", baseline: "-", target: "-", met: nil, note: "\(error)"))
            }
            for index in firstRow..<rows.count { rows[index].numbers["load_average_before"] = load }
            log(String(format: "  %@ took %.1f s (load average %.2f)", key, Measure.seconds(ContinuousClock.now - started),
                       Machine.loadAverage() ?? .nan))
        }
        print(BenchReport.table(rows))
        print("\nmachine: \(machine.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", "))")
        do {
            try FileManager.default.createDirectory(
                at: URL(fileURLWithPath: options.jsonPath).deletingLastPathComponent(), withIntermediateDirectories: true)
            try BenchReport.json(rows, machine: machine, quick: quick).write(to: URL(fileURLWithPath: options.jsonPath))
            log("results written to \(options.jsonPath)")
        } catch {
            log("cannot write \(options.jsonPath): \(error)")
            failed = true
        }
        return failed ? 1 : 0
    }

    static func log(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

